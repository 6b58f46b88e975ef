package ccm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// feedInventory is an inventory with the actions feed, started as the
// CCM starts it: the cursor first, then the listing.
func feedInventory(t *testing.T, c *cloudFixture, clk *cloudtest.Clock) *inventory {
	t.Helper()
	inv := newInventory(c.Client, clk.Now).withFeed(newFeed(c.Client), 3*time.Hour)
	if err := inv.pollFeed(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := inv.refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	c.FC.ResetCounters()
	return inv
}

// sweep looks up every node's server by name at the status loop's
// freshness, as UpdateNodeStatus does.
func sweep(t *testing.T, inv *inventory, n int) map[string]*hcloud.Server {
	t.Helper()
	got := map[string]*hcloud.Server{}
	for i := range n {
		name := fmt.Sprintf("node-%04d", i)
		s, err := inv.byServerName(t.Context(), name, within(5*time.Minute))
		if err != nil || s == nil {
			t.Fatalf("%s: %v %v", name, s, err)
		}
		got[name] = s
	}
	return got
}

// powerOff powers a server off through the API, behind the CCM's back.
func powerOff(t *testing.T, c *cloudFixture, name string) {
	t.Helper()
	s, _, err := c.Client.Server.GetByName(t.Context(), name)
	if err == nil {
		_, _, err = c.Client.Server.Poweroff(t.Context(), s)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestFeedVouchesForUnchangedServers: once the entries are older than the
// status loop takes, one read of the server actions keeps all of them,
// where a listing of 3 pages was needed before.
func TestFeedVouchesForUnchangedServers(t *testing.T) {
	c := newCloud(t, 120, fakecloud.Options{})
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	for range 12 { // an hour of status loops
		clk.Advance(5*time.Minute + time.Second)
		sweep(t, inv, 120)
	}
	if got, polls := c.requests(), c.FC.Requests("GET", "/servers/actions"); got != 12 || polls != 12 {
		t.Errorf("an hour of status loops: %d requests (%d action reads), want 12 action reads", got, polls)
	}
}

// TestFeedSeesAPowerOff: a server powered off through the API leaves a
// stop_server action; the next sweep reads the actions, then that one
// server, and sees it off. No other server is fetched.
func TestFeedSeesAPowerOff(t *testing.T) {
	c := newCloud(t, 120, fakecloud.Options{})
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	powerOff(t, c, "node-0042")
	c.FC.ResetCounters()
	clk.Advance(5*time.Minute + time.Second)
	got := sweep(t, inv, 120)
	if got["node-0042"].Status != hcloud.ServerStatusOff || got["node-0041"].Status != hcloud.ServerStatusRunning {
		t.Errorf("after the power-off: node-0042 %s, node-0041 %s", got["node-0042"].Status, got["node-0041"].Status)
	}
	if n, one := c.requests(), c.FC.Requests("GET", "/servers"); n != 2 || one != 1 {
		t.Errorf("%d requests (%v); want 2: the actions, then node-0042 by name", n, c.FC.Counters())
	}
}

// TestFeedFollowsARunningAction: an action still running at one poll is
// looked at again; when it has ended, its server is fetched again, since
// its end changed the server once more.
func TestFeedFollowsARunningAction(t *testing.T) {
	c := newCloud(t, 3, fakecloud.Options{ActionDuration: 300 * time.Millisecond})
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	powerOff(t, c, "node-0001")
	clk.Advance(5*time.Minute + time.Second)
	if got := sweep(t, inv, 3); got["node-0001"].Status != "stopping" || len(inv.feed.running) != 1 {
		t.Fatalf("while the action runs: node-0001 %s, running actions followed %v", got["node-0001"].Status, inv.feed.running)
	}
	time.Sleep(400 * time.Millisecond) // the action ends in fakecloud
	c.FC.ResetCounters()
	clk.Advance(5*time.Minute + time.Second)
	got := sweep(t, inv, 3)
	if got["node-0001"].Status != hcloud.ServerStatusOff || len(inv.feed.running) != 0 {
		t.Errorf("after the action ended: node-0001 %s, running %v", got["node-0001"].Status, inv.feed.running)
	}
	if n := c.requests(); n != 2 {
		t.Errorf("%d requests (%v); want 2: the actions, node-0001", n, c.FC.Counters())
	}
}

// TestFeedLooksUpRunningActionsByID: a running action that the walk down
// to the cursor does not reach is read by its ID.
func TestFeedLooksUpRunningActionsByID(t *testing.T) {
	action := func(id, server int64, status hcloud.ActionStatus) *hcloud.Action {
		return &hcloud.Action{ID: id, Status: status, Resources: []*hcloud.ActionResource{{ID: server, Type: hcloud.ActionResourceTypeServer}}}
	}
	var asked []hcloud.ActionListOpts
	pages := [][]*hcloud.Action{
		{action(10, 1, hcloud.ActionStatusRunning)}, // the cursor's read
		{action(12, 2, hcloud.ActionStatusSuccess), action(11, 1, hcloud.ActionStatusRunning), action(10, 1, hcloud.ActionStatusSuccess)}, // poll 1: 10 ended
		{action(13, 3, hcloud.ActionStatusSuccess), action(12, 2, hcloud.ActionStatusSuccess)},                                            // poll 2: 11 not reached
		{action(11, 1, hcloud.ActionStatusSuccess)},                                                                                       // 11 by ID
	}
	f := &feed{running: map[int64]bool{}, list: func(_ context.Context, o hcloud.ActionListOpts) ([]*hcloud.Action, *hcloud.Response, error) {
		asked = append(asked, o)
		p := pages[0]
		pages = pages[1:]
		return p, &hcloud.Response{Meta: hcloud.Meta{Pagination: &hcloud.Pagination{}}}, nil
	}}
	for i, want := range [][]int64{nil, {2, 1, 1}, {3, 1}} {
		ch, err := f.poll(t.Context(), 10)
		if err != nil || !slices.Equal(ch.servers, want) || ch.overflow {
			t.Errorf("poll %d: %v %v, want servers %v", i, ch, err, want)
		}
	}
	if len(asked) != 4 || !slices.Equal(asked[3].ID, []int64{11}) || len(f.running) != 0 || f.cursor != 13 {
		t.Errorf("reads %+v, running %v, cursor %d; want the last read by ID 11, nothing running, cursor 13", asked, f.running, f.cursor)
	}
}

// TestFeedOverflowLists: more changes than a listing has pages of
// actions: one listing instead.
func TestFeedOverflowLists(t *testing.T) {
	c := newCloud(t, 40, fakecloud.Options{}) // one page of servers
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	for i := range 40 {
		s, _, err := c.Client.Server.GetByName(t.Context(), fmt.Sprintf("node-%04d", i))
		if err == nil {
			_, _, err = c.Client.Server.Reboot(t.Context(), s)
		}
		if err == nil {
			_, _, err = c.Client.Server.Reset(t.Context(), s)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	c.FC.ResetCounters()
	clk.Advance(5*time.Minute + time.Second)
	sweep(t, inv, 40)
	if n, lists := c.requests(), c.FC.Requests("GET", "/servers"); n != 2 || lists != 1 {
		t.Errorf("%d requests (%d listings); want 2: one page of 50 actions (a second would be more pages than a listing), then one listing", n, lists)
	}
	if inv.feed.cursor == 0 {
		t.Error("the cursor did not move past the overflow")
	}
}

// TestFeedSafetyNetListing: changes that leave no action, such as a
// rename, are seen through a full listing once the last one is older
// than the listing max age.
func TestFeedSafetyNetListing(t *testing.T) {
	c := newCloud(t, 120, fakecloud.Options{})
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	inv := feedInventory(t, c, clk)
	s, _, err := c.Client.Server.GetByName(t.Context(), "node-0007")
	if err == nil {
		_, _, err = c.Client.Server.Update(t.Context(), s, hcloud.ServerUpdateOpts{Labels: map[string]string{"pool": "b"}})
	}
	if err != nil {
		t.Fatal(err)
	}
	c.FC.ResetCounters()
	for range 36 { // three hours of status loops
		clk.Advance(5*time.Minute + time.Second)
		sweep(t, inv, 120)
	}
	if lists := c.FC.Requests("GET", "/servers"); lists != 3 {
		t.Errorf("%d listing pages in three hours and a bit, want one listing (3 pages) once the last was 3 h old", lists)
	}
	if e := inv.byID[s.ID]; e == nil || e.server.Labels["pool"] != "b" {
		t.Error("the label change was not seen after the safety-net listing")
	}
}

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

// TestFeedFailedPollLosesNothing: when a poll's second read fails, the
// feed keeps its cursor and running actions, so the next poll reports the
// same changes.
func TestFeedFailedPollLosesNothing(t *testing.T) {
	action := func(id, server int64, status hcloud.ActionStatus) *hcloud.Action {
		return &hcloud.Action{ID: id, Status: status, Resources: []*hcloud.ActionResource{{ID: server, Type: hcloud.ActionResourceTypeServer}}}
	}
	newest := []*hcloud.Action{action(12, 2, hcloud.ActionStatusSuccess), action(10, 1, hcloud.ActionStatusSuccess)}
	replies := []func() ([]*hcloud.Action, error){
		func() ([]*hcloud.Action, error) {
			return []*hcloud.Action{action(10, 1, hcloud.ActionStatusRunning)}, nil
		}, // cursor 10; 5 (older) runs
		func() ([]*hcloud.Action, error) { return newest, nil },                         // 10 ended, 12 new
		func() ([]*hcloud.Action, error) { return nil, errors.New("connection reset") }, // 5 by ID fails
		func() ([]*hcloud.Action, error) { return newest, nil },
		func() ([]*hcloud.Action, error) {
			return []*hcloud.Action{action(5, 3, hcloud.ActionStatusSuccess)}, nil
		},
	}
	f := &feed{running: map[int64]bool{}, list: func(context.Context, hcloud.ActionListOpts) ([]*hcloud.Action, *hcloud.Response, error) {
		acts, err := replies[0]()
		replies = replies[1:]
		return acts, &hcloud.Response{Meta: hcloud.Meta{Pagination: &hcloud.Pagination{}}}, err
	}}
	if _, err := f.poll(t.Context(), 10); err != nil {
		t.Fatal(err)
	}
	f.running[5] = true // an older action still running, beyond the first page
	if _, err := f.poll(t.Context(), 10); err == nil {
		t.Fatal("the failed read was not reported")
	}
	if f.cursor != 10 || !f.running[10] || !f.running[5] {
		t.Fatalf("after a failed poll: cursor %d, running %v; want 10 and both still followed", f.cursor, f.running)
	}
	ch, err := f.poll(t.Context(), 10)
	if want := []int64{2, 1, 3}; err != nil || !slices.Equal(ch.servers, want) || f.cursor != 12 || len(f.running) != 0 {
		t.Errorf("the poll after: servers %v, %v, cursor %d, running %v; want %v, cursor 12, nothing running", ch.servers, err, f.cursor, f.running, want)
	}
}
