package fakecloud

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

func pessimistic(clk *fakecloudtest.Clock) Options {
	return Options{Now: clk.Now, Realism: Realism{Mode: RealismPessimistic, ActionRetention: Duration(10 * time.Minute)}}
}

// realismFixture is fakecloud in a mode on a clock of the test's, with
// one server.
func realismFixture(t *testing.T, mode string) (*fixture, *fakecloudtest.Clock, *hcloud.Server) {
	clk := newClock()
	opts := pessimistic(clk)
	opts.Realism.Mode = mode
	f := newFixture(t, opts)
	return f, clk, newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
}

// serverActions lists every action under /servers/actions, sorted.
func serverActionList(t *testing.T, f *fixture, sort ...string) []*hcloud.Action {
	t.Helper()
	acts, err := f.client.Server.Action.All(t.Context(), hcloud.ActionListOpts{Sort: sort})
	if err != nil {
		t.Fatal(err)
	}
	return acts
}

// TestPessimisticActionIDs: action IDs are 15 digits and only roughly in
// time order: among actions started a second apart, a later one gets a
// lower ID. Optimistic IDs grow with time.
func TestPessimisticActionIDs(t *testing.T) {
	for _, mode := range []string{RealismOptimistic, RealismPessimistic} {
		t.Run(mode, func(t *testing.T) {
			f, clk, s := realismFixture(t, mode)
			for range 20 {
				clk.Advance(time.Second)
				if _, _, err := f.client.Server.Reboot(t.Context(), s); err != nil {
					t.Fatal(err)
				}
			}
			acts := serverActionList(t, f, "started:asc", "id:asc")
			inversions := 0
			for i := 1; i < len(acts); i++ {
				if acts[i].ID < acts[i-1].ID {
					inversions++
				}
			}
			large := acts[0].ID >= 100_000_000_000_000
			if mode == RealismPessimistic && (inversions == 0 || !large) {
				t.Errorf("pessimistic: %d IDs below an earlier action's, first ID %d; want some, and 15 digits", inversions, acts[0].ID)
			}
			if mode == RealismOptimistic && (inversions != 0 || large) {
				t.Errorf("optimistic: %d inversions, first ID %d; want none and small IDs", inversions, acts[0].ID)
			}
			st, err := f.fc.Export()
			if err == nil {
				err = New(Options{Realism: f.fc.Realism()}).Import(st)
			}
			if err != nil {
				t.Errorf("the export does not import again: %v", err)
			}
		})
	}
}

// TestPessimisticRetention: finished actions older than the retention
// leave the listings, by ID filter too, but GET by ID still answers; a
// running action stays listed however old.
func TestPessimisticRetention(t *testing.T) {
	clk := newClock()
	opts := pessimistic(clk)
	f := newFixture(t, opts)
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	old := serverActionList(t, f)
	clk.Advance(11 * time.Minute)
	act, _, err := f.client.Server.Reboot(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if got := serverActionList(t, f); len(got) != 1 || got[0].ID != act.ID {
		t.Errorf("after 11 minutes the listing holds %d actions, want only the new reboot", len(got))
	}
	byID, err := f.client.Server.Action.All(t.Context(), hcloud.ActionListOpts{ID: []int64{old[0].ID}})
	if err != nil || len(byID) != 0 {
		t.Errorf("listing by ID of an expired action: %d, %v; want none", len(byID), err)
	}
	if a, _, err := f.client.Action.GetByID(t.Context(), old[0].ID); err != nil || a == nil {
		t.Errorf("GET of an expired action: %v, %v; want it answered", a, err)
	}
}

// TestPessimisticEvents: a shutdown from inside leaves no action under
// pessimistic realism, a stop_server under optimistic; a primary IP moved
// in the Console leaves actions under /primary_ips/actions alone in both.
func TestPessimisticEvents(t *testing.T) {
	for _, mode := range []string{RealismOptimistic, RealismPessimistic} {
		t.Run(mode, func(t *testing.T) {
			f, _, s := realismFixture(t, mode)
			before := len(serverActionList(t, f))
			if err := f.fc.Apply(Event{Type: "power_off_server", Server: s.ID}); err != nil {
				t.Fatal(err)
			}
			if err := f.fc.Apply(Event{Type: "set_server_ip", Server: s.ID, IP: "203.0.113.7"}); err != nil {
				t.Fatal(err)
			}
			added := len(serverActionList(t, f)) - before
			pipActs, err := f.client.PrimaryIP.Action.All(t.Context(), hcloud.ActionListOpts{})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{RealismOptimistic: 1, RealismPessimistic: 0}[mode]
			if added != want || len(pipActs) != 2 {
				t.Errorf("%d new server actions and %d primary IP actions, want %d and 2", added, len(pipActs), want)
			}
		})
	}
}

// TestPessimisticTies: servers with equal sort keys come in an order of
// fakecloud's own, not by ID, and the same on every request, so the pages
// of a listing still hold every server once.
func TestPessimisticTies(t *testing.T) {
	clk := newClock()
	f := newFixture(t, pessimistic(clk))
	var ids []int64
	for i := range 12 {
		ids = append(ids, newServer(t, f, hcloud.ServerCreateOpts{Name: fmt.Sprintf("s%d", i)}).ID)
	}
	var got []int64
	for page := 1; page <= 3; page++ {
		servers, _, err := f.client.Server.List(t.Context(), hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{Page: page, PerPage: 5}, Sort: []string{"created"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range servers {
			got = append(got, s.ID)
		}
	}
	if slices.Equal(got, ids) {
		t.Errorf("equal creation times came in ID order %v", got)
	}
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if !slices.Equal(sorted, ids) {
		t.Errorf("the pages hold %v, want every server once: %v", got, ids)
	}
}

// TestRealismSettings: the admin API, a scenario and Options set the
// realism; a bad one is refused and changes nothing.
func TestRealismSettings(t *testing.T) {
	f := newFixture(t, Options{})
	var got struct {
		Realism Realism `json:"realism"`
	}
	if code := f.admin(t, "PUT", "/realism", `{"mode": "gloomy"}`, nil); code != 422 {
		t.Errorf("a bad mode: %d, want 422", code)
	}
	if code := f.admin(t, "GET", "/realism", "", &got); code != 200 || got.Realism.Mode != RealismOptimistic {
		t.Errorf("after the refusal: %d %+v, want optimistic", code, got.Realism)
	}
	if code := f.admin(t, "PUT", "/realism", "mode: pessimistic\n", &got); code != 200 || got.Realism.ActionRetention != Duration(DefaultActionRetention) {
		t.Errorf("pessimistic: %d %+v, want the default retention", code, got.Realism)
	}
	sc, err := ParseScenario([]byte("realism: {mode: optimistic}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.fc.LoadScenario(sc); err != nil || f.fc.Realism().Mode != RealismOptimistic {
		t.Errorf("a scenario's realism: %v, %+v", err, f.fc.Realism())
	}
	if err := f.fc.LoadScenario(Scenario{Realism: &Realism{Mode: "pessimistic", ActionRetention: -1}}); err == nil {
		t.Error("a negative retention was accepted")
	}
}
