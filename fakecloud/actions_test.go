package fakecloud

import (
	"fmt"
	"testing"

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
