package fakecloud

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// serverIn creates a running server in a location (a CCX 13, sold in
// every location).
func serverIn(t *testing.T, f *fixture, name, location string) *hcloud.Server {
	t.Helper()
	res, _, err := f.client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "ccx13"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Location: &hcloud.Location{Name: location}})
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, res.Action, nil)
	return res.Server
}

// floatingIPsOn is what a server's view lists under public_net.floating_ips.
func floatingIPsOn(t *testing.T, f *fixture, id int64) []int64 {
	t.Helper()
	s, _, err := f.client.Server.GetByID(t.Context(), id)
	if err != nil || s == nil {
		t.Fatalf("server %d: %v", id, err)
	}
	var out []int64
	for _, fip := range s.PublicNet.FloatingIPs {
		out = append(out, fip.ID)
	}
	return out
}

func TestFloatingIPLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	name, desc := "web", "front door"
	res, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, Name: &name, Description: &desc,
		HomeLocation: &hcloud.Location{Name: "nbg1"}, Labels: map[string]string{"tier": "web"}})
	if err != nil {
		t.Fatal(err)
	}
	v4 := res.FloatingIP
	if res.Action != nil || v4.Name != "web" || v4.Description != desc || v4.HomeLocation.Name != "nbg1" || v4.Server != nil || v4.Blocked ||
		v4.IP == nil || v4.IP.To4() == nil || v4.DNSPtrForIP(v4.IP) != "static."+reverse(v4.IP.String())+".clients.your-server.de" {
		t.Errorf("created %+v with action %v, want an unassigned IPv4 in nbg1 with the default reverse DNS", v4, res.Action)
	}
	unnamed, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv6, HomeLocation: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	v6 := unnamed.FloatingIP
	if v6.Name == "" || v6.Network == nil || v6.Network.String() != v6.IP.String()+"/64" || len(v6.DNSPtr) != 0 {
		t.Errorf("an unnamed IPv6 floating IP: %+v, want a name, a /64 and no reverse DNS", v6)
	}
	if _, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, Name: &name, HomeLocation: &hcloud.Location{Name: "fsn1"}}); !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		t.Errorf("a second web: %v, want uniqueness_error", err)
	}
	if resp, body := f.do(t, "POST", "/v1/floating_ips", `{"type": "ipv4"}`); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "home_location") {
		t.Errorf("neither server nor home_location: %d %s, want invalid_input naming home_location", resp.StatusCode, body)
	}
	if _, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, HomeLocation: &hcloud.Location{Name: "mars1"}}); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("home_location mars1: %v, want invalid_input", err)
	}

	// Filters, sort and pages.
	byLabel, err := f.client.FloatingIP.AllWithOpts(ctx, hcloud.FloatingIPListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "tier=web"}})
	if err != nil || len(byLabel) != 1 || byLabel[0].ID != v4.ID {
		t.Errorf("label_selector tier=web: %v %v, want web", byLabel, err)
	}
	byName, _, err := f.client.FloatingIP.GetByName(ctx, v6.Name)
	if err != nil || byName == nil || byName.ID != v6.ID {
		t.Errorf("by name %s: %v %v", v6.Name, byName, err)
	}
	paged, err := f.client.FloatingIP.AllWithOpts(ctx, hcloud.FloatingIPListOpts{ListOpts: hcloud.ListOpts{PerPage: 1}})
	if err != nil || len(paged) != 2 {
		t.Errorf("all one per page: %v %v, want 2", paged, err)
	}
	resp, body := f.do(t, "GET", "/v1/floating_ips?sort=id:desc", "")
	if resp.StatusCode != http.StatusOK || strings.Index(string(body), `"name":"web"`) < strings.Index(string(body), `"name":"`+v6.Name+`"`) {
		t.Errorf("sort=id:desc: %d %s", resp.StatusCode, body)
	}

	// Update renames, relabels and describes; null clears the description.
	up, _, err := f.client.FloatingIP.Update(ctx, v4, hcloud.FloatingIPUpdateOpts{Name: "web-2", Description: "moved", Labels: map[string]string{}})
	if err != nil || up.Name != "web-2" || up.Description != "moved" || len(up.Labels) != 0 {
		t.Errorf("update: %+v %v", up, err)
	}
	resp, body = f.do(t, "PUT", "/v1/floating_ips/"+itoa(int(v4.ID)), `{"description": null}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"description":null`) || !strings.Contains(string(body), `"name":"web-2"`) {
		t.Errorf("description null: %d %s", resp.StatusCode, body)
	}

	// Protection holds a delete back; delete removes and frees the address.
	act, _, err := f.client.FloatingIP.ChangeProtection(ctx, v4, hcloud.FloatingIPChangeProtectionOpts{Delete: hcloud.Ptr(true)})
	if err != nil || act.Command != "change_protection" {
		t.Fatalf("change_protection: %+v %v", act, err)
	}
	f.waitAction(t, act, nil)
	if _, err := f.client.FloatingIP.Delete(ctx, v4); !hcloud.IsError(err, hcloud.ErrorCodeProtected) {
		t.Errorf("delete a protected floating IP: %v, want protected", err)
	}
	act, _, _ = f.client.FloatingIP.ChangeProtection(ctx, v4, hcloud.FloatingIPChangeProtectionOpts{Delete: hcloud.Ptr(false)})
	f.waitAction(t, act, nil)
	if _, err := f.client.FloatingIP.Delete(ctx, v4); err != nil {
		t.Fatal(err)
	}
	if got, _, err := f.client.FloatingIP.GetByID(ctx, v4.ID); err != nil || got != nil {
		t.Errorf("after delete: %v %v, want not found", got, err)
	}
}

