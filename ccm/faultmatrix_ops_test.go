//go:build !race

package ccm

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// sweepOp is one operation of the CCM the CCM does, for the fault matrix: setup starts
// the controllers it needs and builds the state before, trigger makes the
// change the CCM acts on. What the CCM must reach is not written here: the
// invariants derive it from the cluster and the cloud (faultmatrix_check).
type sweepOp struct {
	name    string
	servers int
	service string // the Service whose events tell of failures, if any
	setup   func(t *testing.T, c *sweepCluster)
	trigger func(t *testing.T, c *sweepCluster)
}

// Periods as cmd/ccm's defaults have them (--node-monitor-period 5s), or
// shortened where the default would only lengthen a run (the route
// controller's 10s).
const (
	sweepMonitorPeriod = 5 * time.Second
	sweepRoutePeriod   = 2 * time.Second
	sweepStatusPeriod  = 2 * time.Second // the node controller's status updates; 5m in cmd/ccm
	sweepPodCIDRs      = "10.244.0.0/16"
)

// The Services of the load balancer operations.
var (
	sweepWeb  = func() *corev1.Service { return lbService("web", []int32{80}) }
	sweepBlog = func() *corev1.Service {
		return lbService("blog", []int32{443}, "protocol", "https", "certificate-type", "managed",
			"http-managed-certificate-domains", "blog.example.com")
	}
)

// operations is every operation the matrix sweeps.
func operations() []sweepOp {
	return []sweepOp{
		// A server created after the CCM listed them all, as an autoscaler
		// does: its Node is the first the CCM hears of it.
		{name: "node init", servers: 1,
			setup: func(t *testing.T, c *sweepCluster) {
				c.runNodeController(t)
				c.start(t)
				c.CreateServer(t, name(1), c.network(t))
			},
			trigger: func(t *testing.T, c *sweepCluster) {
				c.register(t, name(1), "")
				c.joined = append(c.joined, name(1))
			}},
		{name: "lifecycle: server deleted", servers: 3, setup: lifecycleSetup,
			trigger: func(t *testing.T, c *sweepCluster) { c.serverChanges(t, 2, "delete_server") }},
		{name: "lifecycle: server off", servers: 3, setup: lifecycleSetup,
			trigger: func(t *testing.T, c *sweepCluster) { c.serverChanges(t, 1, "power_off_server") }},
		// From 3 pages of servers the change feed (the server actions)
		// tells which servers to read again when the node controller
		// refreshes the Nodes' addresses.
		{name: "node addresses: change feed", servers: 160, setup: func(t *testing.T, c *sweepCluster) {
			c.addresses = true
			c.runNodeControllerEvery(t, sweepStatusPeriod)
			c.start(t)
			c.joinAll(t, c.servers)
			c.await(t, "the Nodes' addresses")
		}, trigger: func(t *testing.T, c *sweepCluster) {
			s := c.Server(t, name(150))
			if err := c.FC.Apply(fakecloud.Event{Type: "set_server_ip", Server: s.ID, IP: "203.0.113.150"}); err != nil {
				t.Fatal(err)
			}
			c.clock.Advance(6 * time.Minute) // past HCLOUD_INVENTORY_MAX_AGE
		}},
		{name: "route add", servers: 2, setup: routeSetup,
			trigger: func(t *testing.T, c *sweepCluster) { c.setPodCIDRs(t, name(1), "10.244.1.0/24") }},
		{name: "route delete", servers: 2, setup: func(t *testing.T, c *sweepCluster) {
			routeSetup(t, c)
			c.setPodCIDRs(t, name(1), "10.244.1.0/24")
			c.await(t, "the routes")
		}, trigger: func(t *testing.T, c *sweepCluster) {
			if err := c.kube.CoreV1().Nodes().Delete(c.ctx, name(1), metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			c.joined = c.joined[:1]
		}},
		{name: "load balancer create", servers: 3, service: "web", setup: lbSetup,
			trigger: func(t *testing.T, c *sweepCluster) { c.createService(t, sweepWeb()) }},
		{name: "load balancer update: port added", servers: 3, service: "web", setup: lbSetupWith(sweepWeb),
			trigger: func(t *testing.T, c *sweepCluster) {
				c.updateService(t, "web", func(s *corev1.Service) {
					s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Protocol: corev1.ProtocolTCP, Port: 443, NodePort: 30443})
				})
			}},
		annotationUpdate("health check", "health-check-interval", "20s"),
		annotationUpdate("algorithm", "algorithm-type", "least_connections"),
		annotationUpdate("type", "type", "lb21"),
		{name: "load balancer targets: node joins", servers: 3, service: "web", setup: func(t *testing.T, c *sweepCluster) {
			c.lbs = true
			c.joinAll(t, 2)
			c.runServices(t, 2)
			c.start(t)
			c.createService(t, sweepWeb())
			c.await(t, "the load balancer")
		}, trigger: func(t *testing.T, c *sweepCluster) { c.join(t, 2) }},
		{name: "load balancer managed certificate", servers: 3, service: "blog", setup: lbSetup,
			trigger: func(t *testing.T, c *sweepCluster) { c.createService(t, sweepBlog()) }},
		{name: "load balancer delete", servers: 3, service: "blog", setup: lbSetupWith(sweepBlog),
			trigger: func(t *testing.T, c *sweepCluster) {
				c.updateService(t, "blog", func(s *corev1.Service) { now := metav1.Now(); s.DeletionTimestamp = &now })
			}},
	}
}

