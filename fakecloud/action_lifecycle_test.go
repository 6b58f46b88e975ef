package fakecloud

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestActionFinishesOnNthPoll: with ActionPolls, an action finishes on the
// Nth read, whatever the clock says.
func TestActionFinishesOnNthPoll(t *testing.T) {
	f := newFixture(t, Options{ActionPolls: 3})
	ctx := t.Context()
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.0.0/24")
	a, _, err := f.client.Network.AddRoute(ctx, n, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr("10.244.0.0/24"), Gateway: net2ip("10.0.0.2")}})
	if err != nil {
		t.Fatal(err)
	}
	var statuses []hcloud.ActionStatus
	for range 3 {
		got, _, err := f.client.Action.GetByID(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, got.Status)
	}
	want := []hcloud.ActionStatus{hcloud.ActionStatusRunning, hcloud.ActionStatusRunning, hcloud.ActionStatusSuccess}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	got, _, _ := f.client.Network.GetByID(ctx, n.ID)
	if len(got.Routes) != 1 {
		t.Errorf("route not applied when the action succeeded: %+v", got.Routes)
	}
}

// TestActionDuration: an action runs for ActionDuration on the clock, its
// effect appears when it succeeds, and progress grows meanwhile.
func TestActionDuration(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{ActionDuration: 10 * time.Second, Now: clock.Now})
	ctx := t.Context()
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action.Status != hcloud.ActionStatusRunning || res.Server.Status != hcloud.ServerStatusInitializing {
		t.Fatalf("action %s server %s", res.Action.Status, res.Server.Status)
	}
	clock.Advance(5 * time.Second)
	a, _, _ := f.client.Action.GetByID(ctx, res.Action.ID)
	if a.Status != hcloud.ActionStatusRunning || a.Progress != 50 {
		t.Errorf("halfway: %s %d%%, want running 50%%", a.Status, a.Progress)
	}
	clock.Advance(5 * time.Second)
	a, _, _ = f.client.Action.GetByID(ctx, res.Action.ID)
	s, _, _ := f.client.Server.GetByID(ctx, res.Server.ID)
	if a.Status != hcloud.ActionStatusSuccess || a.Progress != 100 || s.Status != hcloud.ServerStatusRunning {
		t.Errorf("after 10 s: action %s %d%%, server %s", a.Status, a.Progress, s.Status)
	}
	if !a.Finished.Equal(clock.Now()) || !a.Started.Equal(clock.Now().Add(-10*time.Second)) {
		t.Errorf("started %s finished %s", a.Started, a.Finished)
	}
}
