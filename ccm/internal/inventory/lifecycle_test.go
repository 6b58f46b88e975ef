package inventory

import (
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestLifecycleBacksOff: a NotReady node asked about every 5 s: the first
// ask fetches its server at once, so a deletion under it shows within one
// monitor period; later asks back off to one request per 5 min.
func TestLifecycleBacksOff(t *testing.T) {
	c := cloudtest.Start(t, 120, fakecloud.Options{})
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	life := Repeated(time.Minute, 5*time.Minute, time.Time{})
	s, _ := inv.ByServerName(t.Context(), "node-0009", Within(5*time.Minute))
	clk.Advance(time.Minute) // the node has been Ready a while
	c.FC.ResetCounters()
	var at []time.Duration
	for i := range 720 { // an hour
		before := c.Requests()
		if _, err := inv.ByServerID(t.Context(), s.ID, life); err != nil {
			t.Fatal(err)
		}
		if c.Requests() > before {
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
	if got, err := inv.ByServerID(t.Context(), s.ID, life); err != nil || got != nil {
		t.Errorf("first ask after the deletion: %v, %v; want gone", got, err)
	}
}
