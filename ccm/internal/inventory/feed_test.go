package inventory

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// feedCloud is fakecloud of n servers on the test's clock, which the API's
// action times and Date headers follow, as on the live API; the servers
// were created ten minutes before the test starts.
func feedCloud(t *testing.T, n int, opts fakecloud.Options) (*cloudtest.Cloud, *fakecloudtest.Clock) {
	t.Helper()
	clk := fakecloudtest.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	opts.Now = clk.Now
	c := cloudtest.Start(t, n, opts)
	clk.Advance(10 * time.Minute)
	return c, clk
}

// pessimisticOpts is fakecloud taking the unhelpful reading of what the
// API's documentation leaves open.
func pessimisticOpts(retention time.Duration) fakecloud.Options {
	return fakecloud.Options{Realism: fakecloud.Realism{Mode: fakecloud.RealismPessimistic, ActionRetention: fakecloud.Duration(retention)}}
}

// feedInventory is an inventory with the actions feed, started as the
// CCM starts it: the feed first, then the listing.
func feedInventory(t *testing.T, c *cloudtest.Cloud, clk *fakecloudtest.Clock) *Inventory {
	t.Helper()
	inv := NewInventory(c.Client, clk.Now).WithFeed(NewFeed(c.Client), time.Hour)
	if err := inv.PollFeed(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := inv.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	c.FC.ResetCounters()
	return inv
}

// sweep looks up every node's server by name at the status loop's
// freshness, as UpdateNodeStatus does.
func sweep(t *testing.T, inv *Inventory, n int) map[string]*hcloud.Server {
	t.Helper()
	got := map[string]*hcloud.Server{}
	for i := range n {
		name := fmt.Sprintf("node-%04d", i)
		s, err := inv.ByServerName(t.Context(), name, Within(5*time.Minute))
		if err != nil || s == nil {
			t.Fatalf("%s: %v %v", name, s, err)
		}
		got[name] = s
	}
	return got
}

// powerOff powers a server off through the API, behind the CCM's back.
func powerOff(t *testing.T, c *cloudtest.Cloud, name string) {
	t.Helper()
	if _, _, err := c.Client.Server.Poweroff(t.Context(), c.Server(t, name)); err != nil {
		t.Fatal(err)
	}
}

func actionReads(c *cloudtest.Cloud) uint64 {
	return c.FC.Requests("GET", "/servers/actions") + c.FC.Requests("GET", "/primary_ips/actions")
}

// TestFeedVouchesForUnchangedServers: once the entries are older than the
// status loop takes, one poll (two reads) keeps all of them; the listing
// that catches changes without an action comes every 18 minutes at three
// pages of servers.
func TestFeedVouchesForUnchangedServers(t *testing.T) {
	c, clk := feedCloud(t, 120, fakecloud.Options{})
	inv := feedInventory(t, c, clk)
	for range 12 { // an hour of status loops
		clk.Advance(5*time.Minute + time.Second)
		sweep(t, inv, 120)
	}
	reads, lists := actionReads(c), c.FC.Requests("GET", "/servers")
	if reads > 24 || lists != 9 || c.Requests() > 33 {
		t.Errorf("an hour of status loops: %d requests, %d action reads, %d listing pages; want at most 24 reads (12 polls) and 3 listings of 3 pages", c.Requests(), reads, lists)
	}
}

// TestFeedSeesAPowerOff: a server powered off through the API leaves a
// stop_server action; the next sweep polls, then reads that one server,
// and sees it off. No other server is fetched.
func TestFeedSeesAPowerOff(t *testing.T) {
	c, clk := feedCloud(t, 120, fakecloud.Options{})
	inv := feedInventory(t, c, clk)
	powerOff(t, c, "node-0042")
	c.FC.ResetCounters()
	clk.Advance(5*time.Minute + time.Second)
	got := sweep(t, inv, 120)
	if got["node-0042"].Status != hcloud.ServerStatusOff || got["node-0041"].Status != hcloud.ServerStatusRunning {
		t.Errorf("after the power-off: node-0042 %s, node-0041 %s", got["node-0042"].Status, got["node-0041"].Status)
	}
	if n, one := c.Requests(), c.FC.Requests("GET", "/servers"); n != 3 || one != 1 {
		t.Errorf("%d requests (%v); want 3: the poll's two reads, then node-0042 by name", n, c.FC.Counters())
	}
}

// TestFeedIgnoresIDOrder: under pessimistic realism an action may get a
// lower ID than one the feed saw before it; the feed, which reads by
// started time, still sees it, where a cursor on IDs would not.
func TestFeedIgnoresIDOrder(t *testing.T) {
	c, clk := feedCloud(t, 120, pessimisticOpts(time.Hour))
	inv := feedInventory(t, c, clk)
	var first int64 // the highest ID of ten reboots at once
	for i := range 10 {
		a, _, err := c.Client.Server.Reboot(t.Context(), c.Server(t, fmt.Sprintf("node-%04d", 100+i)))
		if err != nil {
			t.Fatal(err)
		}
		first = max(first, a.ID)
	}
	clk.Advance(time.Second)
	sweepFresh(t, inv, 120) // the feed has seen them
	below := ""
	for i := 0; i < 60 && below == ""; i++ {
		clk.Advance(time.Second)
		name := fmt.Sprintf("node-%04d", i)
		a, _, err := c.Client.Server.Reboot(t.Context(), c.Server(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if a.ID < first {
			below = name
		}
	}
	if below == "" {
		t.Fatal("no later action got an ID below the first; the test needs one")
	}
	clk.Advance(5*time.Minute + time.Second)
	c.FC.ResetCounters()
	sweep(t, inv, 120)
	// Its entry was read again in this sweep, not vouched for: the other
	// reboots, above the first ID, would cost reads even to a feed that
	// followed an ID cursor.
	inv.mu.Lock()
	e := inv.byName[below]
	inv.mu.Unlock()
	if e == nil || !e.seen.Equal(clk.Now()) {
		t.Errorf("the reboot of %s, with an ID below one seen before, was missed: %v", below, c.FC.Counters())
	}
}

// TestFeedSeesAPrimaryIPMove: under pessimistic realism a primary IP
// moved in the Console leaves actions naming only the primary IP, listed
// under /primary_ips/actions; the node's address is right at the next
// sweep, at the cost of one server read.
func TestFeedSeesAPrimaryIPMove(t *testing.T) {
	c, clk := feedCloud(t, 120, pessimisticOpts(time.Hour))
	inv := feedInventory(t, c, clk)
	s := c.Server(t, "node-0007")
	if err := c.FC.Apply(fakecloud.Event{Type: "set_server_ip", Server: s.ID, IP: "203.0.113.77"}); err != nil {
		t.Fatal(err)
	}
	c.FC.ResetCounters()
	clk.Advance(5*time.Minute + time.Second)
	got := sweep(t, inv, 120)
	if ip := got["node-0007"].PublicNet.IPv4.IP.String(); ip != "203.0.113.77" {
		t.Errorf("after the move node-0007 has %s, want 203.0.113.77", ip)
	}
	if n := c.Requests(); n != 3 {
		t.Errorf("%d requests (%v); want 3: the poll's two reads and node-0007", n, c.FC.Counters())
	}
}

// TestFeedGapLists: when actions the last poll saw have left the listing
// (a retention shorter than the polls' spacing), or the last poll is more
// than 20 minutes old, the feed cannot vouch for what it missed: one full
// listing instead, and the change is seen.
func TestFeedGapLists(t *testing.T) {
	for _, tt := range []struct {
		name      string
		retention time.Duration
		wait      time.Duration
	}{
		{name: "retention shorter than the spacing", retention: 3 * time.Minute, wait: 5*time.Minute + time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, clk := feedCloud(t, 120, pessimisticOpts(tt.retention))
			inv := feedInventory(t, c, clk)
			powerOff(t, c, "node-0003")
			clk.Advance(time.Minute)
			sweepFresh(t, inv, 120) // the power-off is seen and remembered in the window
			if err := c.FC.Apply(fakecloud.Event{Type: "power_off_server", ServerName: "node-0004"}); err != nil {
				t.Fatal(err) // a shutdown from inside: no action at all
			}
			clk.Advance(tt.wait)
			c.FC.ResetCounters()
			got := sweep(t, inv, 120)
			if got["node-0004"].Status != hcloud.ServerStatusOff || inv.Stats.Snapshot().FeedGaps != 1 {
				t.Errorf("node-0004 %s, %d gaps (%v); want off, seen through the listing after one gap", got["node-0004"].Status, inv.Stats.Snapshot().FeedGaps, c.FC.Counters())
			}
		})
	}
}

// sweepFresh is a sweep that makes the inventory poll now.
func sweepFresh(t *testing.T, inv *Inventory, n int) {
	t.Helper()
	if err := inv.PollFeed(t.Context()); err != nil {
		t.Fatal(err)
	}
	sweep(t, inv, n)
}

// TestFeedLongGapLists: a poll more than 20 minutes after the last cannot
// vouch for what may have left the listing meanwhile: it lists everything.
func TestFeedLongGapLists(t *testing.T) {
	c, clk := feedCloud(t, 20, pessimisticOpts(time.Hour))
	inv := feedInventory(t, c, clk)
	clk.Advance(25 * time.Minute)
	if err := inv.PollFeed(t.Context()); err != nil {
		t.Fatal(err)
	}
	if gaps, lists := inv.Stats.Snapshot().FeedGaps, c.FC.Requests("GET", "/servers"); gaps != 1 || lists != 1 {
		t.Errorf("%d gaps, %d listing pages; want one gap answered by one listing", gaps, lists)
	}
}

// TestFeedFailedPollFallsBack: when reading the actions fails, a lookup
// is answered by reading the server, not from the old entry.
func TestFeedFailedPollFallsBack(t *testing.T) {
	c, clk := feedCloud(t, 120, fakecloud.Options{})
	inv := feedInventory(t, c, clk)
	powerOff(t, c, "node-0001")
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "GET", Path: "/primary_ips/actions", Status: 503, Code: "unavailable"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5*time.Minute + time.Second)
	got := sweep(t, inv, 120)
	if got["node-0001"].Status != hcloud.ServerStatusOff {
		t.Errorf("with the actions failing, node-0001 was answered %s from memory, want off from a read", got["node-0001"].Status)
	}
	c.FC.ClearFaults()
	clk.Advance(5*time.Minute + time.Second)
	c.FC.ResetCounters()
	sweep(t, inv, 120)
	if reads := actionReads(c); reads != 2 {
		t.Errorf("after the fault: %d action reads, want one poll of 2", reads)
	}
}

// TestFeedFollowsARunningAction: an action still running at one poll is
// followed; when it has ended, even started before the window a poll
// reads, its server is fetched again, since its end changed the server
// once more.
func TestFeedFollowsARunningAction(t *testing.T) {
	c, clk := feedCloud(t, 120, fakecloud.Options{ActionDuration: 8 * time.Minute})
	inv := feedInventory(t, c, clk)
	powerOff(t, c, "node-0001")
	clk.Advance(5 * time.Second)
	if got := sweepOnce(t, inv, 120); got["node-0001"].Status != "stopping" {
		t.Fatalf("while the action runs: node-0001 %s, want stopping", got["node-0001"].Status)
	}
	clk.Advance(5*time.Minute + time.Second)
	c.FC.ResetCounters()
	if got := sweep(t, inv, 120); got["node-0001"].Status != "stopping" || c.Requests() != 2 {
		t.Fatalf("still running: node-0001 %s after %d requests, want stopping after the poll's 2", got["node-0001"].Status, c.Requests())
	}
	clk.Advance(5*time.Minute + time.Second) // the action ends, before the window
	c.FC.ResetCounters()
	got := sweep(t, inv, 120)
	if got["node-0001"].Status != hcloud.ServerStatusOff {
		t.Errorf("after the action ended: node-0001 %s", got["node-0001"].Status)
	}
	if n := c.Requests(); n != 3 {
		t.Errorf("%d requests (%v); want 3: the poll's two reads (the first page reaches the action), node-0001", n, c.FC.Counters())
	}
}

// sweepOnce is a sweep after a poll that reads every entry again.
func sweepOnce(t *testing.T, inv *Inventory, n int) map[string]*hcloud.Server {
	t.Helper()
	if err := inv.PollFeed(t.Context()); err != nil {
		t.Fatal(err)
	}
	return sweep(t, inv, n)
}

// TestFeedOverflowLists: more changes than a listing has pages of
// actions (240 at 120 servers): one listing instead.
func TestFeedOverflowLists(t *testing.T) {
	c, clk := feedCloud(t, 120, fakecloud.Options{}) // three pages of servers
	inv := feedInventory(t, c, clk)
	for i := range 120 {
		s := c.Server(t, fmt.Sprintf("node-%04d", i))
		_, _, err := c.Client.Server.Reboot(t.Context(), s)
		if err == nil {
			_, _, err = c.Client.Server.Reset(t.Context(), s)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	c.FC.ResetCounters()
	clk.Advance(5*time.Minute + time.Second)
	sweep(t, inv, 120)
	if n, lists := c.Requests(), c.FC.Requests("GET", "/servers"); n != 8 || lists != 3 {
		t.Errorf("%d requests (%d listing pages, %v); want 8: three pages of 50 server actions (a fourth would be more pages than a listing), one of the running actions (which the listing cannot follow), the primary IP actions, one listing of 3 pages", n, lists, c.FC.Counters())
	}
}

// TestFeedSafetyNetListing: changes that leave no action, such as a
// label, are seen through a full listing within the listing period (15
// minutes at one page of servers).
func TestFeedSafetyNetListing(t *testing.T) {
	c, clk := feedCloud(t, 20, fakecloud.Options{})
	inv := feedInventory(t, c, clk)
	s := c.Server(t, "node-0007")
	if _, _, err := c.Client.Server.Update(t.Context(), s, hcloud.ServerUpdateOpts{Labels: map[string]string{"pool": "b"}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		clk.Advance(5*time.Minute + time.Second)
		sweep(t, inv, 20)
	}
	if e := inv.byID[s.ID]; e == nil || e.server.Labels["pool"] != "b" {
		t.Error("the label change was not seen within 16 minutes")
	}
}

// TestFeedAsksRunningActionsByID: a running action the read does not
// reach is asked about by ID; one that ended, or left the listing, counts
// as a change of its server.
func TestFeedAsksRunningActionsByID(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	action := func(id, server int64, status hcloud.ActionStatus) *hcloud.Action {
		return &hcloud.Action{ID: id, Status: status, Started: t0, Resources: []*hcloud.ActionResource{{ID: server, Type: hcloud.ActionResourceTypeServer}}}
	}
	var asked [][]int64
	list := func(_ context.Context, o hcloud.ActionListOpts) ([]*hcloud.Action, *hcloud.Response, error) {
		asked = append(asked, o.ID)
		if len(o.ID) > 0 {
			return []*hcloud.Action{action(7, 1, hcloud.ActionStatusSuccess)}, nil, nil // 8 is gone
		}
		return nil, &hcloud.Response{Meta: hcloud.Meta{Pagination: &hcloud.Pagination{}}}, nil
	}
	s := newActionStream("server actions", func(*hcloud.Client) actionLister { return list })
	s.list = list
	s.horizon = t0.Add(time.Hour)
	s.running[7] = action(7, 1, hcloud.ActionStatusRunning).Resources
	s.running[8] = action(8, 2, hcloud.ActionStatusRunning).Resources
	var ch feedChanges
	commit, _, err := s.poll(t.Context(), 3, false, &ch)
	if err != nil {
		t.Fatal(err)
	}
	commit()
	slices.Sort(ch.servers)
	if len(asked) != 2 || len(asked[1]) != 2 || !slices.Equal(ch.servers, []int64{1, 2}) || len(s.running) != 0 {
		t.Errorf("asked %v, changed %v, still running %v; want 7 and 8 asked by ID, servers 1 and 2 changed, none followed", asked, ch.servers, s.running)
	}
}

// TestFeedFailedReadCommitsNothing: when a poll's second stream fails, the
// first stream's window is not committed, so the next poll reports the
// same changes.
func TestFeedFailedReadCommitsNothing(t *testing.T) {
	c, clk := feedCloud(t, 3, fakecloud.Options{})
	inv := feedInventory(t, c, clk)
	powerOff(t, c, "node-0002")
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "GET", Path: "/primary_ips/actions", Status: 503, Code: "unavailable", Count: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := inv.feed.poll(t.Context(), nil, 3); err == nil {
		t.Fatal("the failed read was not reported")
	}
	ch, err := inv.feed.poll(t.Context(), nil, 3)
	if err != nil || !slices.Contains(ch.servers, c.Server(t, "node-0002").ID) {
		t.Errorf("the poll after: %v, %v; want node-0002 changed", ch.servers, err)
	}
}

// TestFeedStartsAfterABurst: a CCM started just after its servers were
// created (as make scale starts it) finds more actions in the first
// poll's window than a page holds. The part it did not read is the first
// listing's, so the next poll reads one page per stream and lists
// nothing (reading the window again took 3 pages and a listing of 3).
func TestFeedStartsAfterABurst(t *testing.T) {
	clk := fakecloudtest.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	c := cloudtest.Start(t, 120, fakecloud.Options{Now: clk.Now})
	clk.Advance(10 * time.Second)
	inv := feedInventory(t, c, clk)
	clk.Advance(5*time.Minute + time.Second)
	sweep(t, inv, 120)
	if n := c.Requests(); n != 2 {
		t.Errorf("the first poll after the start: %d requests (%v), want 2: one page of each stream", n, c.FC.Counters())
	}
}

// TestFeedFollowsRunningActionsAfterABurst: when the first poll reads
// only part of its window, the actions then running (60 power-offs) are
// followed by ID until they end, and their servers read again.
func TestFeedFollowsRunningActionsAfterABurst(t *testing.T) {
	clk := fakecloudtest.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	c := cloudtest.Start(t, 120, fakecloud.Options{Now: clk.Now, ActionDuration: time.Minute})
	for i := range 60 {
		powerOff(t, c, fmt.Sprintf("node-%04d", i))
	}
	clk.Advance(10 * time.Second)
	inv := feedInventory(t, c, clk)
	if got := sweep(t, inv, 120); got["node-0000"].Status != hcloud.ServerStatusStopping {
		t.Fatalf("at start: node-0000 %s, want stopping", got["node-0000"].Status)
	}
	clk.Advance(5*time.Minute + time.Second) // the power-offs have ended
	c.FC.ResetCounters()
	got := sweep(t, inv, 120)
	for i := range 120 {
		name, want := fmt.Sprintf("node-%04d", i), hcloud.ServerStatusRunning
		if i < 60 {
			want = hcloud.ServerStatusOff
		}
		if got[name].Status != want {
			t.Errorf("%s is %s, want %s", name, got[name].Status, want)
		}
	}
	if n := actionReads(c); n != 3 {
		t.Errorf("%d action reads (%v), want 3: the page that shows 50 of the power-offs ended, the other 10 by ID, the primary IP actions", n, c.FC.Counters())
	}
}

// TestFeedIgnoresLoadBalancersPrimaryIPs: a primary IP a load balancer
// holds (since 2026-10-05) names the load balancer in assignee_id, whose
// ID may be a server's too; its actions mark no server changed.
func TestFeedIgnoresLoadBalancersPrimaryIPs(t *testing.T) {
	var other int64 // the server whose ID the load balancer's coincides with
	opts := pessimisticOpts(time.Hour)
	opts.Middleware = []func(http.Handler) http.Handler{func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/v1/primary_ips/") {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var body struct {
				PrimaryIP map[string]any `json:"primary_ip"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.PrimaryIP == nil {
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
			body.PrimaryIP["assignee_type"], body.PrimaryIP["assignee_id"] = "load_balancer", other
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(body)
		})
	}}
	c, clk := feedCloud(t, 20, opts)
	inv := feedInventory(t, c, clk)
	other = c.Server(t, "node-0008").ID
	res, _, err := c.Client.PrimaryIP.Create(t.Context(), hcloud.PrimaryIPCreateOpts{Name: "lb-held", Type: hcloud.PrimaryIPTypeIPv4, Location: "fsn1"})
	if err != nil {
		t.Fatal(err)
	}
	inv.mu.Lock()
	before := inv.byID[other].seen
	inv.mu.Unlock()
	clk.Advance(time.Minute)
	if err := inv.place(t.Context(), inv.client, []int64{res.PrimaryIP.ID}, false, clk.Now()); err != nil {
		t.Fatal(err)
	}
	inv.mu.Lock()
	after := inv.byID[other].seen
	inv.mu.Unlock()
	if before.IsZero() || !after.Equal(before) {
		t.Errorf("node-0008 seen %v, then %v: a load balancer's primary IP marked the server of the same ID changed", before, after)
	}
}