func TestFloatingIPAssignment(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	a, b, far := serverIn(t, f, "a", "fsn1"), serverIn(t, f, "b", "nbg1"), serverIn(t, f, "far", "ash")
	res, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, Server: a})
	if err != nil {
		t.Fatal(err)
	}
	fip := res.FloatingIP
	if res.Action == nil || res.Action.Command != "assign_floating_ip" || fip.Server == nil || fip.Server.ID != a.ID || fip.HomeLocation.Name != "fsn1" {
		t.Fatalf("created on a server: %+v with %+v, want it assigned to a, homed in fsn1", fip, res.Action)
	}
	f.waitAction(t, res.Action, nil)
	if got := floatingIPsOn(t, f, a.ID); !slices.Equal(got, []int64{fip.ID}) {
		t.Errorf("server a lists floating IPs %v, want [%d]", got, fip.ID)
	}
	if _, _, err := f.client.FloatingIP.Assign(ctx, fip, a); !hcloud.IsError(err, "floating_ip_assigned") {
		t.Errorf("assign to the server that has it: %v, want floating_ip_assigned", err)
	}
	if _, _, err := f.client.FloatingIP.Assign(ctx, fip, far); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("assign to a server in us-east: %v, want invalid_input", err)
	}

	// One assign moves it; the action names the server and the floating IP.
	act, _, err := f.client.FloatingIP.Assign(ctx, fip, b)
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, act, nil)
	if act.Command != "assign_floating_ip" || len(act.Resources) != 2 || act.Resources[0].ID != b.ID || act.Resources[1].ID != fip.ID {
		t.Errorf("move action %+v, want assign_floating_ip naming server b and the floating IP", act)
	}
	if on, onB := floatingIPsOn(t, f, a.ID), floatingIPsOn(t, f, b.ID); len(on) != 0 || !slices.Equal(onB, []int64{fip.ID}) {
		t.Errorf("after the move a lists %v and b %v", on, onB)
	}
	listed, _, err := f.client.FloatingIP.Action.List(ctx, hcloud.ActionListOpts{})
	if err != nil || len(listed) != 2 {
		t.Errorf("GET /floating_ips/actions: %d actions %v, want the two assigns", len(listed), err)
	}

	act, _, err = f.client.FloatingIP.Unassign(ctx, fip)
	if err != nil || act.Command != "unassign_floating_ip" {
		t.Fatalf("unassign: %+v %v", act, err)
	}
	f.waitAction(t, act, nil)
	if got, _, _ := f.client.FloatingIP.GetByID(ctx, fip.ID); got.Server != nil {
		t.Errorf("after unassign it names server %d", got.Server.ID)
	}
	if _, _, err := f.client.FloatingIP.Unassign(ctx, fip); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("unassign an unassigned floating IP: %v, want invalid_input", err)
	}

	// An assigned floating IP is not deleted; a deleted server's are
	// unassigned and stay.
	act, _, _ = f.client.FloatingIP.Assign(ctx, fip, b)
	f.waitAction(t, act, nil)
	if _, err := f.client.FloatingIP.Delete(ctx, fip); !hcloud.IsError(err, "must_be_unassigned") {
		t.Errorf("delete an assigned floating IP: %v, want must_be_unassigned", err)
	}
	del, _, err := f.client.Server.DeleteWithResult(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, del.Action, nil)
	if got, _, _ := f.client.FloatingIP.GetByID(ctx, fip.ID); got == nil || got.Server != nil {
		t.Errorf("after its server's deletion: %+v, want it kept and unassigned", got)
	}
}

