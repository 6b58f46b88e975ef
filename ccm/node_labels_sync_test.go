package ccm

import (
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	klabels "k8s.io/apimachinery/pkg/labels"
	cloudnode "k8s.io/cloud-provider/controllers/node"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// labelCluster is a cluster of n joined Nodes with the server label sync
// on as cfg says, which the test runs itself (syncAll), and the cloud-node
// controller, whose status updates (UpdateNodeStatus) keep the inventory
// fresh as they do in a cluster.
type labelCluster struct {
	*cluster
	nc *cloudnode.CloudNodeController
}

func newLabelCluster(t *testing.T, n int, cfg ServerLabelsConfig) *labelCluster {
	t.Helper()
	clk := fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	c := newClusterWith(t, clk, newCloud(t, n, fakecloud.Options{}), buildOptions{httpTimeout: 5 * time.Second, retry: &fastRetry, labelsPeriod: time.Hour},
		func(c *Config) { c.ServerLabels = cfg })
	joinAll(t, c)
	nc, err := cloudnode.NewCloudNodeController(c.factory.Core().V1().Nodes(), c.kube, c.cloud, time.Hour, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	c.start(t)
	fakecloudtest.Eventually(t, 10*time.Second, "the informer holds the Nodes", func() bool {
		l, _ := c.factory.Core().V1().Nodes().Lister().List(everything())
		return len(l) == n
	})
	return &labelCluster{cluster: c, nc: nc}
}

// setServerLabels replaces a server's labels behind the CCM's back, as
// the Console or an autoscaler does, and resets the counters.
func (c *labelCluster) setServerLabels(t *testing.T, server string, labels map[string]string) {
	t.Helper()
	if _, _, err := c.Client.Server.Update(c.ctx, c.Server(t, server), hcloud.ServerUpdateOpts{Labels: labels}); err != nil {
		t.Fatal(err)
	}
	c.FC.ResetCounters()
}

// statusUpdate is the cloud-node controller's periodic pass after the
// inventory's bound went by: it reads the servers again.
func (c *labelCluster) statusUpdate(t *testing.T) {
	t.Helper()
	c.clock.Advance(c.cloud.cfg.InventoryMaxAge + time.Second)
	if err := c.nc.UpdateNodeStatus(c.ctx); err != nil {
		t.Fatal(err)
	}
}

// sync runs the label sync once the informer shows the Node's newest
// version (the fake clientset's watch delivers it a moment later).
func (c *labelCluster) sync(t *testing.T) {
	t.Helper()
	fakecloudtest.Eventually(t, 10*time.Second, "the informer in step", func() bool {
		l, _ := c.factory.Core().V1().Nodes().Lister().List(everything())
		for _, n := range l {
			// The fake clientset keeps no resourceVersion: compare the Nodes.
			if cur := c.node(t, n.Name); !equality.Semantic.DeepEqual(cur, n) {
				return false
			}
		}
		return true
	})
	c.cloud.labels.syncAll(c.ctx)
}

func TestServerLabelsFollowTheServer(t *testing.T) {
	c := newLabelCluster(t, 2, ServerLabelsConfig{Labels: true, Taints: true, Verbatim: []string{"hcloud/node-group"}})
	// A label and a taint of the Node's own, which the CCM never touches.
	n := c.node(t, "node-0000")
	n.Labels = map[string]string{"team": "a"}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule})
	if _, err := c.kube.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	c.setServerLabels(t, "node-0000", map[string]string{"env": "prod", "hcloud/node-group": "pool1", "taint.noschedule/gpu": "nvidia"})
	c.statusUpdate(t)
	c.sync(t)
	n = c.node(t, "node-0000")
	for k, v := range map[string]string{ServerLabelPrefix + "env": "prod", "hcloud/node-group": "pool1", "team": "a"} {
		if n.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, n.Labels[k], v)
		}
	}
	if !hasTaint(n, ServerTaintPrefix+"gpu") || !hasTaint(n, "dedicated") {
		t.Errorf("taints %v", n.Spec.Taints)
	}
	if got := n.Annotations[AnnotationManagedLabels]; got != "hcloud/node-group,"+ServerLabelPrefix+"env" {
		t.Errorf("record %q", got)
	}

	// The label goes from the server, another changes: the Node follows,
	// and what it had of its own stays.
	c.setServerLabels(t, "node-0000", map[string]string{"hcloud/node-group": "pool2"})
	c.statusUpdate(t)
	c.sync(t)
	n = c.node(t, "node-0000")
	if _, has := n.Labels[ServerLabelPrefix+"env"]; has {
		t.Error("a removed server label stayed on the Node")
	}
	if hasTaint(n, ServerTaintPrefix+"gpu") {
		t.Error("a removed taint's server label left the taint")
	}
	if n.Labels["hcloud/node-group"] != "pool2" || n.Labels["team"] != "a" || !hasTaint(n, "dedicated") {
		t.Errorf("labels %v taints %v", n.Labels, n.Spec.Taints)
	}
	if got := c.node(t, "node-0001"); len(got.Labels) != 0 || got.Annotations[AnnotationManagedLabels] != "" {
		t.Errorf("node-0001, whose server has no labels, got labels %v", got.Labels)
	}
}

