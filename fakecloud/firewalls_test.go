package fakecloud

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// cidrs parses CIDRs for a rule.
func cidrs(t *testing.T, s ...string) []net.IPNet {
	t.Helper()
	var out []net.IPNet
	for _, c := range s {
		_, n, err := net.ParseCIDR(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, *n)
	}
	return out
}

// firewallsOn is a server's public_net.firewalls, as "ID:status".
func firewallsOn(t *testing.T, f *fixture, id int64) []string {
	t.Helper()
	s, _, err := f.client.Server.GetByID(t.Context(), id)
	if err != nil || s == nil {
		t.Fatalf("server %d: %v", id, err)
	}
	var out []string
	for _, fw := range s.PublicNet.Firewalls {
		out = append(out, fmt.Sprintf("%d:%s", fw.Firewall.ID, fw.Status))
	}
	return out
}

func TestFirewallRules(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	any4, all := cidrs(t, "0.0.0.0/0"), cidrs(t, "0.0.0.0/0", "::/0")
	res, _, err := f.client.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: "web", Labels: map[string]string{"tier": "web"}, Rules: []hcloud.FirewallRule{
		{Direction: hcloud.FirewallRuleDirectionOut, Protocol: hcloud.FirewallRuleProtocolUDP, Port: hcloud.Ptr("any"), DestinationIPs: any4},
		{Direction: hcloud.FirewallRuleDirectionIn, Protocol: hcloud.FirewallRuleProtocolTCP, Port: hcloud.Ptr("80"), SourceIPs: all, Description: hcloud.Ptr("http")},
		{Direction: hcloud.FirewallRuleDirectionIn, Protocol: hcloud.FirewallRuleProtocolICMP, SourceIPs: cidrs(t, "2A02:1234:10:0100::/64")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	fw := res.Firewall
	if len(res.Actions) != 1 || res.Actions[0].Command != "set_firewall_rules" || res.Actions[0].Status != hcloud.ActionStatusSuccess {
		t.Errorf("create answered actions %+v, want one finished set_firewall_rules", res.Actions)
	}
	var dirs []string
	for _, r := range fw.Rules {
		dirs = append(dirs, string(r.Direction)+" "+string(r.Protocol))
	}
	if strings.Join(dirs, ",") != "in tcp,in icmp,out udp" {
		t.Errorf("rules in the order %v, want the in rules first, each direction as given", dirs)
	}
	resp, body := f.do(t, "GET", "/v1/firewalls/"+itoa(int(fw.ID)), "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"2a02:1234:10:100::/64"`) || !strings.Contains(string(body), `"port":null`) {
		t.Errorf("the IPv6 rule is not canonical, or icmp's port not null: %s", body)
	}

	for _, bad := range []struct{ rule, want string }{
		{`{"direction":"in","protocol":"tcp","port":"80","source_ips":["10.0.0.1/24"]}`, "not the start of the cidr block"},
		{`{"direction":"in","protocol":"tcp","port":"80","source_ips":[]}`, "source_ips needs to have at least one entry"},
		{`{"direction":"out","protocol":"tcp","port":"80","destination_ips":[]}`, "destination_ips needs to have at least one entry"},
		{`{"direction":"in","protocol":"tcp","source_ips":["0.0.0.0/0"]}`, "port"},
		{`{"direction":"in","protocol":"icmp","port":"80","source_ips":["0.0.0.0/0"]}`, "tcp and udp only"},
		{`{"direction":"in","protocol":"tcp","port":"0","source_ips":["0.0.0.0/0"]}`, "not a port"},
		{`{"direction":"in","protocol":"tcp","port":"90-80","source_ips":["0.0.0.0/0"]}`, "not a port"},
		{`{"direction":"in","protocol":"sctp","source_ips":["0.0.0.0/0"]}`, "protocol"},
		{`{"direction":"in","protocol":"gre","source_ips":["0.0.0.0/0"],"destination_ips":["10.0.0.0/8"]}`, "source_ips only"},
		{`{"direction":"in","protocol":"gre","source_ips":["10.0.0.0"]}`, "not a CIDR"},
		{`{"direction":"in","protocol":"gre","source_ips":["0.0.0.0/0"],"description":"` + strings.Repeat("x", 256) + `"}`, "255"},
	} {
		resp, body := f.do(t, "POST", "/v1/firewalls", `{"name":"bad","rules":[`+bad.rule+`]}`)
		if resp.StatusCode != http.StatusUnprocessableEntity && resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), bad.want) {
			t.Errorf("rule %s: %d %s, want invalid_input with %q", bad.rule, resp.StatusCode, body, bad.want)
		}
	}
	many := strings.TrimSuffix(strings.Repeat(`{"direction":"in","protocol":"gre","source_ips":["0.0.0.0/0"]},`, 51), ",")
	if resp, body := f.do(t, "POST", "/v1/firewalls/"+itoa(int(fw.ID))+"/actions/set_rules", `{"rules":[`+many+`]}`); resp.StatusCode < 400 || !strings.Contains(string(body), "50") {
		t.Errorf("set_rules with 51 rules: %d %s", resp.StatusCode, body)
	}
	if resp, body := f.do(t, "POST", "/v1/firewalls", `{"name":"many","rules":[`+many+`]}`); resp.StatusCode < 400 || !strings.Contains(string(body), "at most 50 rules") {
		t.Errorf("create with 51 rules: %d %s", resp.StatusCode, body)
	}
	if _, _, err := f.client.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: "web"}); !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		t.Errorf("a second web: %v, want uniqueness_error", err)
	}

	// Filters, sort, update and delete.
	if _, _, err := f.client.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: "db"}); err != nil {
		t.Fatal(err)
	}
	if got, err := f.client.Firewall.AllWithOpts(ctx, hcloud.FirewallListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "tier=web", PerPage: 1}}); err != nil || len(got) != 1 || got[0].ID != fw.ID {
		t.Errorf("label_selector tier=web: %v %v", got, err)
	}
	resp, body = f.do(t, "GET", "/v1/firewalls?sort=name:asc", "")
	if resp.StatusCode != http.StatusOK || strings.Index(string(body), `"name":"db"`) > strings.Index(string(body), `"name":"web"`) {
		t.Errorf("sort=name:asc: %s", body)
	}
	up, _, err := f.client.Firewall.Update(ctx, fw, hcloud.FirewallUpdateOpts{Name: "web-2", Labels: map[string]string{}})
	if err != nil || up.Name != "web-2" || len(up.Labels) != 0 {
		t.Errorf("update: %+v %v", up, err)
	}
	if _, err := f.client.Firewall.Delete(ctx, fw); err != nil {
		t.Fatal(err)
	}
}

