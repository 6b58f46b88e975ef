package ccm

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/record"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestUninitializedNodeExplained: a Node the CCM cannot match gets a
// Warning event with the cause and the closest server names; names come
// from one listing, which the next failure within namesMaxAge reuses.
func TestUninitializedNodeExplained(t *testing.T) {
	c := newCloud(t, 3, fakecloud.Options{})
	i, rec := newInstances(t, c, AddressFamilyDualStack)
	for _, tc := range []struct {
		node, providerID string
		want             []string // in the event's message
		requests         uint64   // 0: not counted (the inventory may list for its own reasons)
	}{
		// A GET by name, then a listing for the close names.
		{"Node-0001.example.com", "", []string{"no server of this project is named Node-0001.example.com", "closest server names: node-0001."}, 2},
		// The listing is reused.
		{"node-001", "", []string{"closest server names: node-0001, node-0000, node-0002."}, 1},
		{"database", "", []string{"no server name comes close", "HCLOUD_TOKEN"}, 0},
		{"node-0001", providerid.FromServerID(999999), []string{"provider ID hcloud://999999 names no server", "another project"}, 0},
	} {
		c.FC.ResetCounters()
		if _, err := i.InstanceMetadata(t.Context(), node(tc.node, tc.providerID)); err == nil {
			t.Fatalf("%s: metadata found", tc.node)
		}
		ev := event(t, rec)
		for _, w := range tc.want {
			if !strings.Contains(ev, "Warning "+eventNoServer) || !strings.Contains(ev, w) {
				t.Errorf("%s: event %q, want it to contain %q", tc.node, ev, w)
			}
		}
		if n := c.Requests(); tc.requests != 0 && n != tc.requests {
			t.Errorf("%s: %d requests, want %d", tc.node, n, tc.requests)
		}
	}
}

// TestUninitializedNodeBadToken: a refused token is named on the Node; a
// transient failure is not an event.
func TestUninitializedNodeBadToken(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, rec := newInstances(t, c, AddressFamilyDualStack)
	i.inv = inventory.NewInventory(fakecloudtest.Client(c.URL, strings.Repeat("x", 64)), nil)
	if _, err := i.InstanceMetadata(t.Context(), node("node-0000", "")); err == nil {
		t.Fatal("metadata with a bad token")
	}
	if ev := event(t, rec); !strings.Contains(ev, "unauthorized") || !strings.Contains(ev, "HCLOUD_TOKEN") {
		t.Errorf("event %q, want the refused token named", ev)
	}
	i, rec = newInstances(t, c, AddressFamilyDualStack)
	if _, err := c.FC.AddFault(fakecloud.Rule{Path: "/servers", Status: 503}); err != nil {
		t.Fatal(err)
	}
	if _, err := i.InstanceMetadata(t.Context(), node("node-0000", "")); err == nil {
		t.Fatal("metadata during an outage")
	}
	select {
	case ev := <-rec.Events:
		t.Errorf("an outage made the event %q", ev)
	default:
	}
}

// event is the one event rec holds.
func event(t *testing.T, rec *record.FakeRecorder) string {
	t.Helper()
	select {
	case ev := <-rec.Events:
		return ev
	default:
		t.Fatal("no event")
		return ""
	}
}