func TestServerLabelSyncSendsNoRequest(t *testing.T) {
	c := newLabelCluster(t, 20, ServerLabelsConfig{Labels: true, Verbatim: []string{"hcloud/node-group"}})
	for i := range 20 {
		c.setServerLabels(t, name(i), map[string]string{"hcloud/node-group": "pool1"})
	}
	c.statusUpdate(t)
	c.FC.ResetCounters()
	// Hours of syncs, far past every freshness bound: the sync reads what
	// the inventory holds and asks the API nothing.
	for range 50 {
		c.clock.Advance(10 * time.Minute)
		c.sync(t)
	}
	if got := c.requests(); got != 0 {
		t.Errorf("the label sync sent %d requests, want 0", got)
	}
	if got := c.node(t, name(19)).Labels["hcloud/node-group"]; got != "pool1" {
		t.Errorf("node-0019 hcloud/node-group=%q", got)
	}
}

func TestInvalidServerLabelLeavesTheNode(t *testing.T) {
	c := newLabelCluster(t, 1, ServerLabelsConfig{Labels: true, Taints: true})
	c.setServerLabels(t, "node-0000", map[string]string{"env": "prod"})
	c.statusUpdate(t)
	c.sync(t)
	before := c.node(t, "node-0000")

	c.setServerLabels(t, "node-0000", map[string]string{"env": "stage", "taint.sometimes/gpu": "nvidia"})
	c.statusUpdate(t)
	c.sync(t)
	c.sync(t) // once more: the Warning is posted once
	after := c.node(t, "node-0000")
	if after.Labels[ServerLabelPrefix+"env"] != "prod" || hasTaint(after, ServerTaintPrefix+"gpu") || !equality.Semantic.DeepEqual(after, before) {
		t.Errorf("the Node changed: labels %v taints %v", after.Labels, after.Spec.Taints)
	}
	fakecloudtest.Eventually(t, 10*time.Second, "the Warning", func() bool {
		return c.hasEvent(t, corev1.EventTypeWarning, eventInvalidServerLabel, "node-0000")
	})
	if got := c.eventCount(t, eventInvalidServerLabel); got != 1 {
		t.Errorf("%d events, want 1", got)
	}

	// Fixed on the server: the Node follows.
	c.setServerLabels(t, "node-0000", map[string]string{"env": "stage", "taint.noschedule/gpu": "nvidia"})
	c.statusUpdate(t)
	c.sync(t)
	if n := c.node(t, "node-0000"); n.Labels[ServerLabelPrefix+"env"] != "stage" || !hasTaint(n, ServerTaintPrefix+"gpu") {
		t.Errorf("labels %v taints %v", n.Labels, n.Spec.Taints)
	}
}

