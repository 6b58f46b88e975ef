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

// networkRoutes lists the routes in fakecloud as "destination via node".
func networkRoutes(t *testing.T, c *cluster) []string {
	t.Helper()
	n, _, err := c.Client.Network.GetByName(c.ctx, "k8s")
	if err != nil {
		t.Fatal(err)
	}
	servers, err := c.Client.Server.All(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rt := range n.Routes {
		via := rt.Gateway.String()
		for _, s := range servers {
			if len(s.PrivateNet) > 0 && s.PrivateNet[0].IP.Equal(rt.Gateway) {
				via = s.Name
			}
		}
		out = append(out, rt.Destination.String()+" via "+via)
	}
	slices.Sort(out)
	return out
}

func (c *cluster) setPodCIDRs(t *testing.T, name string, cidrs ...string) {
	t.Helper()
	n := c.node(t, name)
	n.Spec.PodCIDR, n.Spec.PodCIDRs = cidrs[0], cidrs
	if _, err := c.kube.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestRouteController: the upstream route controller reconciling every
// 20 ms creates a route per pod CIDR, replaces one through a stale gateway,
// removes the route of a deleted Node, refuses IPv6 with an event, leaves
// a route to an address no server holds alone (it never was a Node's:
// ccm doctor reports it), and reads the network once for all of it.
func TestRouteController(t *testing.T) {
	c := newCluster(t, 4, fakecloud.Options{})
	nw, _, err := c.Client.Network.GetByName(c.ctx, "k8s")
	if err != nil {
		t.Fatal(err)
	}
	node3, _, _ := c.Client.Server.GetByName(c.ctx, "node-0003")
	// Before the CCM looks: 10.244.1.0/24 leads to node-0003 (stale), and
	// 10.244.9.0/24 to an address no server holds (a blackhole).
	c.addRoute(t, nw, "10.244.1.0/24", node3.PrivateNet[0].IP.String())
	c.addRoute(t, nw, "10.244.9.0/24", "10.0.9.9")
	joinAll(t, c)
	c.setPodCIDRs(t, "node-0000", "10.244.0.0/24")
	c.setPodCIDRs(t, "node-0001", "10.244.1.0/24")
	c.setPodCIDRs(t, "node-0002", "10.244.2.0/24", "fd00:10:244:2::/64")
	c.FC.ResetCounters()
	c.runRoutes(t, "10.244.0.0/16", 20*time.Millisecond)
	c.start(t)

	want := []string{"10.244.0.0/24 via node-0000", "10.244.1.0/24 via node-0001", "10.244.2.0/24 via node-0002", "10.244.9.0/24 via 10.0.9.9"}
	fakecloudtest.Eventually(t, 20*time.Second, "routes converged", func() bool { return slices.Equal(networkRoutes(t, c), want) })
	networkUnavailable := func(n string) corev1.ConditionStatus {
		for _, cond := range c.node(t, n).Status.Conditions {
			if cond.Type == corev1.NodeNetworkUnavailable {
				return cond.Status
			}
		}
		return corev1.ConditionUnknown
	}
	for _, n := range []string{"node-0000", "node-0001"} {
		fakecloudtest.Eventually(t, 20*time.Second, n+" network available", func() bool { return networkUnavailable(n) == corev1.ConditionFalse })
	}
	// node-0002's IPv6 pod CIDR has no route, so its network stays unavailable.
	fakecloudtest.Eventually(t, 20*time.Second, "node-0002 network unavailable", func() bool { return networkUnavailable("node-0002") == corev1.ConditionTrue })
	fakecloudtest.Eventually(t, 20*time.Second, "RouteRefused event for the IPv6 pod CIDR", func() bool {
		return c.hasEvent(t, corev1.EventTypeWarning, eventRouteRefused, "node-0002")
	})
	// The network was read once; the controller's later reconciles used the copy.
	if got := c.FC.Requests("GET", "/networks/{id}"); got != 1 {
		t.Errorf("the network was read %d times, want once", got)
	}
	if add, del := c.FC.Requests("POST", "/networks/{id}/actions/add_route"), c.FC.Requests("POST", "/networks/{id}/actions/delete_route"); add != 3 || del != 1 {
		t.Errorf("%d routes added and %d deleted, want 3 and 1", add, del)
	}

	// The Node goes: so does its route, and nothing else.
	if err := c.kube.CoreV1().Nodes().Delete(c.ctx, "node-0000", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "route of the deleted Node removed", func() bool { return slices.Equal(networkRoutes(t, c), want[1:]) })
}
