package ccm

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestLifecycleBacksOff: a NotReady node asked about every 5 s: the first
// ask fetches its server at once, so a deletion under it shows within one
// monitor period; later asks back off to one request per 5 min.
func TestLifecycleBacksOff(t *testing.T) {
	c := newCloud(t, 120, fakecloud.Options{})
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	life := freshness{maxAge: time.Minute, ceiling: 5 * time.Minute}
	s, _ := inv.byServerName(t.Context(), "node-0009", within(5*time.Minute))
	clk.Advance(time.Minute) // the node has been Ready a while
	c.FC.ResetCounters()
	var at []time.Duration
	for i := range 720 { // an hour
		before := c.requests()
		if _, err := inv.byServerID(t.Context(), s.ID, life); err != nil {
			t.Fatal(err)
		}
		if c.requests() > before {
			at = append(at, time.Duration(i)*5*time.Second)
		}
		clk.Advance(5 * time.Second)
	}
	if len(at) < 12 || len(at) > 15 || at[0] != 0 {
		t.Errorf("requests at %v: want the first at once and 12 to 15 in the hour", at)
	}
	// The node turns Ready, then NotReady again a minute later, as its
	// server is deleted: the first ask of the new run sees it gone.
	clk.Advance(time.Minute)
	if _, _, err := c.Client.Server.DeleteWithResult(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	if got, err := inv.byServerID(t.Context(), s.ID, life); err != nil || got != nil {
		t.Errorf("first ask after the deletion: %v, %v; want gone", got, err)
	}
}

// notReady is a node whose Ready condition turned False at since.
func notReady(name, providerID string, since time.Time) *corev1.Node {
	n := node(name, providerID)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(since)}}
	return n
}

// TestLifecycleNewNotReadyReadsServer: a server deleted ten seconds after
// its node joined. The node was NotReady at join (asked about then), went
// Ready, and turns NotReady again 20 s after join: the first check after
// that transition reads the server, though the last read is only 20 s old
// and the last ask within the run's spacing, so the Node goes at once.
func TestLifecycleNewNotReadyReadsServer(t *testing.T) {
	c := newCloud(t, 3, fakecloud.Options{})
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	i, _ := newInstances(t, c, AddressFamilyIPv4)
	i.inv = newInventory(c.Client, clk.Now).withFeed(newFeed(c.Client), time.Hour)
	s := c.server(t, "node-0001")
	joined := clk.Now()
	pid := providerid.FromServerID(s.ID)
	if ok, err := i.InstanceExists(t.Context(), notReady("node-0001", pid, joined)); !ok || err != nil {
		t.Fatalf("at join: %v %v", ok, err)
	}
	if _, err := i.InstanceMetadata(t.Context(), node("node-0001", pid)); err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Second)
	if _, _, err := c.Client.Server.DeleteWithResult(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Second)
	c.FC.ResetCounters()
	ok, err := i.InstanceExists(t.Context(), notReady("node-0001", pid, clk.Now()))
	if ok || err != nil || c.requests() != 1 {
		t.Errorf("first check after turning NotReady again: exists %v, %v, %d requests; want gone after one read", ok, err, c.requests())
	}
}
