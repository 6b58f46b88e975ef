package ccm

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
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
