package ccm

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
)

// The official CCM's own metrics, with its names, labels and help, so its
// dashboards and alerts keep working (docs/guides/migrate-from-official-ccm.md).
var (
	// operationsTotal counts calls of the provider's interface on entry,
	// with the official CCM's op values for the same methods. Its internal
	// steps (hcops/..., annotation/...) have no counterpart here.
	operationsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cloud_controller_manager_operations_total",
		Help: "The total number of operation was called",
	}, []string{"op"})
	// lbTypeCacheRequests counts the load balancers' asks for the load
	// balancer types (loadbalancer.Options.TypesCounted): a hit answered
	// from the last listing, a miss sent one.
	lbTypeCacheRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cloud_controller_manager_load_balancer_type_cache_requests_total",
		Help: "Total cache requests to the Load Balancer Types API partitioned by subsystem, mode and result.",
	}, []string{"subsystem", "mode", "result"})
	serverCacheDesc = prometheus.NewDesc("cloud_controller_manager_server_cache_requests_total",
		"Total cache requests to the Servers API partitioned by subsystem, mode and result.", []string{"subsystem", "mode", "result"}, nil)
)

// operation counts one call of the provider's interface.
func operation(op string) { operationsTotal.WithLabelValues(op).Inc() }

// countLBTypes counts an ask for the load balancer types as the official
// CCM's cache of them does: subsystem load_balancer, mode all.
func countLBTypes(hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	lbTypeCacheRequests.WithLabelValues("load_balancer", "all", result).Inc()
}

// Cache subsystems, as the official CCM names its server cache's callers;
// a lookup that names none counts under "none".
const (
	subsystemInstances = "instances_v2"
	subsystemRoutes    = "routes"
	subsystemNone      = "none"
)

// countedLBs counts the load balancer interface's calls.
type countedLBs struct{ cloudprovider.LoadBalancer }

func (l countedLBs) GetLoadBalancer(ctx context.Context, cluster string, svc *corev1.Service) (*corev1.LoadBalancerStatus, bool, error) {
	operation("hcloud/loadBalancers.GetLoadBalancer")
	return l.LoadBalancer.GetLoadBalancer(ctx, cluster, svc)
}

func (l countedLBs) EnsureLoadBalancer(ctx context.Context, cluster string, svc *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	operation("hcloud/loadBalancers.EnsureLoadBalancer")
	return l.LoadBalancer.EnsureLoadBalancer(ctx, cluster, svc, nodes)
}

func (l countedLBs) UpdateLoadBalancer(ctx context.Context, cluster string, svc *corev1.Service, nodes []*corev1.Node) error {
	operation("hcloud/loadBalancers.UpdateLoadBalancer")
	return l.LoadBalancer.UpdateLoadBalancer(ctx, cluster, svc, nodes)
}

func (l countedLBs) EnsureLoadBalancerDeleted(ctx context.Context, cluster string, svc *corev1.Service) error {
	operation("hcloud/loadBalancers.EnsureLoadBalancerDeleted")
	return l.LoadBalancer.EnsureLoadBalancerDeleted(ctx, cluster, svc)
}

var _ cloudprovider.LoadBalancer = countedLBs{}
