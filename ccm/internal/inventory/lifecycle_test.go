package inventory

import (
	"fmt"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestLifecycleBacksOff: a NotReady node asked about every 5 s: the first
// ask fetches its server at once, and for five minutes every other ask
// does, so a deletion under it shows within 10 s; later asks back off to
// one request per 5 min, at most 60 in the hour (the official CCM sends
// 720).
func TestLifecycleBacksOff(t *testing.T) {
	c := cloudtest.Start(t, 120, fakecloud.Options{})
	clk := fakecloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	life := Repeated(time.Minute, 5*time.Minute, time.Time{})
	s, _ := inv.ByServerName(t.Context(), "node-0009", Within(5*time.Minute))
	clk.Advance(time.Minute) // the node has been Ready a while
	c.FC.ResetCounters()
	var at []time.Duration
	start := clk.Now()
	for range 700 { // an hour, asked every 5 s and a little: the controller's ticks drift
		before := c.Requests()
		if _, err := inv.ByServerID(t.Context(), s.ID, life); err != nil {
			t.Fatal(err)
		}
		if c.Requests() > before {
			at = append(at, clk.Now().Sub(start))
		}
		clk.Advance(5*time.Second + 140*time.Millisecond)
	}
	t.Logf("%d requests in the hour", len(at))
	if len(at) > 60 || len(at) < 35 || at[0] != 0 {
		t.Errorf("%d requests at %v: want the first at once and 35 to 60 in the hour", len(at), at)
	}
	for i := 1; i < len(at) && at[i] < 5*time.Minute; i++ {
		if gap := at[i] - at[i-1]; gap > 11*time.Second || gap < 10*time.Second {
			t.Errorf("%v between reads at %v in the first five minutes, want every other ask", gap, at[i])
		}
	}
	if last := at[len(at)-1]; at[len(at)-2] < last-5*time.Minute-5*time.Second {
		t.Errorf("reads at %v: more than 5 min apart at the end", at[len(at)-3:])
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

// TestLifecycleSeesALateDeletion: an operator deletes the server of a
// node that has been NotReady for two minutes (hung, powered off): the
// lifecycle controller's asks see it gone within 10 s.
func TestLifecycleSeesALateDeletion(t *testing.T) {
	c := cloudtest.Start(t, 10, fakecloud.Options{})
	clk := fakecloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	s, _ := inv.ByServerName(t.Context(), "node-0003", Within(5*time.Minute))
	life := Repeated(time.Minute, 5*time.Minute, clk.Now())
	for range 24 { // two minutes NotReady, asked every 5 s
		if got, err := inv.ByServerID(t.Context(), s.ID, life); err != nil || got == nil {
			t.Fatalf("%v, %v", got, err)
		}
		clk.Advance(5 * time.Second)
	}
	if _, _, err := c.Client.Server.DeleteWithResult(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	for waited := time.Duration(0); ; waited += 5 * time.Second {
		got, err := inv.ByServerID(t.Context(), s.ID, life)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			break
		}
		if waited >= 10*time.Second {
			t.Fatalf("the server still exists for the lifecycle %v after its deletion", waited)
		}
		clk.Advance(5 * time.Second)
	}
}

// TestLifecycleManyEarlyRunsShareAPoll: fifty nodes of 120 turn NotReady
// at once (an outage): their first asks cost one listing, and for the
// next five minutes one poll of the actions every 10 s vouches for them
// all, not a listing or fifty requests each time; a server deleted under
// one of them two minutes in still shows within 10 s.
func TestLifecycleManyEarlyRunsShareAPoll(t *testing.T) {
	c, clk := feedCloud(t, 120, fakecloud.Options{})
	inv := feedInventory(t, c, clk)
	ids := make([]int64, 50)
	for i := range ids {
		s, err := inv.ByServerName(t.Context(), fmt.Sprintf("node-%04d", i), Within(5*time.Minute))
		if err != nil || s == nil {
			t.Fatal(s, err)
		}
		ids[i] = s.ID
	}
	c.FC.ResetCounters()
	life := Repeated(time.Minute, 5*time.Minute, clk.Now())
	ask := func() map[int64]bool {
		exists := map[int64]bool{}
		for _, id := range ids {
			s, err := inv.ByServerID(t.Context(), id, life)
			if err != nil {
				t.Fatal(err)
			}
			exists[id] = s != nil
		}
		return exists
	}
	for range 24 { // two minutes, asked every 5 s
		ask()
		clk.Advance(5 * time.Second)
	}
	if n := c.Requests(); n > 3+2*12+2 {
		t.Errorf("%d requests in the first two minutes of 50 NotReady nodes, want a listing and a poll every 10 s (%v)", n, c.FC.Counters())
	}
	victim, _, err := c.Client.Server.GetByID(t.Context(), ids[7])
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Client.Server.DeleteWithResult(t.Context(), victim); err != nil {
		t.Fatal(err)
	}
	for waited := time.Duration(0); ask()[ids[7]]; waited += 5 * time.Second {
		if waited >= 10*time.Second {
			t.Fatalf("the deleted server still exists for the lifecycle %v after its deletion", waited)
		}
		clk.Advance(5 * time.Second)
	}
}
