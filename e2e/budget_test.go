//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestSteadyStateBudget: scenario 8. Once converged, a cluster of four
// nodes and a load balancer spends what BENCHMARKS.md says: 24 requests
// per hour at 10 nodes (one listing per HCLOUD_INVENTORY_MAX_AGE), so a
// minute holds at most one listing, plus one for a refresh that falls due
// inside the window.
func TestSteadyStateBudget(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1", "worker-2", "worker-3")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
		Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "load balancer status", func() bool { return len(get(t, env, "web").Status.LoadBalancer.Ingress) > 0 })
	fakecloudtest.Eventually(t, time.Minute, "four routes", func() bool {
		nw, _, err := env.Cloud().Client.Network.Get(ctx, "cluster")
		return err == nil && len(nw.Routes) == 4
	})
	time.Sleep(5 * time.Second) // the last actions settle
	cloud := env.Cloud()
	if err := cloud.ResetCounters(ctx); err != nil {
		t.Fatal(err)
	}
	const window = time.Minute
	time.Sleep(window)
	n, err := cloud.Requests(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("steady state: %d requests in %s (4 nodes, 1 load balancer, 4 routes)", n, window)
	if n > 2 {
		t.Errorf("%d requests in %s of steady state, want at most 2", n, window)
	}
}
