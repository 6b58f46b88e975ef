package fakecloud

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// stoppedServer creates a server that is off.
func stoppedServer(t *testing.T, f *fixture, name string, group *hcloud.PlacementGroup) *hcloud.Server {
	t.Helper()
	start := false
	res, _, err := f.client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, StartAfterCreate: &start, PlacementGroup: group})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	return res.Server
}

// groupOf is a server's placement group as the API shows it, or nil.
func groupOf(t *testing.T, f *fixture, id int64) *hcloud.PlacementGroup {
	t.Helper()
	s, _, err := f.client.Server.GetByID(t.Context(), id)
	if err != nil || s == nil {
		t.Fatalf("server %d: %v", id, err)
	}
	return s.PlacementGroup
}

func TestPlacementGroupLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	res, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "spread-a", Type: hcloud.PlacementGroupTypeSpread, Labels: map[string]string{"tier": "db"}})
	if err != nil {
		t.Fatal(err)
	}
	g := res.PlacementGroup
	if res.Action != nil || g.Name != "spread-a" || g.Type != hcloud.PlacementGroupTypeSpread || len(g.Servers) != 0 || g.Created.IsZero() || g.Labels["tier"] != "db" {
		t.Errorf("created %+v with action %v, want an empty spread group and no action", g, res.Action)
	}
	if _, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "spread-a", Type: hcloud.PlacementGroupTypeSpread}); !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		t.Errorf("a second spread-a: %v, want uniqueness_error", err)
	}
	if _, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "other", Type: "cluster"}); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("type cluster: %v, want invalid_input", err)
	}
	if _, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "spread-b", Type: hcloud.PlacementGroupTypeSpread}); err != nil {
		t.Fatal(err)
	}

	// Filters, sort and pages.
	all, err := f.client.PlacementGroup.AllWithOpts(ctx, hcloud.PlacementGroupListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "tier=db"}})
	if err != nil || len(all) != 1 || all[0].ID != g.ID {
		t.Errorf("label_selector tier=db: %v %v, want spread-a", all, err)
	}
	byName, _, err := f.client.PlacementGroup.GetByName(ctx, "spread-b")
	if err != nil || byName == nil || byName.Name != "spread-b" {
		t.Errorf("by name spread-b: %v %v", byName, err)
	}
	desc, err := f.client.PlacementGroup.AllWithOpts(ctx, hcloud.PlacementGroupListOpts{ListOpts: hcloud.ListOpts{PerPage: 1}, Type: hcloud.PlacementGroupTypeSpread})
	if err != nil || len(desc) != 2 {
		t.Errorf("all spread groups one per page: %v %v, want 2", desc, err)
	}
	resp, body := f.do(t, "GET", "/v1/placement_groups?sort=name:desc", "")
	if resp.StatusCode != http.StatusOK || strings.Index(string(body), "spread-b") > strings.Index(string(body), "spread-a") {
		t.Errorf("sort=name:desc: %d %s", resp.StatusCode, body)
	}

	// Update renames and relabels; delete removes.
	name := "spread-renamed"
	up, _, err := f.client.PlacementGroup.Update(ctx, g, hcloud.PlacementGroupUpdateOpts{Name: name, Labels: map[string]string{}})
	if err != nil || up.Name != name || len(up.Labels) != 0 {
		t.Errorf("update: %+v %v", up, err)
	}
	if _, err := f.client.PlacementGroup.Delete(ctx, g); err != nil {
		t.Fatal(err)
	}
	if got, _, err := f.client.PlacementGroup.GetByID(ctx, g.ID); err != nil || got != nil {
		t.Errorf("deleted group: %v %v, want not found", got, err)
	}
}

