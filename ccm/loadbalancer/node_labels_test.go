package loadbalancer

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestTargetsFollowNodeLabels: a Node entering a Service's node-selector
// becomes a target, one leaving it stops being one, at one request each;
// a label change that moves no selection sends nothing.
func TestTargetsFollowNodeLabels(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{})
	nodes := make([]*corev1.Node, len(c.nodes))
	for i, n := range c.nodes {
		nodes[i] = n.DeepCopy()
		nodes[i].Labels = map[string]string{"pool": "db"}
	}
	nodes[0].Labels["pool"] = "web"
	svc := lbService("selected", []int32{80}, "node-selector", "pool=web")
	c.ensure(t, svc, nodes)
	ids := serverIDs(nodes)
	targets := func() []int64 {
		got := targetIDs(c.LoadBalancerOf(t, svc))
		slices.Sort(got)
		return got
	}
	if got := targets(); !slices.Equal(got, ids[:1]) {
		t.Fatalf("targets %v, want %v", got, ids[:1])
	}
	relabel := func(i int, key, value string) {
		t.Helper()
		cur := nodes[i].DeepCopy()
		cur.Labels[key] = value
		c.lbs.NodeChanged(nodes[i], cur)
		nodes[i] = cur
	}

	c.FC.ResetCounters()
	relabel(1, "pool", "web")
	fakecloudtest.Eventually(t, 20*time.Second, "node 1 a target", func() bool { return slices.Equal(targets(), ids[:2]) })
	if n := c.FC.Requests("POST", ""); n != 1 || c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target") != 1 {
		t.Errorf("%d writes (%v), want one add_target", n, c.FC.Counters())
	}

	c.FC.ResetCounters()
	relabel(2, "zone", "a") // still pool=db: not selected before or after
	time.Sleep(100 * time.Millisecond)
	if n := c.Requests(); n != 0 {
		t.Errorf("a label change that moves no selection sent %d requests (%v)", n, c.FC.Counters())
	}

	c.FC.ResetCounters()
	relabel(0, "pool", "db")
	fakecloudtest.Eventually(t, 20*time.Second, "node 0 no target", func() bool { return slices.Equal(targets(), ids[1:2]) })
	if n := c.FC.Requests("POST", ""); n != 1 || c.FC.Requests("POST", "/load_balancers/{id}/actions/remove_target") != 1 {
		t.Errorf("%d writes (%v), want one remove_target", n, c.FC.Counters())
	}
}
