package ccm

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestRoutesOfAnotherClusterSurvive: two clusters share a network. This
// one's Nodes are node-0000 and node-0001; node-0002 and node-0003 are
// the other cluster's servers, with their routes, one inside this
// cluster's CIDR and one outside, and a route to an address nobody
// holds. The upstream route controller, reconciling every 20 ms, adds
// this cluster's routes and removes none of the others; when one of its
// Nodes gets a pod CIDR the other cluster routes, it refuses with a
// RouteRefused event and leaves that route alone.
func TestRoutesOfAnotherClusterSurvive(t *testing.T) {
	c := newCluster(t, 4, fakecloud.Options{})
	nw, _, err := c.Client.Network.GetByName(c.ctx, "k8s")
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]string{}
	for _, name := range []string{"node-0000", "node-0001", "node-0002", "node-0003"} {
		s, _, err := c.Client.Server.GetByName(c.ctx, name)
		if err != nil || s == nil {
			t.Fatal(name, err)
		}
		servers[name] = s.PrivateNet[0].IP.String()
		if name == "node-0000" || name == "node-0001" {
			c.joinServer(t, s)
		}
	}
	c.addRoute(t, nw, "10.244.2.0/24", servers["node-0002"]) // the other cluster's, inside this one's CIDR
	c.addRoute(t, nw, "10.245.3.0/24", servers["node-0003"]) // the other cluster's, outside it
	c.addRoute(t, nw, "10.244.9.0/24", "10.0.9.9")           // nobody's
	c.setPodCIDRs(t, "node-0000", "10.244.0.0/24")
	c.setPodCIDRs(t, "node-0001", "10.244.2.0/24") // taken by the other cluster's route
	c.FC.ResetCounters()
	c.runRoutes(t, "10.244.0.0/16", 20*time.Millisecond)
	c.start(t)

	want := []string{"10.244.0.0/24 via node-0000", "10.244.2.0/24 via node-0002", "10.244.9.0/24 via 10.0.9.9", "10.245.3.0/24 via node-0003"}
	fakecloudtest.Eventually(t, 20*time.Second, "this cluster's route added", func() bool { return slices.Equal(networkRoutes(t, c), want) })
	fakecloudtest.Eventually(t, 20*time.Second, "RouteRefused for the pod CIDR the other cluster routes", func() bool {
		return c.hasEvent(t, corev1.EventTypeWarning, eventRouteRefused, "node-0001")
	})
	time.Sleep(200 * time.Millisecond) // ten more reconciles
	if got := networkRoutes(t, c); !slices.Equal(got, want) {
		t.Errorf("routes after the reconciles: %v, want %v", got, want)
	}
	if del := c.FC.Requests("POST", "/networks/{id}/actions/delete_route"); del != 0 {
		t.Errorf("%d routes deleted, want none: none is this cluster's to delete", del)
	}
	events, err := c.kube.CoreV1().Events("").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Reason == eventRouteRefused && e.InvolvedObject.Name == "node-0001" && !strings.Contains(e.Message, "no Node of this cluster") {
			t.Errorf("RouteRefused says %q, want it to name the other cluster's server", e.Message)
		}
	}
}

// TestRoutesWaitForTheNodes: before the Node informer has listed, no
// route is listed, so none can be taken for another cluster's.
func TestRoutesWaitForTheNodes(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	r, _, _ := newRoutes(t, c)
	r.nodes = unsyncedNodes{}
	if _, err := r.ListRoutes(t.Context(), ""); err == nil || !strings.Contains(err.Error(), "not listed yet") {
		t.Errorf("ListRoutes before the Nodes are listed: %v", err)
	}
	r.nodes = nil
	if _, err := r.ListRoutes(t.Context(), ""); err == nil {
		t.Error("ListRoutes with no Node list answered")
	}
}

type unsyncedNodes struct{}

func (unsyncedNodes) HasNode(string) bool { return false }
func (unsyncedNodes) Synced() bool        { return false }
