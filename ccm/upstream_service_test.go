// The upstream service controller of k8s.io/cloud-provider v0.36.3 races
// with itself: processServiceCreateOrUpdate writes cachedService.state
// (controller.go:339) without the lock allServices (controller.go:503)
// reads it under. These tests run without -race in make test.

//go:build !race

package ccm

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

const finalizer = "service.kubernetes.io/load-balancer-cleanup"

// TestServiceControllerLifecycle runs the upstream service controller:
// a Service gets its load balancer, status and finalizer; a joining node
// becomes a target; deleting the Service deletes the load balancer and
// releases the finalizer.
func TestServiceControllerLifecycle(t *testing.T) {
	c := newLBCluster(t, 4, fakecloud.Options{})
	for _, n := range c.nodes[:3] {
		if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.runServices(t, 10)
	c.start(t)
	svc := lbService("web", []int32{80, 443})
	if _, err := c.kube.CoreV1().Services("default").Create(c.ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	get := func() *corev1.Service {
		s, err := c.kube.CoreV1().Services("default").Get(c.ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	fakecloudtest.Eventually(t, 20*time.Second, "status.loadBalancer.ingress", func() bool { return len(get().Status.LoadBalancer.Ingress) == 3 })
	if !slices.Contains(get().Finalizers, finalizer) {
		t.Errorf("finalizers %v, want %s", get().Finalizers, finalizer)
	}
	lb := c.LoadBalancerOf(t, svc)
	if got := get().Status.LoadBalancer.Ingress[0].IP; got != lb.PublicNet.IPv4.IP.String() {
		t.Errorf("ingress %s, want %s", got, lb.PublicNet.IPv4.IP)
	}
	if len(lb.Targets) != 3 || len(lb.Services) != 2 {
		t.Errorf("%d targets, %d services; want 3 and 2", len(lb.Targets), len(lb.Services))
	}

	before, reads := c.requests(), c.FC.Requests("GET", "/load_balancers")
	if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, c.nodes[3], metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "the joining node as a target", func() bool { return len(c.LoadBalancerOf(t, svc).Targets) == 4 })
	if n := c.requests() - before - (c.FC.Requests("GET", "/load_balancers") - reads); n != 1 { // less the test's own reads
		t.Errorf("a node join sent %d requests, want 1", n)
	}

	// kubectl delete: the apiserver sets the deletion timestamp and keeps the
	// object until the finalizer is gone.
	s := get()
	now := metav1.Now()
	s.DeletionTimestamp = &now
	if _, err := c.kube.CoreV1().Services("default").Update(c.ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "the finalizer released", func() bool { return !slices.Contains(get().Finalizers, finalizer) })
	if all := c.LoadBalancers(t); len(all) != 0 {
		t.Errorf("%d load balancers left after the Service was deleted", len(all))
	}
}
