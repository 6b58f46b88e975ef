package ccm

import (
	"strconv"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// joinAll registers a Node for each server, initialised (provider ID set,
// no taint) and Ready, and returns the server IDs by node name.
func joinAll(t *testing.T, c *cluster) map[string]int64 {
	t.Helper()
	servers, err := c.Client.Server.All(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, s := range servers {
		c.joinServer(t, s)
		ids[s.Name] = s.ID
	}
	c.FC.ResetCounters()
	return ids
}

// joinServer registers s's Node as the node controller leaves it:
// initialised (provider ID set, no taint) and Ready.
func (c *cluster) joinServer(t *testing.T, s *hcloud.Server) {
	t.Helper()
	c.register(t, s.Name, "")
	n := c.node(t, s.Name)
	n.Spec.Taints, n.Spec.ProviderID = nil, "hcloud://"+strconv.FormatInt(s.ID, 10)
	if _, err := c.kube.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// stays asserts that cond holds for a while as the lifecycle controller
// runs (every 10 ms): 30 ticks.
func stays(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 30 {
		if !cond() {
			t.Fatalf("%s no longer holds", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLifecycleDeletesTheNodeOfADeletedServer(t *testing.T) {
	c := newCluster(t, 3, fakecloud.Options{})
	c.runLifecycle(t, 10*time.Millisecond)
	c.start(t)
	ids := joinAll(t, c)
	if err := c.FC.Apply(fakecloud.Event{Type: "delete_server", Server: ids["node-0001"]}); err != nil {
		t.Fatal(err)
	}
	c.setReady(t, "node-0001", false)
	// inventory.Within the lifecycle freshness (1 minute) the inventory answers: no request.
	stays(t, "node-0001 kept while its server was seen a moment ago", func() bool { return c.nodeExists("node-0001") })
	if got := c.requests(); got != 0 {
		t.Errorf("%d requests within the freshness bound", got)
	}
	c.clock.Advance(61 * time.Second)
	fakecloudtest.Eventually(t, 20*time.Second, "node-0001 deleted", func() bool { return !c.nodeExists("node-0001") })
	if !c.nodeExists("node-0000") || !c.nodeExists("node-0002") {
		t.Error("a Ready node was deleted")
	}
	// One targeted GET /servers/{id} answered 404; the absence is remembered.
	if got, gone := c.requests(), c.FC.Requests("GET", "/servers/{id}"); got != 1 || gone != 1 {
		t.Errorf("deleting the node cost %d requests (%d GET /servers/{id}), want 1", got, gone)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "DeletingNode event", func() bool { return c.hasEvent(t, corev1.EventTypeNormal, "DeletingNode", "node-0001") })
}

// TestLifecycleKeepsNodesThroughAnOutage: for an hour of 500s, 429s or
// dropped connections (a quarter of an hour of hanging requests), no Node is deleted, not even one whose
// server is really gone; once the API answers again, only that one goes.
func TestLifecycleKeepsNodesThroughAnOutage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rule    fakecloud.Rule
		minutes int
	}{
		{"500", fakecloud.Rule{Path: "/**", Status: 500}, 60},
		{"503 plain text", fakecloud.Rule{Path: "/**", Status: 503, PlainBody: true}, 60},
		{"429", fakecloud.Rule{Path: "/**", Status: 429}, 60},
		{"hang", fakecloud.Rule{Path: "/**", Hang: true}, 15}, // each attempt waits out a 300 ms timeout, thrice
		{"drop", fakecloud.Rule{Path: "/**", Drop: true}, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each outage has a cluster and a clock of its own; they mostly wait
			var c *cluster
			if tc.rule.Hang {
				c = newClusterWith(t, fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)), newCloud(t, 3, fakecloud.Options{}),
					buildOptions{httpTimeout: 300 * time.Millisecond, retry: &fastRetry})
			} else {
				c = newCluster(t, 3, fakecloud.Options{})
			}
			c.runLifecycle(t, 10*time.Millisecond)
			c.start(t)
			ids := joinAll(t, c)
			if _, err := c.FC.AddFault(tc.rule); err != nil {
				t.Fatal(err)
			}
			if err := c.FC.Apply(fakecloud.Event{Type: "delete_server", Server: ids["node-0002"]}); err != nil {
				t.Fatal(err)
			}
			c.setReady(t, "node-0001", false)
			c.setReady(t, "node-0002", false)
			// An hour (a quarter for hangs) passes; the controller keeps asking and failing.
			for range tc.minutes {
				c.clock.Advance(61 * time.Second)
				before := c.requests()
				fakecloudtest.Eventually(t, 20*time.Second, "the controller asking again", func() bool { return c.requests() > before })
				if !c.nodeExists("node-0001") || !c.nodeExists("node-0002") {
					t.Fatalf("a Node was deleted during the outage (%d requests)", c.requests())
				}
			}
			c.FC.ClearFaults()
			c.clock.Advance(time.Minute)
			fakecloudtest.Eventually(t, 20*time.Second, "node-0002 deleted once the API answers", func() bool { return !c.nodeExists("node-0002") })
			stays(t, "node-0001 kept", func() bool { return c.nodeExists("node-0001") })
		})
	}
}

func TestLifecycleShutdownTaint(t *testing.T) {
	c := newCluster(t, 2, fakecloud.Options{})
	c.runLifecycle(t, 10*time.Millisecond)
	c.start(t)
	ids := joinAll(t, c)
	if err := c.FC.Apply(fakecloud.Event{Type: "power_off_server", Server: ids["node-0001"]}); err != nil {
		t.Fatal(err)
	}
	c.setReady(t, "node-0001", false)
	c.clock.Advance(61 * time.Second)
	fakecloudtest.Eventually(t, 20*time.Second, "shutdown taint", func() bool { return hasTaint(c.node(t, "node-0001"), cloudproviderapi.TaintNodeShutdown) })
	// Exists and shutdown share one targeted request.
	if got := c.requests(); got != 1 {
		t.Errorf("the shutdown check cost %d requests, want 1", got)
	}
	stays(t, "node kept while off", func() bool { return c.nodeExists("node-0001") })

	if err := c.FC.Apply(fakecloud.Event{Type: "power_on_server", Server: ids["node-0001"]}); err != nil {
		t.Fatal(err)
	}
	c.setReady(t, "node-0001", true)
	fakecloudtest.Eventually(t, 20*time.Second, "shutdown taint removed", func() bool { return !hasTaint(c.node(t, "node-0001"), cloudproviderapi.TaintNodeShutdown) })
	if hasTaint(c.node(t, "node-0000"), cloudproviderapi.TaintNodeShutdown) {
		t.Error("the running node got the shutdown taint")
	}
}

// TestLifecycleKeepsAnUnmatchedNode: the upstream lifecycle controller,
// with this provider, leaves a NotReady Node that has no provider ID and
// whose name no server has (an edge node, another provider's); the
// official CCM deletes it.
func TestLifecycleKeepsAnUnmatchedNode(t *testing.T) {
	c := newCluster(t, 1, fakecloud.Options{})
	c.runLifecycle(t, 10*time.Millisecond)
	c.start(t)
	joinAll(t, c)
	c.register(t, "edge-1", "")
	c.setReady(t, "edge-1", false)
	c.clock.Advance(61 * time.Second)
	stays(t, "edge-1 kept", func() bool { return c.nodeExists("edge-1") })
}