func TestFirewallApplication(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 4 * time.Second})
	ctx := t.Context()
	server := func(name string, labels map[string]string, public bool) *hcloud.Server {
		t.Helper()
		opts := hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}, Labels: labels}
		if !public {
			opts.PublicNet = &hcloud.ServerCreatePublicNet{}
			opts.StartAfterCreate = hcloud.Ptr(false)
		}
		res, _, err := f.client.Server.Create(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		return res.Server
	}
	a, b := server("a", map[string]string{"role": "web"}, true), server("b", nil, true)
	private := server("private", nil, false)
	res, _, err := f.client.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: "fw"})
	if err != nil {
		t.Fatal(err)
	}
	fw := res.Firewall
	if len(res.Actions) != 0 {
		t.Errorf("a firewall without rules or resources answered actions %v", res.Actions)
	}

	// A server directly: pending while apply_firewall runs, then applied.
	acts, _, err := f.client.Firewall.ApplyResources(ctx, fw, []hcloud.FirewallResource{{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: b.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Command != "apply_firewall" || acts[0].Resources[0].ID != fw.ID || acts[0].Resources[1].ID != b.ID {
		t.Fatalf("apply to b: %+v, want one apply_firewall naming the firewall and b", acts)
	}
	if got := firewallsOn(t, f, b.ID); len(got) != 1 || got[0] != fmt.Sprintf("%d:pending", fw.ID) {
		t.Errorf("while apply_firewall runs b shows %v, want pending", got)
	}
	clock.Advance(time.Minute)
	if got := firewallsOn(t, f, b.ID); len(got) != 1 || got[0] != fmt.Sprintf("%d:applied", fw.ID) {
		t.Errorf("after apply_firewall b shows %v, want applied", got)
	}
	for _, bad := range []struct {
		res  hcloud.FirewallResource
		code string
	}{
		{hcloud.FirewallResource{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: b.ID}}, "firewall_already_applied"},
		{hcloud.FirewallResource{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: 1}}, "firewall_resource_not_found"},
		{hcloud.FirewallResource{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: private.ID}}, "private_net_only_server"},
	} {
		if _, _, err := f.client.Firewall.ApplyResources(ctx, fw, []hcloud.FirewallResource{bad.res}); !hcloud.IsError(err, hcloud.ErrorCode(bad.code)) {
			t.Errorf("apply to %+v: %v, want %s", bad.res.Server, err, bad.code)
		}
	}
	resp, _ := f.do(t, "POST", "/v1/firewalls/"+itoa(int(fw.ID))+"/actions/apply_to_resources", `{"apply_to":[{"type":"server","server":{"id":1}}]}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("apply to a missing server: %d, want 404 as the description has it", resp.StatusCode)
	}

	// A label selector follows the servers.
	sel := hcloud.FirewallResource{Type: hcloud.FirewallResourceTypeLabelSelector, LabelSelector: &hcloud.FirewallResourceLabelSelector{Selector: "role=web"}}
	acts, _, err = f.client.Firewall.ApplyResources(ctx, fw, []hcloud.FirewallResource{sel})
	if err != nil || len(acts) != 1 || acts[0].Resources[1].ID != a.ID {
		t.Fatalf("apply to role=web: %+v %v, want one apply_firewall for a", acts, err)
	}
	clock.Advance(time.Minute)
	c := server("c", map[string]string{"role": "web"}, true)
	got, _, _ := f.client.Firewall.GetByID(ctx, fw.ID)
	if len(got.AppliedTo) != 2 || len(got.AppliedTo[1].AppliedToResources) != 2 || got.AppliedTo[1].AppliedToResources[1].Server.ID != c.ID {
		t.Errorf("applied_to %+v, want b and role=web with a and c", got.AppliedTo)
	}
	if on := firewallsOn(t, f, c.ID); len(on) != 1 {
		t.Errorf("a new server of role web shows firewalls %v, want the firewall", on)
	}
	if _, _, err := f.client.Server.Update(ctx, c, hcloud.ServerUpdateOpts{Labels: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if on := firewallsOn(t, f, c.ID); len(on) != 0 {
		t.Errorf("once its label is gone c shows firewalls %v", on)
	}
	if _, _, err := f.client.Firewall.RemoveResources(ctx, fw, []hcloud.FirewallResource{{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: a.ID}}}); !hcloud.IsError(err, "firewall_managed_by_label_selector") {
		t.Errorf("remove a server the selector applies to: %v, want firewall_managed_by_label_selector", err)
	}
	if _, err := f.client.Firewall.Delete(ctx, fw); !hcloud.IsError(err, hcloud.ErrorCodeResourceInUse) {
		t.Errorf("delete an applied firewall: %v, want resource_in_use", err)
	}

	// set_rules applies to each server the firewall reaches.
	acts, _, err = f.client.Firewall.SetRules(ctx, fw, hcloud.FirewallSetRulesOpts{Rules: []hcloud.FirewallRule{
		{Direction: hcloud.FirewallRuleDirectionIn, Protocol: hcloud.FirewallRuleProtocolTCP, Port: hcloud.Ptr("22"), SourceIPs: cidrs(t, "10.0.0.0/8")}}})
	if err != nil || len(acts) != 3 || acts[0].Command != "set_firewall_rules" || acts[1].Command != "apply_firewall" {
		t.Fatalf("set_rules: %+v %v, want set_firewall_rules and an apply_firewall for a and b", acts, err)
	}
	clock.Advance(time.Minute)

	// Removing takes the firewall off; then it can go.
	acts, _, err = f.client.Firewall.RemoveResources(ctx, fw, []hcloud.FirewallResource{sel, {Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: b.ID}}})
	if err != nil || len(acts) != 2 || acts[0].Command != "remove_firewall" {
		t.Fatalf("remove all: %+v %v, want a remove_firewall for a and b", acts, err)
	}
	clock.Advance(time.Minute)
	if on := firewallsOn(t, f, b.ID); len(on) != 0 {
		t.Errorf("after the removal b shows %v", on)
	}
	if _, _, err := f.client.Firewall.RemoveResources(ctx, fw, []hcloud.FirewallResource{sel}); !hcloud.IsError(err, "firewall_resource_not_found") {
		t.Errorf("remove a selector that is not applied: %v, want firewall_resource_not_found", err)
	}
	if _, err := f.client.Firewall.Delete(ctx, fw); err != nil {
		t.Errorf("delete once applied to nothing: %v", err)
	}
}

func TestFirewallsOnServerOrders(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	var fws []*hcloud.Firewall
	for i := range 6 {
		res, _, err := f.client.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: fmt.Sprintf("fw-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		fws = append(fws, res.Firewall)
	}
	order := func(name string, with ...*hcloud.Firewall) (hcloud.ServerCreateResult, error) {
		opts := hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}}
		for _, fw := range with {
			opts.Firewalls = append(opts.Firewalls, &hcloud.ServerCreateFirewall{Firewall: *fw})
		}
		res, _, err := f.client.Server.Create(ctx, opts)
		return res, err
	}
	res, err := order("a", fws[0], fws[1])
	if err != nil {
		t.Fatal(err)
	}
	applies := 0
	for _, next := range res.NextActions {
		if next.Command == "apply_firewall" {
			applies++
		}
	}
	if on := firewallsOn(t, f, res.Server.ID); applies != 2 || len(on) != 2 {
		t.Errorf("a server ordered with two firewalls: %d apply_firewall, shows %v", applies, on)
	}
	if _, err := order("b", fws...); !hcloud.IsError(err, hcloud.ErrorCodeResourceLimitExceeded) {
		t.Errorf("a server ordered with six firewalls: %v, want resource_limit_exceeded", err)
	}
	if _, err := order("c", &hcloud.Firewall{ID: 1}); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("a server ordered with a missing firewall: %v, want invalid_input", err)
	}

	// A deleted server leaves the firewalls applied to it.
	del, _, err := f.client.Server.DeleteWithResult(ctx, res.Server)
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, del.Action, nil)
	if got, _, _ := f.client.Firewall.GetByID(ctx, fws[0].ID); len(got.AppliedTo) != 0 {
		t.Errorf("after its server's deletion the firewall is applied to %+v", got.AppliedTo)
	}
	if _, err := f.client.Firewall.Delete(ctx, fws[0]); err != nil {
		t.Errorf("delete the firewall then: %v", err)
	}
}

// TestFirewallActionsUndone: a failed apply_firewall takes its server
// off the firewall again, and a failed set_firewall_rules puts the old
// rules back.
func TestFirewallActionsUndone(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 4 * time.Second})
	ctx := t.Context()
	created, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "a", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	res, _, err := f.client.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: "fw", Rules: []hcloud.FirewallRule{
		{Direction: hcloud.FirewallRuleDirectionIn, Protocol: hcloud.FirewallRuleProtocolICMP, SourceIPs: cidrs(t, "0.0.0.0/0")}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"apply_firewall", "set_firewall_rules"} {
		if _, err := f.fc.AddActionFault(ActionFault{Command: command, Count: 1, ErrorCode: "action_failed"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := f.client.Firewall.ApplyResources(ctx, res.Firewall, []hcloud.FirewallResource{{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: created.Server.ID}}}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Firewall.GetByID(ctx, res.Firewall.ID); len(got.AppliedTo) != 0 {
		t.Errorf("after the failed apply the firewall is applied to %+v", got.AppliedTo)
	}
	if _, _, err := f.client.Firewall.SetRules(ctx, res.Firewall, hcloud.FirewallSetRulesOpts{Rules: []hcloud.FirewallRule{}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Firewall.SetRules(ctx, res.Firewall, hcloud.FirewallSetRulesOpts{Rules: []hcloud.FirewallRule{}}); !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("set_rules while set_firewall_rules runs: %v, want locked", err)
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Firewall.GetByID(ctx, res.Firewall.ID); len(got.Rules) != 1 {
		t.Errorf("after the failed set_rules the firewall has rules %+v, want the old one", got.Rules)
	}
}

// TestFirewallsSurviveExport: a seed's firewalls, with their rules,
// servers and selectors, come back from an export.
func TestFirewallsSurviveExport(t *testing.T) {
	_, _, back := roundTrip(t, `
servers: [{name: web-1, labels: {role: web}}, {name: db-1}]
firewalls:
  - name: edge
    rules: [{direction: in, protocol: tcp, port: "443", source_ips: [0.0.0.0/0, "::/0"]}]
    servers: [db-1]
    label_selectors: [role=web]
`)
	for _, name := range []string{"web-1", "db-1"} {
		if rec := answer(t, back, "GET", "/v1/servers?name="+name, nil); !strings.Contains(rec.Body.String(), `"status":"applied"`) {
			t.Errorf("restored %s shows no applied firewall: %s", name, rec.Body)
		}
	}
	w2, _ := ParseWorld([]byte(`firewalls: [{name: x, servers: [nowhere]}]`))
	if err := New(Options{}).Seed(w2); err == nil || !strings.Contains(err.Error(), `server "nowhere"`) {
		t.Errorf("a seed naming a missing server: %v", err)
	}
}

// TestFirewallUndoKnowsWhatIsWhose: a failed apply does not take back a
// later apply of the same server, a failed removal puts back no firewall
// a server has no room for, and a server takes no sixth firewall through
// a label selector, ordered or relabelled.
func TestFirewallUndoKnowsWhatIsWhose(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now, ActionDuration: 10 * time.Second})
	ctx := t.Context()
	created, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "s", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	s := created.Server
	on := []hcloud.FirewallResource{{Type: hcloud.FirewallResourceTypeServer, Server: &hcloud.FirewallResourceServer{ID: s.ID}}}
	var fws []*hcloud.Firewall
	for i := range 6 {
		res, _, err := f.client.Firewall.Create(ctx, hcloud.FirewallCreateOpts{Name: fmt.Sprintf("fw-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		fws = append(fws, res.Firewall)
	}

	// apply (fails), remove, apply again: the last apply stands.
	if _, err := f.fc.AddActionFault(ActionFault{Command: "apply_firewall", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error { _, _, err := f.client.Firewall.ApplyResources(ctx, fws[0], on); return err },
		func() error { _, _, err := f.client.Firewall.RemoveResources(ctx, fws[0], on); return err },
		func() error { _, _, err := f.client.Firewall.ApplyResources(ctx, fws[0], on); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Minute)
	if got, _, _ := f.client.Firewall.GetByID(ctx, fws[0].ID); len(got.AppliedTo) != 1 {
		t.Errorf("after apply (failed), remove, apply: applied to %+v, want the server", got.AppliedTo)
	}

	// Five applied; one removed by an action that fails; a sixth takes
	// its place: the failure puts nothing back beyond five.
	for _, fw := range fws[1:5] {
		if _, _, err := f.client.Firewall.ApplyResources(ctx, fw, on); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Minute)
	if _, err := f.fc.AddActionFault(ActionFault{Command: "remove_firewall", Count: 1, ErrorCode: "action_failed"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Firewall.RemoveResources(ctx, fws[0], on); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Firewall.ApplyResources(ctx, fws[5], on); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if got := firewallsOn(t, f, s.ID); len(got) != 5 {
		t.Errorf("the server shows %d firewalls, want 5", len(got))
	}
	if data, err := f.fc.Export(); err != nil || New(Options{}).Import(data) != nil {
		t.Errorf("the world does not export and import: %v", err)
	}

	// Through label selectors: a sixth firewall is refused on an order
	// and on a relabel.
	for _, fw := range fws[:5] {
		if _, _, err := f.client.Firewall.ApplyResources(ctx, fw, []hcloud.FirewallResource{{Type: hcloud.FirewallResourceTypeLabelSelector,
			LabelSelector: &hcloud.FirewallResourceLabelSelector{Selector: "role=web"}}}); err != nil {
			t.Fatal(err)
		}
	}
	sel := []hcloud.FirewallResource{{Type: hcloud.FirewallResourceTypeLabelSelector, LabelSelector: &hcloud.FirewallResourceLabelSelector{Selector: "tier=edge"}}}
	if _, _, err := f.client.Firewall.ApplyResources(ctx, fws[5], sel); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "web", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"},
		Labels: map[string]string{"role": "web", "tier": "edge"}}); !hcloud.IsError(err, hcloud.ErrorCodeResourceLimitExceeded) {
		t.Errorf("a server whose labels six firewalls match: %v, want resource_limit_exceeded", err)
	}
	web, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "web", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"},
		Labels: map[string]string{"role": "web"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, _, err := f.client.Server.Update(ctx, web.Server, hcloud.ServerUpdateOpts{Labels: map[string]string{"role": "web", "tier": "edge"}}); !hcloud.IsError(err, hcloud.ErrorCodeResourceLimitExceeded) {
		t.Errorf("relabelling a server to six firewalls: %v, want resource_limit_exceeded", err)
	}
}
