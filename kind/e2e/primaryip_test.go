//go:build e2ekind

package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// primaryIPTraffic: a Service naming a Primary IP (created through the
// API, so fakecloud takes its address from the traffic range) gets a
// load balancer that carries traffic at the Primary IP's address; the
// Service deleted and created again, the same address carries traffic
// again. It leaves the cluster as it found it: the Service, its load
// balancer and the Primary IP gone.
func primaryIPTraffic(t *testing.T, ctx context.Context) {
	api := cluster.cloud.Client
	res, _, err := api.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: "kept", Type: hcloud.PrimaryIPTypeIPv4, Location: "fsn1"})
	if err != nil {
		t.Fatal(err)
	}
	pip := res.PrimaryIP
	pods, err := echoPods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	svcs := cluster.kube.CoreV1().Services("default")
	url := "http://" + pip.IP.String() + ":80/"
	create := func() {
		t.Helper()
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: "default",
			Annotations: map[string]string{"load-balancer.hetzner.cloud/health-check-interval": "3s", "load-balancer.hetzner.cloud/health-check-timeout": "2s",
				"load-balancer.hetzner.cloud/location": "fsn1", "load-balancer.hetzner.cloud/use-private-ip": "true",
				"load-balancer.hetzner.cloud/public-net-ipv4": strconv.FormatInt(pip.ID, 10)}},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
				Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
		if _, err := svcs.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := fakecloudtest.Wait(2*time.Minute, func() bool { return ingress(ctx, "kept") == pip.IP.String() }); err != nil {
			t.Fatalf("Service kept's address %q, want the Primary IP's %s: %v", ingress(ctx, "kept"), pip.IP, err)
		}
		if err := reachesAll(url, pods); err != nil {
			t.Fatal(err)
		}
	}
	gone := func() {
		t.Helper()
		if err := svcs.Delete(ctx, "kept", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := fakecloudtest.Wait(2*time.Minute, func() bool {
			_, err := svcs.Get(ctx, "kept", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}); err != nil {
			t.Fatalf("Service kept not deleted: %v", err)
		}
		if p, _, err := api.PrimaryIP.GetByID(ctx, pip.ID); err != nil || p == nil || p.AssigneeID != 0 {
			t.Fatalf("the Primary IP once the Service went: %+v, %v; want it unassigned", p, err)
		}
		if err := fakecloudtest.Wait(10*time.Second, func() bool { _, err := served(url); return err != nil }); err != nil {
			t.Fatalf("%s still answers with its load balancer deleted: %v", url, err)
		}
	}
	create()
	gone()
	create()
	logf("the Primary IP's address %s carried traffic to every pod, and again after the Service was deleted and created anew", pip.IP)
	gone()
	if _, err := api.PrimaryIP.Delete(ctx, pip); err != nil {
		t.Fatal(err)
	}
}
