package ccm

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

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
	clk := fakecloudtest.NewClock(time.Unix(1e9, 0))
	i, _ := newInstances(t, c, AddressFamilyIPv4)
	i.inv = inventory.NewInventory(c.Client, clk.Now).WithFeed(inventory.NewFeed(c.Client), time.Hour)
	s := c.Server(t, "node-0001")
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
