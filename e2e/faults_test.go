//go:build e2e

package e2e

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestOutage: scenario 6. A minute of 500s, then a minute of hanging
// requests: no Node is deleted (a NotReady one included), no load balancer
// is duplicated, and once the API answers again everything converges.
func TestOutage(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1", "worker-2")
	web := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
		Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, web, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "web's load balancer", func() bool { return len(get(t, env, "web").Status.LoadBalancer.Ingress) > 0 })

	cloud := env.Cloud()
	const phase = time.Minute
	for _, r := range []fakecloud.Rule{
		{Name: "500s", Path: "/**", Status: 500, For: fakecloud.Duration(phase)},
		{Name: "hangs", Path: "/**", Hang: true, Start: fakecloud.Duration(phase), For: fakecloud.Duration(phase)},
	} {
		if err := cloud.AddFault(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	outage := time.Now()
	// During the outage: a node goes NotReady, a node joins, a Service is created.
	if err := env.SetReady(ctx, "worker-2", false); err != nil {
		t.Fatal(err)
	}
	if err := env.RegisterNode(ctx, "worker-3", cidr(3)); err != nil {
		t.Fatal(err)
	}
	api := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
		Ports: []corev1.ServicePort{{Port: 443}}}}
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, api, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for time.Since(outage) < 2*phase {
		for _, n := range []string{"control-plane-1", "worker-1", "worker-2", "worker-3"} {
			if node(t, env, n) == nil {
				t.Fatalf("Node %s deleted during the outage", n)
			}
		}
		time.Sleep(2 * time.Second)
	}
	if err := cloud.ClearFaults(ctx); err != nil {
		t.Fatal(err)
	}
	done := timed(t, "converged after the outage")
	fakecloudtest.Eventually(t, 6*time.Minute, "worker-3 initialised, api's load balancer, worker-3 a target of both", func() bool {
		if node(t, env, "worker-3").Spec.ProviderID == "" || len(get(t, env, "api").Status.LoadBalancer.Ingress) == 0 {
			return false
		}
		all, err := cloud.Client.LoadBalancer.All(ctx)
		if err != nil || len(all) != 2 {
			return false
		}
		for _, lb := range all {
			if len(lb.Targets) != 4 {
				return false
			}
		}
		return true
	})
	done()
	if node(t, env, "worker-2") == nil {
		t.Error("the NotReady worker-2, whose server exists, was deleted")
	}
	if all, _ := cloud.Client.LoadBalancer.All(ctx); len(all) != 2 {
		t.Errorf("%d load balancers, want 2", len(all))
	}
}
