package ccm

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// stubLBs answers every load balancer call at once.
type stubLBs struct{}

func (stubLBs) GetLoadBalancer(context.Context, string, *corev1.Service) (*corev1.LoadBalancerStatus, bool, error) {
	return nil, false, nil
}
func (stubLBs) GetLoadBalancerName(context.Context, string, *corev1.Service) string { return "" }
func (stubLBs) EnsureLoadBalancer(context.Context, string, *corev1.Service, []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	return nil, nil
}
func (stubLBs) UpdateLoadBalancer(context.Context, string, *corev1.Service, []*corev1.Node) error {
	return nil
}
func (stubLBs) EnsureLoadBalancerDeleted(context.Context, string, *corev1.Service) error { return nil }

// Each load balancer call of the provider counts once under the official
// CCM's op value (LoadBalancer wraps the Manager in countedLBs).
func TestLoadBalancerOperationsCounted(t *testing.T) {
	lbs := countedLBs{stubLBs{}}
	ops := []string{"hcloud/loadBalancers.GetLoadBalancer", "hcloud/loadBalancers.EnsureLoadBalancer",
		"hcloud/loadBalancers.UpdateLoadBalancer", "hcloud/loadBalancers.EnsureLoadBalancerDeleted"}
	before := make([]float64, len(ops))
	for i, op := range ops {
		before[i] = testutil.ToFloat64(operationsTotal.WithLabelValues(op))
	}
	ctx, svc := t.Context(), &corev1.Service{}
	_, _, _ = lbs.GetLoadBalancer(ctx, "", svc)
	_, _ = lbs.EnsureLoadBalancer(ctx, "", svc, nil)
	_ = lbs.UpdateLoadBalancer(ctx, "", svc, nil)
	_ = lbs.EnsureLoadBalancerDeleted(ctx, "", svc)
	for i, op := range ops {
		if got := testutil.ToFloat64(operationsTotal.WithLabelValues(op)) - before[i]; got != 1 {
			t.Errorf("%s counted %v times, want 1", op, got)
		}
	}
}

// TestLBTypeCacheCounted: the load balancers' asks for the load balancer
// types count under the official CCM's metric, as its cache of them
// does: the first a miss, which lists them, the next hits, which do not.
func TestLBTypeCacheCounted(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	lbs, _ := c.cloud.LoadBalancer()
	hit := lbTypeCacheRequests.WithLabelValues("load_balancer", "all", "hit")
	miss := lbTypeCacheRequests.WithLabelValues("load_balancer", "all", "miss")
	hits, misses := testutil.ToFloat64(hit), testutil.ToFloat64(miss)
	svc := lbService("web", []int32{80})
	for range 3 {
		if _, err := lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes); err != nil {
			t.Fatal(err)
		}
	}
	if h, m := testutil.ToFloat64(hit)-hits, testutil.ToFloat64(miss)-misses; h != 2 || m != 1 {
		t.Errorf("3 syncs counted %v hits and %v misses, want 2 and 1", h, m)
	}
	if n := c.FC.Requests("GET", "/load_balancer_types"); n != 1 {
		t.Errorf("%d listings of the types, want 1", n)
	}
}