func TestFloatingIPReverseDNS(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	loc := &hcloud.Location{Name: "fsn1"}
	r4, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, HomeLocation: loc})
	if err != nil {
		t.Fatal(err)
	}
	r6, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv6, HomeLocation: loc})
	if err != nil {
		t.Fatal(err)
	}
	v4, v6 := r4.FloatingIP, r6.FloatingIP
	set := func(fip *hcloud.FloatingIP, ip string, ptr *string) error {
		act, _, err := f.client.FloatingIP.ChangeDNSPtr(ctx, fip, ip, ptr)
		if err == nil {
			f.waitAction(t, act, nil)
		}
		return err
	}
	get := func(fip *hcloud.FloatingIP) *hcloud.FloatingIP {
		got, _, err := f.client.FloatingIP.GetByID(ctx, fip.ID)
		if err != nil || got == nil {
			t.Fatalf("floating IP %d: %v", fip.ID, err)
		}
		return got
	}
	if err := set(v4, v4.IP.String(), hcloud.Ptr("www.example.com")); err != nil || get(v4).DNSPtrForIP(v4.IP) != "www.example.com" {
		t.Errorf("set the IPv4's name: %v, now %q", err, get(v4).DNSPtrForIP(v4.IP))
	}
	if err := set(v4, v4.IP.String(), nil); err != nil || !strings.HasPrefix(get(v4).DNSPtrForIP(v4.IP), "static.") {
		t.Errorf("reset the IPv4's name: %v, now %q", err, get(v4).DNSPtrForIP(v4.IP))
	}
	if err := set(v4, "192.0.2.1", hcloud.Ptr("x.example.com")); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("another address: %v, want invalid_input", err)
	}
	host := v6.IP.String() + "1"
	if err := set(v6, host, hcloud.Ptr("v6.example.com")); err != nil || len(get(v6).DNSPtr) != 1 || get(v6).DNSPtr[host] != "v6.example.com" {
		t.Errorf("name an address of the /64: %v, now %v", err, get(v6).DNSPtr)
	}
	if err := set(v6, "2001:db8:ffff::1", hcloud.Ptr("x.example.com")); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("an address outside the /64: %v, want invalid_input", err)
	}
	if err := set(v6, host, nil); err != nil || len(get(v6).DNSPtr) != 0 {
		t.Errorf("remove the name: %v, now %v", err, get(v6).DNSPtr)
	}
}

