package fakecloud

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// newestServerActions reads GET /servers/actions?sort=id:desc as the CCM
// does and returns the actions newer than after, newest first.
func newestServerActions(t *testing.T, f *fixture, after int64) []*hcloud.Action {
	t.Helper()
	acts, _, err := f.client.Server.Action.List(t.Context(), hcloud.ActionListOpts{Sort: []string{"id:desc"}, ListOpts: hcloud.ListOpts{PerPage: 50}})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(acts, func(a *hcloud.Action) bool { return a.ID <= after })
	if i < 0 {
		i = len(acts)
	}
	return acts[:i]
}

func newestActionID(t *testing.T, f *fixture) int64 {
	t.Helper()
	acts := newestServerActions(t, f, 0)
	if len(acts) == 0 {
		return 0
	}
	return acts[0].ID
}

func describeAction(a *hcloud.Action) string {
	s := fmt.Sprintf("%s %s %d%%", a.Command, a.Status, a.Progress)
	for _, r := range a.Resources {
		s += fmt.Sprintf(" %s:%d", r.Type, r.ID)
	}
	return s
}

func TestEventsRecordActions(t *testing.T) {
	clock := newClock()
	// Actions started through the API wait for polls; the events' are
	// finished at once all the same.
	f := newFixture(t, Options{Now: clock.Now, ActionPolls: 2})
	ctx := t.Context()
	nw, servers := lbWorld(t, f, 2)
	s0, s1 := servers[0], servers[1]
	pip := s1.PublicNet.IPv4.ID
	clock.Advance(1500 * time.Millisecond)
	now := clock.Now().Truncate(time.Microsecond) // actions carry microseconds, as the live API writes them

	cases := []struct {
		event Event
		want  []string // oldest first
	}{
		{Event{Type: "power_off_server", Server: s0.ID},
			[]string{fmt.Sprintf("stop_server success 100%% server:%d", s0.ID)}},
		{Event{Type: "power_on_server", ServerName: s0.Name},
			[]string{fmt.Sprintf("start_server success 100%% server:%d", s0.ID)}},
		// A primary IP moved is listed under /primary_ips/actions alone,
		// where the Console's change starts (checked below).
		{Event{Type: "set_server_ip", Server: s1.ID, IP: "203.0.113.7"}, nil},
		{Event{Type: "set_server_ip", Server: s1.ID, Network: nw.ID, IP: "10.0.0.77"}, []string{
			fmt.Sprintf("detach_from_network success 100%% server:%d network:%d", s1.ID, nw.ID),
			fmt.Sprintf("attach_to_network success 100%% server:%d network:%d", s1.ID, nw.ID)}},
		{Event{Type: "delete_server", Server: s1.ID},
			[]string{fmt.Sprintf("delete_server success 100%% server:%d", s1.ID)}},
	}
	for _, c := range cases {
		before := newestActionID(t, f)
		if err := f.fc.Apply(c.event); err != nil {
			t.Fatalf("%+v: %v", c.event, err)
		}
		acts := newestServerActions(t, f, before)
		var got []string
		for i, a := range slices.Backward(acts) {
			got = append(got, describeAction(a))
			if !a.Started.Equal(now) || !a.Finished.Equal(now) {
				t.Errorf("%s: started %v, finished %v, want both %v", a.Command, a.Started, a.Finished, now)
			}
			if i > 0 && acts[i-1].ID <= a.ID {
				t.Errorf("%s: IDs %d then %d do not increase", c.event.Type, a.ID, acts[i-1].ID)
			}
			one, _, err := f.client.Action.GetByID(ctx, a.ID)
			if err != nil || one == nil || describeAction(one) != describeAction(a) {
				t.Errorf("GET /actions/%d: %v %v", a.ID, one, err)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: GET /servers/actions shows %q, want %q", c.event.Type, got, c.want)
		}
	}

	// Each resource's own listings show its actions too.
	commands := func(acts []*hcloud.Action, err error) []string {
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range acts {
			out = append(out, a.Command)
		}
		return out
	}
	byID := hcloud.ActionListOpts{Sort: []string{"id"}}
	got := commands(f.client.Server.Action.AllFor(ctx, s0, byID))
	if want := []string{"create_server", "start_server", "attach_to_network", "stop_server", "start_server"}; !slices.Equal(got, want) {
		t.Errorf("GET /servers/%d/actions: %q, want %q", s0.ID, got, want)
	}
	pipActs, err := f.client.PrimaryIP.Action.All(ctx, byID)
	if err != nil {
		t.Fatal(err)
	}
	var gotPIP []string
	for _, a := range pipActs {
		gotPIP = append(gotPIP, describeAction(a))
	}
	if want := []string{
		fmt.Sprintf("unassign_primary_ip success 100%% server:%d primary_ip:%d", s1.ID, pip),
		fmt.Sprintf("assign_primary_ip success 100%% server:%d primary_ip:%d", s1.ID, pip),
	}; !slices.Equal(gotPIP, want) {
		t.Errorf("GET /primary_ips/actions: %q, want %q", gotPIP, want)
	}
	// A server's network change names the network but started under
	// /servers, so the network's own listing does not show it.
	got = commands(f.client.Network.Action.AllFor(ctx, nw, byID))
	if slices.Contains(got, "attach_to_network") || slices.Contains(got, "detach_from_network") {
		t.Errorf("GET /networks/%d/actions: %q, want no server's attachment", nw.ID, got)
	}

	// The actions survive a state file round trip.
	st, err := f.fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, Options{Now: clock.Now})
	if err := g.fc.Import(st); err != nil {
		t.Fatal(err)
	}
	if got, want := newestServerActions(t, g, 0), newestServerActions(t, f, 0); len(got) != len(want) || describeAction(got[0]) != describeAction(want[0]) {
		t.Errorf("after a round trip: %d actions, newest %s; want %d, newest %s", len(got), describeAction(got[0]), len(want), describeAction(want[0]))
	}
}