// TestPlacementGroupMembers: a server joins on create or by
// add_to_placement_group, shows its group and is listed in it, leaves by
// remove_from_placement_group or its deletion; both actions want it off.
func TestPlacementGroupMembers(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	res, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "spread", Type: hcloud.PlacementGroupTypeSpread})
	if err != nil {
		t.Fatal(err)
	}
	g := res.PlacementGroup
	a := stoppedServer(t, f, "a", g)
	if pg := groupOf(t, f, a.ID); pg == nil || pg.ID != g.ID || pg.Name != "spread" || !slices.Equal(pg.Servers, []int64{a.ID}) {
		t.Errorf("server a's placement group %+v, want spread holding a", pg)
	}

	b := stoppedServer(t, f, "b", nil)
	act, _, err := f.client.Server.AddToPlacementGroup(ctx, b, g)
	f.waitAction(t, act, err)
	if act.Command != "add_to_placement_group" {
		t.Errorf("command %s", act.Command)
	}
	got, _, _ := f.client.PlacementGroup.GetByID(ctx, g.ID)
	if !slices.Equal(got.Servers, []int64{a.ID, b.ID}) {
		t.Errorf("group servers %v, want a and b", got.Servers)
	}
	// Added, the server runs, as it does live.
	if s, _, _ := f.client.Server.GetByID(ctx, b.ID); s.Status != hcloud.ServerStatusRunning {
		t.Errorf("b after add_to_placement_group is %s, want running", s.Status)
	}
	if _, _, err := f.client.Server.AddToPlacementGroup(ctx, b, g); !hcloud.IsError(err, "already_in_placement_group") {
		t.Errorf("b again: %v, want already_in_placement_group", err)
	}
	if _, err := f.client.PlacementGroup.Delete(ctx, g); !hcloud.IsError(err, hcloud.ErrorCodeResourceInUse) {
		t.Errorf("delete a group with servers: %v, want resource_in_use", err)
	}

	// A running server may neither join nor leave.
	if _, _, err := f.client.Server.RemoveFromPlacementGroup(ctx, b); !hcloud.IsError(err, hcloud.ErrorCodeServerNotStopped) {
		t.Errorf("remove a running server: %v, want server_not_stopped", err)
	}
	c, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "c", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, c.Action, nil)
	if _, _, err := f.client.Server.AddToPlacementGroup(ctx, c.Server, g); !hcloud.IsError(err, hcloud.ErrorCodeServerNotStopped) {
		t.Errorf("add a running server: %v, want server_not_stopped", err)
	}
	off, _, err := f.client.Server.Poweroff(ctx, b)
	f.waitAction(t, off, err)
	rm, _, err := f.client.Server.RemoveFromPlacementGroup(ctx, b)
	f.waitAction(t, rm, err)
	if pg := groupOf(t, f, b.ID); pg != nil {
		t.Errorf("b after removal is in %+v", pg)
	}
	if _, _, err := f.client.Server.RemoveFromPlacementGroup(ctx, b); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("remove b again: %v, want invalid_input", err)
	}

	// Deleting a server takes it out of its group.
	del, _, err := f.client.Server.DeleteWithResult(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, del.Action, nil)
	got, _, _ = f.client.PlacementGroup.GetByID(ctx, g.ID)
	if len(got.Servers) != 0 {
		t.Errorf("group servers after a's deletion %v, want none", got.Servers)
	}
	if _, err := f.client.PlacementGroup.Delete(ctx, g); err != nil {
		t.Errorf("delete the empty group: %v", err)
	}
	if _, _, err := f.client.Server.AddToPlacementGroup(ctx, b, g); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("add to a deleted group: %v, want invalid_input", err)
	}
}

// TestPlacementGroupLimits: a spread group holds ten servers, on create
// and by action; a project fifty groups. A refused create makes nothing.
func TestPlacementGroupLimits(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	res, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "full", Type: hcloud.PlacementGroupTypeSpread})
	if err != nil {
		t.Fatal(err)
	}
	g := res.PlacementGroup
	for i := range 10 {
		stoppedServer(t, f, fmt.Sprintf("s%d", i), g)
	}
	start := false
	_, _, err = f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "eleventh", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, StartAfterCreate: &start, PlacementGroup: g})
	if !hcloud.IsError(err, "placement_group_member_limit_reached") || !strings.Contains(err.Error(), "contains already 10 servers") {
		t.Errorf("an eleventh server: %v, want placement_group_member_limit_reached", err)
	}
	if s, _, _ := f.client.Server.GetByName(ctx, "eleventh"); s != nil {
		t.Errorf("the refused server exists: %+v", s)
	}
	outside := stoppedServer(t, f, "outside", nil)
	if _, _, err := f.client.Server.AddToPlacementGroup(ctx, outside, g); !hcloud.IsError(err, "placement_group_member_limit_reached") {
		t.Errorf("add an eleventh: %v, want placement_group_member_limit_reached", err)
	}
	if _, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "nowhere", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, PlacementGroup: &hcloud.PlacementGroup{ID: 424242}}); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("a server in a missing group: %v, want invalid_input", err)
	}
	for i := 1; i < 50; i++ {
		if _, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: fmt.Sprintf("g%d", i), Type: hcloud.PlacementGroupTypeSpread}); err != nil {
			t.Fatalf("group %d: %v", i, err)
		}
	}
	if _, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "g50", Type: hcloud.PlacementGroupTypeSpread}); !hcloud.IsError(err, hcloud.ErrorCodeResourceLimitExceeded) {
		t.Errorf("a 51st group: %v, want resource_limit_exceeded", err)
	}
}

