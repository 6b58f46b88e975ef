//go:build e2e

package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestLoadBalancerOnPrimaryIP: a Service naming a Primary IP gets a load
// balancer on its address; deleted, the Service waits for the load
// balancer's deletion to end, the Primary IP stays, and the Service
// created again gets the same address, with no create refused meanwhile
// (fakecloud keeps the Primary IP locked until the delete action ends).
func TestLoadBalancerOnPrimaryIP(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1")
	api := env.Cloud().Client
	svcs := env.Kube.CoreV1().Services("default")
	res, _, err := api.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: "web-ipv4", Type: hcloud.PrimaryIPTypeIPv4, Location: "fsn1"})
	if err != nil {
		t.Fatal(err)
	}
	pip := res.PrimaryIP
	address := func() string {
		if in := get(t, env, "web").Status.LoadBalancer.Ingress; len(in) > 0 {
			return in[0].IP
		}
		return ""
	}
	create := func() {
		svc := classService("web", "")
		svc.Annotations = map[string]string{"load-balancer.hetzner.cloud/public-net-ipv4": strconv.FormatInt(pip.ID, 10)}
		if _, err := svcs.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		fakecloudtest.Eventually(t, time.Minute, "web's address", func() bool { return address() != "" })
		if got := address(); got != pip.IP.String() {
			t.Fatalf("web's address %s, want the Primary IP's %s", got, pip.IP)
		}
	}

	done := timed(t, "a load balancer on the Primary IP")
	create()
	if lb := onlyLB(t, env); lb.PublicNet.IPv4.ID != pip.ID {
		t.Errorf("the load balancer's IPv4 is Primary IP %d, want %d", lb.PublicNet.IPv4.ID, pip.ID)
	}
	done()

	done = timed(t, "Service deleted and created again: the same address")
	if err := svcs.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "web deleted", func() bool {
		_, err := svcs.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if kept, _, err := api.PrimaryIP.GetByID(ctx, pip.ID); err != nil || kept == nil || kept.AssigneeID != 0 {
		t.Fatalf("the Primary IP after the Service went: %+v, %v; want it unassigned", kept, err)
	}
	create()
	done()
	if refused, err := env.Cloud().RequestsWithStatus(ctx, "/load_balancers", 423); err != nil || refused != 0 {
		t.Errorf("%d requests refused as locked (%v): the Service was reported gone before its load balancer was", refused, err)
	}
	if all, _ := api.LoadBalancer.All(ctx); len(all) != 1 {
		t.Errorf("%d load balancers, want 1", len(all))
	}
}