func TestEventsNoChangeNoAction(t *testing.T) {
	f := newFixture(t, Options{})
	nw, servers := lbWorld(t, f, 1)
	s := servers[0]
	before := newestActionID(t, f)
	for _, e := range []Event{
		{Type: "set_server_ip", Server: s.ID, IP: s.PublicNet.IPv4.IP.String()},
		{Type: "set_server_ip", Server: s.ID, Network: nw.ID, IP: s.PrivateNet[0].IP.String()},
		{Type: "set_target_health", LoadBalancer: 0, Server: s.ID, Health: "healthy"},
		{Type: "lock", Resource: "server", ID: s.ID, For: Duration(time.Second)},
	} {
		_ = f.fc.Apply(e)
	}
	if acts := newestServerActions(t, f, before); len(acts) != 0 {
		t.Errorf("events that record nothing recorded %s", describeAction(acts[0]))
	}
}

func TestRefusedEventsRecordNoAction(t *testing.T) {
	f := newFixture(t, Options{})
	nw, servers := lbWorld(t, f, 2)
	s, other := servers[0], servers[1]
	before := newestActionID(t, f)
	state, _ := f.fc.Export()
	// Each fails after its server was found, some only at the last check.
	for _, e := range []Event{
		{Type: "set_server_ip", Server: s.ID, IP: other.PublicNet.IPv4.IP.String()},
		{Type: "set_server_ip", Server: s.ID, IP: "10.1.2.3"},
		{Type: "set_server_ip", Server: s.ID, IP: "198.18.200.1"},
		{Type: "set_server_ip", Server: s.ID, Network: nw.ID, IP: other.PrivateNet[0].IP.String()},
		{Type: "set_server_ip", Server: s.ID, Network: nw.ID, IP: "10.0.1.5"},
		{Type: "set_server_ip", Server: s.ID, Network: nw.ID + 1, IP: "10.0.0.9"},
		{Type: "delete_server", Server: other.ID + 1000},
		{Type: "power_off_server", ServerName: "nobody"},
	} {
		if err := f.fc.Apply(e); err == nil {
			t.Errorf("%+v was applied, want an error", e)
		}
	}
	if acts := newestServerActions(t, f, before); len(acts) != 0 {
		t.Errorf("refused events recorded %s", describeAction(acts[0]))
	}
	if after, _ := f.fc.Export(); string(after) != string(state) {
		t.Error("refused events changed the world (an action ID taken?)")
	}
}