// TestFloatingIPActionUndone: a failed assign puts the floating IP back
// where it was, and holds its server while it runs.
func TestFloatingIPActionUndone(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 10 * time.Second})
	ctx := t.Context()
	created, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	res, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, HomeLocation: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.fc.AddActionFault(ActionFault{Command: "assign_floating_ip", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	act, _, err := f.client.FloatingIP.Assign(ctx, res.FloatingIP, created.Server)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.Poweroff(ctx, created.Server); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("power off while the assign runs: %v, want locked", err)
	}
	if _, _, err := f.client.FloatingIP.Unassign(ctx, res.FloatingIP); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("unassign while the assign runs: %v, want locked", err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Action.GetByID(ctx, act.ID); got.Status != hcloud.ActionStatusError {
		t.Fatalf("action %+v, want error", got)
	}
	if got, _, _ := f.client.FloatingIP.GetByID(ctx, res.FloatingIP.ID); got.Server != nil {
		t.Errorf("after the failed assign it names server %d", got.Server.ID)
	}
	if on := floatingIPsOn(t, f, created.Server.ID); len(on) != 0 {
		t.Errorf("after the failed assign the server lists %v", on)
	}
}

// TestFloatingIPsSurviveExport: a seed assigns, protects and blocks
// floating IPs; they come back from an export, and a snapshot that gives
// one address twice is refused.
func TestFloatingIPsSurviveExport(t *testing.T) {
	fc, data, back := roundTrip(t, `
servers: [{name: web-1}]
floating_ips:
  - {name: vip, type: ipv4, server: web-1, protected: true}
  - {name: spare, type: ipv6, home_location: hel1, blocked: true, description: later}
`)
	rec := answer(t, back, "GET", "/v1/floating_ips?name=vip", nil)
	if !strings.Contains(rec.Body.String(), `"protection":{"delete":true}`) || strings.Contains(rec.Body.String(), `"server":null`) {
		t.Errorf("restored vip: %s", rec.Body)
	}
	rec = answer(t, back, "GET", "/v1/floating_ips?name=spare", nil)
	if !strings.Contains(rec.Body.String(), `"blocked":true`) || !strings.Contains(rec.Body.String(), `"name":"hel1"`) {
		t.Errorf("restored spare: %s", rec.Body)
	}
	rec = answer(t, back, "GET", "/v1/servers?name=web-1", nil)
	if strings.Contains(rec.Body.String(), `"floating_ips":[]`) {
		t.Errorf("the restored server lists no floating IP: %s", rec.Body)
	}

	twice := strings.Replace(string(data), `"floating_ip": [`, `"floating_ip": [{"id": 1, "name": "copy", "description": null, "created": "2026-01-01T00:00:00Z", "ip": "`+
		ipOf(t, fc, "vip")+`", "type": "ipv4", "server": null, "dns_ptr": [], "home_location": {"id": 1, "name": "fsn1", "description": "", "country": "", "city": "", "latitude": 0, "longitude": 0, "network_zone": "eu-central"}, "blocked": false, "protection": {"delete": false}, "labels": {}}, `, 1)
	if twice == string(data) {
		t.Fatal("the export has no floating_ip list to break")
	}
	if err := New(Options{}).Import([]byte(twice)); err == nil || !strings.Contains(err.Error(), "is also held by") {
		t.Errorf("import of one address twice: %v, want an error naming the holders", err)
	}
	w2, _ := ParseWorld([]byte(`floating_ips: [{name: x, type: ipv4, server: nowhere}]`))
	if err := New(Options{}).Seed(w2); err == nil || !strings.Contains(err.Error(), `server "nowhere"`) {
		t.Errorf("a seed naming a missing server: %v", err)
	}
}

// ipOf is the address of the floating IP with the name.
func ipOf(t *testing.T, fc *Server, name string) string {
	t.Helper()
	rec := answer(t, fc, "GET", "/v1/floating_ips?name="+name, nil)
	body := rec.Body.String()
	i := strings.Index(body, `"ip":"`)
	if i < 0 {
		t.Fatalf("floating IP %s: %s", name, body)
	}
	rest := body[i+len(`"ip":"`):]
	return rest[:strings.Index(rest, `"`)]
}

// reverse is an IPv4's octets in reverse order, as its reverse DNS name
// has them.
func reverse(ip string) string {
	parts := strings.Split(ip, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// TestFloatingIPLockEvent: a lock event holds a floating IP as it holds
// any kind's resource.
func TestFloatingIPLockEvent(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	ctx := t.Context()
	res, _, err := f.client.FloatingIP.Create(ctx, hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, HomeLocation: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.fc.Apply(Event{Type: "lock", Resource: "floating_ip", ID: res.FloatingIP.ID, For: Duration(30 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.FloatingIP.ChangeProtection(ctx, res.FloatingIP, hcloud.FloatingIPChangeProtectionOpts{Delete: hcloud.Ptr(true)}); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("change_protection while locked: %v, want locked", err)
	}
	if _, err := f.client.FloatingIP.Delete(ctx, res.FloatingIP); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("delete while locked: %v, want locked", err)
	}
	clock.Advance(time.Minute)
	if _, err := f.client.FloatingIP.Delete(ctx, res.FloatingIP); err != nil {
		t.Errorf("delete once the lock ended: %v", err)
	}
	if err := f.fc.Apply(Event{Type: "lock", Resource: "storage_box", ID: 1, For: Duration(time.Second)}); err == nil || !strings.Contains(err.Error(), "floating_ip") {
		t.Errorf("a lock on what is no kind: %v, want an error listing the kinds", err)
	}
}

// TestFloatingIPCreatedOnAServerUndone: a floating IP created on a server
// whose assign fails is left unassigned.
func TestFloatingIPCreatedOnAServerUndone(t *testing.T) {
	f := newFixture(t, Options{})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	if _, err := f.fc.AddActionFault(ActionFault{Command: "assign_floating_ip", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	res, _, err := f.client.FloatingIP.Create(t.Context(), hcloud.FloatingIPCreateOpts{Type: hcloud.FloatingIPTypeIPv4, Server: s})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action == nil || res.Action.Status != hcloud.ActionStatusError {
		t.Fatalf("create answered %+v, want the failed assign", res.Action)
	}
	if got, _, _ := f.client.FloatingIP.GetByID(t.Context(), res.FloatingIP.ID); got == nil || got.Server != nil {
		t.Errorf("after the failed assign: %+v, want it unassigned", got)
	}
}
