package fakecloud

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestActionsByIDSortAndPagination(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	var ids []int64
	for range 30 {
		a, _, err := f.client.Server.Reboot(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	got, err := f.client.Action.AllWithOpts(ctx, hcloud.ActionListOpts{ID: ids, Sort: []string{"id:desc"}})
	if err != nil || len(got) != 30 || got[0].ID != ids[29] || got[29].ID != ids[0] {
		t.Fatalf("by id, id:desc: %d %v", len(got), err)
	}
	page, resp, err := f.client.Action.List(ctx, hcloud.ActionListOpts{ID: ids, ListOpts: hcloud.ListOpts{Page: 2, PerPage: 10}})
	if err != nil || len(page) != 10 || page[0].ID != ids[10] || resp.Meta.Pagination.TotalEntries != 30 {
		t.Fatalf("page 2: %d %v", len(page), err)
	}
	one, _, err := f.client.Action.GetByID(ctx, ids[3])
	if err != nil || one.Command != "reboot_server" || one.Resources[0].ID != s.ID || one.Resources[0].Type != hcloud.ActionResourceTypeServer {
		t.Fatalf("get: %+v %v", one, err)
	}
	viaServer, _, err := f.client.Server.Action.GetByID(ctx, ids[3])
	if err != nil || viaServer.ID != ids[3] {
		t.Fatalf("/servers/actions/{id}: %v %v", viaServer, err)
	}
	perServer, err := f.client.Server.Action.All(ctx, hcloud.ActionListOpts{Status: []hcloud.ActionStatus{hcloud.ActionStatusSuccess}})
	if err != nil || len(perServer) != 32 { // create, start and 30 reboots
		t.Fatalf("server actions: %d %v", len(perServer), err)
	}
	if lbActs, err := f.client.LoadBalancer.Action.All(ctx, hcloud.ActionListOpts{}); err != nil || len(lbActs) != 0 {
		t.Fatalf("load balancer actions: %d %v, want none", len(lbActs), err)
	}
	resp2, body := f.do(t, "GET", fmt.Sprintf("/v1/servers/%d/actions?sort=command:asc&sort=id:desc&per_page=2", s.ID), "")
	if resp2.StatusCode != 200 || !containsString(string(body), `"create_server"`) {
		t.Errorf("per-resource list sorted by command: %d %s", resp2.StatusCode, body)
	}
	_, body = f.do(t, "GET", "/v1/actions?id=1&status=bogus", "")
	if !containsCode(body, "invalid_input") {
		t.Errorf("bad status filter: %s", body)
	}
}

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
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx22"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
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