// annotationUpdate changes one annotation of a converged Service.
func annotationUpdate(what, key, value string) sweepOp {
	return sweepOp{name: "load balancer update: " + what, servers: 3, service: "web", setup: lbSetupWith(sweepWeb),
		trigger: func(t *testing.T, c *sweepCluster) {
			c.updateService(t, "web", func(s *corev1.Service) {
				if s.Annotations == nil {
					s.Annotations = map[string]string{}
				}
				s.Annotations["load-balancer.hetzner.cloud/"+key] = value
			})
		}}
}

// lifecycleSetup joins every server's Node and runs the lifecycle
// controller.
func lifecycleSetup(t *testing.T, c *sweepCluster) {
	c.lifecycle = true
	c.runLifecycle(t, sweepMonitorPeriod)
	c.start(t)
	c.joinAll(t, c.servers)
}

// routeSetup joins both Nodes, the first with a pod CIDR, runs the route
// controller and waits for the first route.
func routeSetup(t *testing.T, c *sweepCluster) {
	c.routes = true
	c.runRoutes(t, sweepPodCIDRs, sweepRoutePeriod)
	c.start(t)
	c.joinAll(t, 2)
	c.setPodCIDRs(t, name(0), "10.244.0.0/24")
	c.await(t, "the first route")
}

// lbSetup joins every Node and runs the service controller.
func lbSetup(t *testing.T, c *sweepCluster) {
	c.lbs = true
	c.joinAll(t, c.servers)
	c.runServices(t, 2)
	c.start(t)
}

// lbSetupWith is lbSetup with a Service that has converged.
func lbSetupWith(svc func() *corev1.Service) func(*testing.T, *sweepCluster) {
	return func(t *testing.T, c *sweepCluster) {
		lbSetup(t, c)
		c.createService(t, svc())
		c.await(t, "the load balancer")
	}
}

// serverChanges changes server i behind the CCM's back, as a fakecloud
// event; its Node stops reporting Ready and the inventory's freshness
// bound for lifecycle checks passes.
func (c *sweepCluster) serverChanges(t *testing.T, i int, event string) {
	t.Helper()
	s := c.Server(t, name(i))
	if err := c.FC.Apply(fakecloud.Event{Type: event, Server: s.ID}); err != nil {
		t.Fatal(err)
	}
	c.setReady(t, name(i), false)
	c.clock.Advance(61 * time.Second)
}