func TestServerLabelNotOverwritingTheNodes(t *testing.T) {
	c := newLabelCluster(t, 1, ServerLabelsConfig{Verbatim: []string{"hcloud/node-group"}})
	n := c.node(t, "node-0000")
	n.Labels = map[string]string{"hcloud/node-group": "by-hand"}
	if _, err := c.kube.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.setServerLabels(t, "node-0000", map[string]string{"hcloud/node-group": "pool1"})
	c.statusUpdate(t)
	c.sync(t)
	if got := c.node(t, "node-0000").Labels["hcloud/node-group"]; got != "by-hand" {
		t.Errorf("hcloud/node-group=%q: a label the CCM did not write was changed", got)
	}
	fakecloudtest.Eventually(t, 10*time.Second, "the Warning", func() bool {
		return c.hasEvent(t, corev1.EventTypeWarning, eventServerLabelConflict, "node-0000")
	})
	// Once the label is removed by hand, the server's applies.
	n = c.node(t, "node-0000")
	delete(n.Labels, "hcloud/node-group")
	if _, err := c.kube.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.sync(t)
	if got := c.node(t, "node-0000").Labels["hcloud/node-group"]; got != "pool1" {
		t.Errorf("hcloud/node-group=%q, want pool1", got)
	}
}

// TestServerLabelSyncRuns: the sync runs on its own once Initialize and
// UseNodes gave it the Nodes.
func TestServerLabelSyncRuns(t *testing.T) {
	clk := fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	fx := newCloud(t, 1, fakecloud.Options{})
	if _, _, err := fx.Client.Server.Update(t.Context(), fx.Server(t, "node-0000"), hcloud.ServerUpdateOpts{Labels: map[string]string{"hcloud/node-group": "pool1"}}); err != nil {
		t.Fatal(err)
	}
	c := newClusterWith(t, clk, fx, buildOptions{httpTimeout: 5 * time.Second, retry: &fastRetry, labelsPeriod: 10 * time.Millisecond},
		func(c *Config) { c.ServerLabels = ServerLabelsConfig{Verbatim: []string{"hcloud/node-group"}} })
	joinAll(t, c)
	c.start(t)
	fakecloudtest.Eventually(t, 10*time.Second, "the server's label on the Node", func() bool {
		return c.node(t, "node-0000").Labels["hcloud/node-group"] == "pool1"
	})
}

func (c *cluster) eventCount(t *testing.T, reason string) int {
	t.Helper()
	l, err := c.kube.CoreV1().Events("").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range l.Items {
		if e.Reason == reason {
			n += int(max(e.Count, 1))
		}
	}
	return n
}

func everything() klabels.Selector { return klabels.Everything() }

// TestServerLabelSyncForgetsGoneNodes: the Warnings remembered per Node
// go with the Node, so the record is bounded by the Nodes there are.
func TestServerLabelSyncForgetsGoneNodes(t *testing.T) {
	c := newLabelCluster(t, 2, ServerLabelsConfig{Labels: true, Taints: true})
	for _, name := range []string{"node-0000", "node-0001"} {
		c.setServerLabels(t, name, map[string]string{"taint.sometimes/gpu": "nvidia"})
	}
	c.statusUpdate(t)
	c.sync(t)
	warned := func() int {
		c.cloud.labels.mu.Lock()
		defer c.cloud.labels.mu.Unlock()
		return len(c.cloud.labels.warned)
	}
	if n := warned(); n != 2 {
		t.Fatalf("%d Nodes warned, want 2", n)
	}
	if err := c.kube.CoreV1().Nodes().Delete(c.ctx, "node-0001", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 10*time.Second, "the informer without node-0001", func() bool {
		l, _ := c.factory.Core().V1().Nodes().Lister().List(everything())
		return len(l) == 1
	})
	c.cloud.labels.syncAll(c.ctx)
	if n := warned(); n != 1 {
		t.Errorf("%d Nodes remembered after one went, want 1", n)
	}
}
