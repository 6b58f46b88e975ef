package fakecloud

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestPrimaryIPMovesBetweenServers: a primary IP is unassigned from a
// server that is off and assigned to another, with the API's errors on
// the way; the servers' addresses follow.
func TestPrimaryIPMovesBetweenServers(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	a := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	b := newServer(t, f, hcloud.ServerCreateOpts{Name: "b"})
	pip := &hcloud.PrimaryIP{ID: a.PublicNet.IPv4.ID}

	_, _, err := f.client.PrimaryIP.Unassign(ctx, pip.ID)
	wantCode(t, err, "server_not_stopped")
	for _, s := range []*hcloud.Server{a, b} {
		act, _, err := f.client.Server.Poweroff(ctx, s)
		if err == nil {
			err = f.client.Action.WaitFor(ctx, act)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = f.client.PrimaryIP.Assign(ctx, hcloud.PrimaryIPAssignOpts{ID: pip.ID, AssigneeType: "server", AssigneeID: b.ID})
	wantCode(t, err, "primary_ip_already_assigned")

	act, _, err := f.client.PrimaryIP.Unassign(ctx, pip.ID)
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
	if act.Command != "unassign_primary_ip" || len(act.Resources) != 2 {
		t.Errorf("unassign action %s names %d resources, want unassign_primary_ip naming the primary IP and the server", act.Command, len(act.Resources))
	}
	got, _, _ := f.client.Server.GetByID(ctx, a.ID)
	if !got.PublicNet.IPv4.IsUnspecified() {
		t.Errorf("server a still has IPv4 %s", got.PublicNet.IPv4.IP)
	}
	_, _, err = f.client.PrimaryIP.Assign(ctx, hcloud.PrimaryIPAssignOpts{ID: pip.ID, AssigneeType: "server", AssigneeID: b.ID})
	wantCode(t, err, "server_has_ipv4")

	act, _, err = f.client.PrimaryIP.Assign(ctx, hcloud.PrimaryIPAssignOpts{ID: pip.ID, AssigneeType: "server", AssigneeID: a.ID})
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ = f.client.Server.GetByID(ctx, a.ID)
	p, _, _ := f.client.PrimaryIP.GetByID(ctx, pip.ID)
	if !got.PublicNet.IPv4.IP.Equal(a.PublicNet.IPv4.IP) || p.AssigneeID != a.ID {
		t.Errorf("after assigning back: server a has %s, primary IP assigned to %d; want %s on %d", got.PublicNet.IPv4.IP, p.AssigneeID, a.PublicNet.IPv4.IP, a.ID)
	}
}

// TestPrimaryIPFailedActionChangesNothing: an action fault on the
// unassign leaves the address on its server.
func TestPrimaryIPFailedActionChangesNothing(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	a := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	act, _, err := f.client.Server.Poweroff(ctx, a)
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.fc.AddActionFault(ActionFault{Command: "unassign_primary_ip", ErrorCode: "action_failed", ErrorMessage: "no"}); err != nil {
		t.Fatal(err)
	}
	act, _, err = f.client.PrimaryIP.Unassign(ctx, a.PublicNet.IPv4.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.Action.WaitFor(ctx, act); err == nil {
		t.Fatal("the faulted action succeeded")
	}
	got, _, _ := f.client.Server.GetByID(ctx, a.ID)
	if !got.PublicNet.IPv4.IP.Equal(a.PublicNet.IPv4.IP) {
		t.Errorf("after a failed unassign the server has %q, want %s", got.PublicNet.IPv4.IP, a.PublicNet.IPv4.IP)
	}
}

// TestPrimaryIPUpdate: PUT /primary_ips/{id} renames, relabels and sets
// auto_delete; a taken or empty name is refused and changes nothing.
func TestPrimaryIPUpdate(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	a := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	v4, v6 := a.PublicNet.IPv4.ID, a.PublicNet.IPv6.ID
	off := false
	p, _, err := f.client.PrimaryIP.Update(ctx, &hcloud.PrimaryIP{ID: v4}, hcloud.PrimaryIPUpdateOpts{Name: "kept", Labels: &map[string]string{"k": "v"}, AutoDelete: &off})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "kept" || p.Labels["k"] != "v" || p.AutoDelete {
		t.Errorf("after the update: %q %v auto_delete %v", p.Name, p.Labels, p.AutoDelete)
	}
	_, _, err = f.client.PrimaryIP.Update(ctx, &hcloud.PrimaryIP{ID: v6}, hcloud.PrimaryIPUpdateOpts{Name: "kept"})
	wantCode(t, err, "uniqueness_error")
	resp, body := f.do(t, "PUT", "/v1/primary_ips/"+itoa(int(v4)), `{"name":"","labels":{"other":"x"}}`)
	if resp.StatusCode != 422 || !containsCode(body, "invalid_input") {
		t.Errorf("an empty name: %d %s, want 422 invalid_input", resp.StatusCode, body)
	}
	if got, _, _ := f.client.PrimaryIP.GetByID(ctx, v4); got.Name != "kept" || got.Labels["other"] != "" {
		t.Errorf("a refused update changed the primary IP: %q %v", got.Name, got.Labels)
	}
	if _, err := f.client.Server.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := f.client.PrimaryIP.GetByID(ctx, v4); got == nil {
		t.Error("the primary IP whose auto_delete was turned off went with its server")
	}
}