// TestPlacementGroupActionUndone: a failed add_to_placement_group leaves
// the server out of the group, a failed removal in it; the action holds
// the server while it runs.
func TestPlacementGroupActionUndone(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 10 * time.Second})
	ctx := t.Context()
	res, _, err := f.client.PlacementGroup.Create(ctx, hcloud.PlacementGroupCreateOpts{Name: "spread", Type: hcloud.PlacementGroupTypeSpread})
	if err != nil {
		t.Fatal(err)
	}
	g := res.PlacementGroup
	start := false
	created, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, StartAfterCreate: &start})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	s := created.Server
	if _, err := f.fc.AddActionFault(ActionFault{Command: "add_to_placement_group", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	act, _, err := f.client.Server.AddToPlacementGroup(ctx, s, g)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.Poweron(ctx, s); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("power on while the action runs: %v, want locked", err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Action.GetByID(ctx, act.ID); got.Status != hcloud.ActionStatusError {
		t.Fatalf("action %+v, want error", got)
	}
	if pg := groupOf(t, f, s.ID); pg != nil {
		t.Errorf("after the failed add the server is in %+v", pg)
	}
	if got, _, _ := f.client.Server.GetByID(ctx, s.ID); got.Status != hcloud.ServerStatusOff {
		t.Errorf("after the failed add the server is %s, want off", got.Status)
	}

	if _, _, err = f.client.Server.AddToPlacementGroup(ctx, s, g); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if pg := groupOf(t, f, s.ID); pg == nil || pg.ID != g.ID {
		t.Fatalf("after the add the server is in %+v", pg)
	}
	if _, _, err := f.client.Server.Poweroff(ctx, s); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := f.fc.AddActionFault(ActionFault{Command: "remove_from_placement_group", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.RemoveFromPlacementGroup(ctx, s); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if pg := groupOf(t, f, s.ID); pg == nil || pg.ID != g.ID {
		t.Errorf("after the failed removal the server is in %+v, want the group", pg)
	}
}

// TestPlacementGroupsSurviveExport: groups and their members come back
// from an export, a seed places servers in a group, and a group the
// export names twice is refused.
func TestPlacementGroupsSurviveExport(t *testing.T) {
	_, data, back := roundTrip(t, `
placement_groups: [{name: db, labels: {tier: db}}]
servers:
  - {name: db-1, status: "off", placement_group: db}
  - {name: db-2, placement_group: db}
  - {name: web-1}
`)
	rec := answer(t, back, "GET", "/v1/placement_groups?name=db", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"servers":[`) || strings.Count(rec.Body.String(), `"tier":"db"`) != 1 {
		t.Errorf("restored group: %d %s", rec.Code, rec.Body)
	}
	var groups int
	for _, g := range []string{"db-1", "db-2", "web-1"} {
		rec := answer(t, back, "GET", "/v1/servers?name="+g, nil)
		if strings.Contains(rec.Body.String(), `"placement_group":{"id"`) {
			groups++
		}
	}
	if groups != 2 {
		t.Errorf("%d restored servers show a placement group, want 2", groups)
	}

	bad := strings.Replace(string(data), `"placement_group": [`, `"placement_group": [{"id": 1, "name": "x", "labels": {}, "type": "spread", "created": "2026-01-01T00:00:00Z", "servers": null}, {"id": 1, "name": "y", "labels": {}, "type": "spread", "created": "2026-01-01T00:00:00Z", "servers": null}, `, 1)
	if bad == string(data) {
		t.Fatal("the export has no placement_group list to break")
	}
	if err := back.Import([]byte(bad)); err == nil || !strings.Contains(err.Error(), "kinds.placement_group[1].id: 1 appears twice") {
		t.Errorf("import of a group's ID twice: %v, want an error naming kinds.placement_group", err)
	}
	sameName := strings.Replace(string(data), `"placement_group": [`, `"placement_group": [{"id": 1, "name": "db", "labels": {}, "type": "spread", "created": "2026-01-01T00:00:00Z", "servers": null}, `, 1)
	if err := back.Import([]byte(sameName)); err == nil || !strings.Contains(err.Error(), `kinds.placement_group[1].name: "db" appears twice`) {
		t.Errorf("import of a group's name twice: %v, want an error naming kinds.placement_group", err)
	}
	if _, err := ParseWorld([]byte(`servers: [{name: x, placement_group: nowhere}]`)); err != nil {
		t.Fatal(err)
	}
	w2, _ := ParseWorld([]byte(`servers: [{name: x, placement_group: nowhere}]`))
	if err := New(Options{}).Seed(w2); err == nil || !strings.Contains(err.Error(), `placement group "nowhere"`) {
		t.Errorf("a seed naming a missing group: %v", err)
	}
}
