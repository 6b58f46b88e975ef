package ccm

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// createServers adds servers behind the CCM's back, as an autoscaler does.
func createServers(t *testing.T, c *cluster, from, n int) {
	t.Helper()
	nets, err := c.Client.Network.All(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := from; i < from+n; i++ {
		c.CreateServer(t, name(i), nets...)
	}
	c.FC.ResetCounters()
}

func TestNodeControllerInitialisesANodeWithOneRequest(t *testing.T) {
	c := newCluster(t, 2, fakecloud.Options{})
	createServers(t, c, 2, 1) // joins after the CCM listed the servers
	c.runNodeController(t)
	c.start(t)
	c.register(t, "node-0002", "")
	fakecloudtest.Eventually(t, 20*time.Second, "node-0002 initialised", func() bool { return initialised(c.node(t, "node-0002")) })

	if got := c.requests(); got != 1 {
		t.Errorf("initialisation cost %d requests, want 1 (GET /servers?name=node-0002)", got)
	}
	n := c.node(t, "node-0002")
	s, _, _ := c.Client.Server.GetByName(c.ctx, "node-0002")
	if n.Spec.ProviderID != "hcloud://"+strconv.FormatInt(s.ID, 10) {
		t.Errorf("provider ID %q", n.Spec.ProviderID)
	}
	for k, v := range map[string]string{
		corev1.LabelInstanceTypeStable: "cx23", corev1.LabelTopologyRegion: "fsn1", corev1.LabelTopologyZone: "fsn1-dc14",
		"instance.hetzner.cloud/provided-by": "cloud",
	} {
		if n.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, n.Labels[k], v)
		}
	}
	fakecloudtest.Eventually(t, 20*time.Second, "addresses", func() bool { return len(c.node(t, "node-0002").Status.Addresses) == 3 })
	addrs := c.node(t, "node-0002").Status.Addresses
	if addrs[0].Type != corev1.NodeHostName || addrs[1].Address != s.PublicNet.IPv4.IP.String() || addrs[2].Address != s.PrivateNet[0].IP.String() {
		t.Errorf("addresses %v", addrs)
	}
}

func TestNodeControllerInitialisesABurstOfAHundred(t *testing.T) {
	c := newCluster(t, 10, fakecloud.Options{})
	createServers(t, c, 10, 100)
	c.runNodeController(t)
	c.start(t)
	for i := 10; i < 110; i++ {
		c.register(t, name(i), "")
	}
	fakecloudtest.Eventually(t, 20*time.Second, "100 nodes initialised", func() bool {
		for i := 10; i < 110; i++ {
			if !initialised(c.node(t, name(i))) {
				return false
			}
		}
		return true
	})
	// The first miss or two are targeted; then one listing of 110 servers
	// (3 pages) answers the rest. 20 workers race, so the count is a bound.
	got := c.requests()
	t.Logf("100 nodes initialised with %d requests", got)
	if got > 10 {
		t.Errorf("a burst of 100 cost %d requests, want at most 10", got)
	}
}
