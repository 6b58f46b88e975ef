package fakecloud

import (
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// newServer creates a server through hcloud-go and waits for its actions.
// testServerType is the server type tests create servers of.
const testServerType = "cx23"

func newServer(t testing.TB, f *fixture, opts hcloud.ServerCreateOpts) *hcloud.Server {
	t.Helper()
	if opts.ServerType == nil {
		opts.ServerType = &hcloud.ServerType{Name: testServerType}
	}
	if opts.Image == nil {
		opts.Image = &hcloud.Image{Name: "ubuntu-24.04"}
	}
	res, _, err := f.client.Server.Create(t.Context(), opts)
	if err != nil {
		t.Fatalf("create server %s: %v", opts.Name, err)
	}
	if err := f.client.Action.WaitFor(t.Context(), append(res.NextActions, res.Action)...); err != nil {
		t.Fatalf("wait for server %s: %v", opts.Name, err)
	}
	s, _, err := f.client.Server.GetByID(t.Context(), res.Server.ID)
	if err != nil || s == nil {
		t.Fatalf("get server %s: %v", opts.Name, err)
	}
	return s
}

func wantCode(t testing.TB, err error, code hcloud.ErrorCode) {
	t.Helper()
	if !hcloud.IsError(err, code) {
		t.Fatalf("got error %v, want API error %s", err, code)
	}
}

func TestServerCreateAndGet(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	net := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.0.0/24")
	off := false
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name: "node-1", ServerType: &hcloud.ServerType{Name: "cpx22"}, Image: &hcloud.Image{Name: "ubuntu-24.04"},
		Location: &hcloud.Location{Name: "nbg1"}, Labels: map[string]string{"role": "worker"},
		Networks: []*hcloud.Network{net}, StartAfterCreate: &off,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.RootPassword == "" {
		t.Error("no root password for a server without SSH keys")
	}
	if len(res.NextActions) != 1 || res.NextActions[0].Command != "attach_to_network" {
		t.Errorf("next_actions = %v, want the network's attachment alone when start_after_create is false", res.NextActions)
	}
	if res.Action.Command != "create_server" {
		t.Errorf("action command %q", res.Action.Command)
	}
	s, _, err := f.client.Server.GetByID(ctx, res.Server.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != hcloud.ServerStatusOff {
		t.Errorf("status %s, want off", s.Status)
	}
	if s.ServerType.Name != "cpx22" || s.Location.Name != "nbg1" || s.Location.NetworkZone != "eu-central" || s.Image.Name != "ubuntu-24.04" {
		t.Errorf("type %s location %s image %s", s.ServerType.Name, s.Location.Name, s.Image.Name)
	}
	if s.PublicNet.IPv4.IP == nil || s.PublicNet.IPv6.Network == nil {
		t.Errorf("public net %+v", s.PublicNet)
	}
	if len(s.PrivateNet) != 1 || !s.PrivateNet[0].IP.Equal(net2ip("10.0.0.2")) || s.PrivateNet[0].MACAddress == "" {
		t.Errorf("private net %+v, want 10.0.0.2 in network %d", s.PrivateNet, net.ID)
	}
	if diff := cmp.Diff(map[string]string{"role": "worker"}, s.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	byName, _, err := f.client.Server.GetByName(ctx, "node-1")
	if err != nil || byName == nil || byName.ID != s.ID {
		t.Errorf("get by name: %v %v", byName, err)
	}
	missing, _, err := f.client.Server.GetByID(ctx, 42)
	if err != nil || missing != nil {
		t.Errorf("unknown server: %v %v, want nil, nil", missing, err)
	}
	pips, err := f.client.PrimaryIP.All(ctx)
	if err != nil || len(pips) != 2 {
		t.Fatalf("primary IPs %d %v, want the server's IPv4 and IPv6", len(pips), err)
	}
}

func net2ip(s string) net.IP { return net.ParseIP(s) }

func TestServerCreateValidation(t *testing.T) {
	f := newFixture(t, Options{})
	newServer(t, f, hcloud.ServerCreateOpts{Name: "taken"})
	tests := []struct {
		name string
		body string
		code string
		want int
	}{
		{"bad hostname", `{"name":"bad_name!","server_type":"cx23","image":"ubuntu-24.04"}`, "invalid_input", 422},
		{"unknown type", `{"name":"a","server_type":"cx999","image":"ubuntu-24.04"}`, "invalid_input", 422},
		{"unknown image", `{"name":"a","server_type":"cx23","image":"windows-95"}`, "invalid_input", 422},
		{"unknown location", `{"name":"a","server_type":"cx23","image":"ubuntu-24.04","location":"mars1"}`, "invalid_input", 422},
		{"reserved label", `{"name":"a","server_type":"cx23","image":"ubuntu-24.04","labels":{"hetzner.cloud/x":"y"}}`, "invalid_input", 422},
		{"unknown network", `{"name":"a","server_type":"cx23","image":"ubuntu-24.04","networks":[999]}`, "invalid_input", 422},
		{"duplicate name", `{"name":"taken","server_type":"cx23","image":"ubuntu-24.04"}`, "uniqueness_error", 409},
		{"wrong type", `{"name":["a"],"server_type":"cx23","image":"ubuntu-24.04"}`, "invalid_input", 422},
		{"malformed", `{"name":`, "json_error", 422},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := f.do(t, "POST", "/v1/servers", tt.body)
			if resp.StatusCode != tt.want || !containsCode(body, tt.code) {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, body, tt.want, tt.code)
			}
		})
	}
}

func TestServerListFiltersSortAndPagination(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	for i := range 60 {
		role := "worker"
		if i%10 == 0 {
			role = "control-plane"
		}
		newServer(t, f, hcloud.ServerCreateOpts{Name: fmt.Sprintf("node-%02d", i), Labels: map[string]string{"role": role, "idx": fmt.Sprint(i)}})
	}
	all, err := f.client.Server.All(ctx)
	if err != nil || len(all) != 60 {
		t.Fatalf("All: %d %v, want 60 across pages", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].ID >= all[i].ID {
			t.Fatalf("default order is not ascending ID at %d", i)
		}
	}
	cp, err := f.client.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "role=control-plane"}})
	if err != nil || len(cp) != 6 {
		t.Fatalf("label selector: %d %v, want 6", len(cp), err)
	}
	notin, err := f.client.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "role notin (worker),idx in (0,10,11)"}})
	if err != nil || len(notin) != 2 {
		t.Fatalf("set selector: %d %v, want 2", len(notin), err)
	}
	byName, err := f.client.Server.AllWithOpts(ctx, hcloud.ServerListOpts{Name: "node-07"})
	if err != nil || len(byName) != 1 || byName[0].Name != "node-07" {
		t.Fatalf("name filter: %v %v", byName, err)
	}
	desc, err := f.client.Server.AllWithOpts(ctx, hcloud.ServerListOpts{Sort: []string{"name:desc"}})
	if err != nil || desc[0].Name != "node-59" || desc[59].Name != "node-00" {
		t.Fatalf("sort name:desc: first %s last %s %v", desc[0].Name, desc[59].Name, err)
	}
	if _, _, err := f.client.Server.Poweroff(ctx, all[3]); err != nil {
		t.Fatal(err)
	}
	off, err := f.client.Server.AllWithOpts(ctx, hcloud.ServerListOpts{Status: []hcloud.ServerStatus{hcloud.ServerStatusOff}})
	if err != nil || len(off) != 1 || off[0].ID != all[3].ID {
		t.Fatalf("status filter: %v %v", off, err)
	}

	page, resp, err := f.client.Server.List(ctx, hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{Page: 2, PerPage: 25}})
	if err != nil || len(page) != 25 || page[0].ID != all[25].ID {
		t.Fatalf("page 2: %d %v", len(page), err)
	}
	p := resp.Meta.Pagination
	if p.Page != 2 || p.PerPage != 25 || p.PreviousPage != 1 || p.NextPage != 3 || p.LastPage != 3 || p.TotalEntries != 60 {
		t.Errorf("pagination meta %+v", p)
	}
	link := resp.Header.Get("Link")
	for _, rel := range []string{`rel="prev"`, `rel="next"`, `rel="last"`} {
		if !containsString(link, rel) {
			t.Errorf("Link header %q lacks %s", link, rel)
		}
	}
	raw, body := f.do(t, "GET", "/v1/servers?per_page=51", "")
	if raw.StatusCode != http.StatusUnprocessableEntity || !containsCode(body, "invalid_input") {
		t.Errorf("per_page=51: %d %s", raw.StatusCode, body)
	}
	raw, body = f.do(t, "GET", "/v1/servers?sort=colour", "")
	if raw.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("bad sort: %d %s", raw.StatusCode, body)
	}
}

func TestServerUpdateAndDelete(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Labels: map[string]string{"x": "1"}})
	other := newServer(t, f, hcloud.ServerCreateOpts{Name: "b"})
	up, _, err := f.client.Server.Update(ctx, s, hcloud.ServerUpdateOpts{Name: "renamed", Labels: map[string]string{"y": "2"}})
	if err != nil || up.Name != "renamed" || cmp.Diff(map[string]string{"y": "2"}, up.Labels) != "" {
		t.Fatalf("update: %+v %v", up, err)
	}
	_, _, err = f.client.Server.Update(ctx, s, hcloud.ServerUpdateOpts{Name: "b"})
	wantCode(t, err, hcloud.ErrorCodeUniquenessError)

	a, _, err := f.client.Server.ChangeProtection(ctx, other, hcloud.ServerChangeProtectionOpts{Delete: hcloud.Ptr(true), Rebuild: hcloud.Ptr(true)})
	if err != nil || f.client.Action.WaitFor(ctx, a) != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.Server.DeleteWithResult(ctx, other)
	wantCode(t, err, hcloud.ErrorCodeProtected)

	res, _, err := f.client.Server.DeleteWithResult(ctx, s)
	if err != nil || res.Action.Command != "delete_server" {
		t.Fatalf("delete: %+v %v", res, err)
	}
	if err := f.client.Action.WaitFor(ctx, res.Action); err != nil {
		t.Fatal(err)
	}
	gone, _, err := f.client.Server.GetByID(ctx, s.ID)
	if err != nil || gone != nil {
		t.Fatalf("deleted server still there: %v %v", gone, err)
	}
	pips, _ := f.client.PrimaryIP.All(ctx)
	if len(pips) != 2 {
		t.Errorf("%d primary IPs after delete, want only the other server's 2", len(pips))
	}
}

func TestServerActions(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.0.0/24")
	run := func(name string, a *hcloud.Action, err error, want hcloud.ServerStatus) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := f.client.Action.WaitFor(ctx, a); err != nil {
			t.Fatalf("%s: wait: %v", name, err)
		}
		got, _, _ := f.client.Server.GetByID(ctx, s.ID)
		if want != "" && got.Status != want {
			t.Fatalf("%s: status %s, want %s", name, got.Status, want)
		}
	}
	a, _, err := f.client.Server.Poweroff(ctx, s)
	run("poweroff", a, err, hcloud.ServerStatusOff)
	a, _, err = f.client.Server.Poweron(ctx, s)
	run("poweron", a, err, hcloud.ServerStatusRunning)
	a, _, err = f.client.Server.Shutdown(ctx, s)
	run("shutdown", a, err, hcloud.ServerStatusOff)
	a, _, err = f.client.Server.Reboot(ctx, s)
	run("reboot of an off server", a, err, hcloud.ServerStatusOff)
	a, _, err = f.client.Server.ChangeType(ctx, s, hcloud.ServerChangeTypeOpts{ServerType: &hcloud.ServerType{Name: "cx33"}, UpgradeDisk: true})
	run("change_type", a, err, "")
	a, _, err = f.client.Server.Poweron(ctx, s)
	run("poweron", a, err, hcloud.ServerStatusRunning)
	_, _, err = f.client.Server.ChangeType(ctx, s, hcloud.ServerChangeTypeOpts{ServerType: &hcloud.ServerType{Name: "cx43"}})
	wantCode(t, err, hcloud.ErrorCodeServerNotStopped)
	a, _, err = f.client.Server.Reset(ctx, s)
	run("reset", a, err, hcloud.ServerStatusRunning)
	a, _, err = f.client.Server.AttachToNetwork(ctx, s, hcloud.ServerAttachToNetworkOpts{Network: n, IP: net2ip("10.0.0.7"), AliasIPs: []net.IP{net2ip("10.0.0.8")}})
	run("attach_to_network", a, err, "")
	_, _, err = f.client.Server.AttachToNetwork(ctx, s, hcloud.ServerAttachToNetworkOpts{Network: n})
	wantCode(t, err, hcloud.ErrorCodeServerAlreadyAttached)
	a, _, err = f.client.Server.ChangeDNSPtr(ctx, s, s.PublicNet.IPv4.IP.String(), hcloud.Ptr("node.example.com"))
	run("change_dns_ptr", a, err, "")

	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	if got.ServerType.Name != "cx33" || got.PrimaryDiskSize != 80 {
		t.Errorf("after change_type: %s disk %d", got.ServerType.Name, got.PrimaryDiskSize)
	}
	if len(got.PrivateNet) != 1 || !got.PrivateNet[0].IP.Equal(net2ip("10.0.0.7")) || len(got.PrivateNet[0].Aliases) != 1 {
		t.Errorf("after attach: %+v", got.PrivateNet)
	}
	if got.PublicNet.IPv4.DNSPtr != "node.example.com" {
		t.Errorf("dns ptr %q", got.PublicNet.IPv4.DNSPtr)
	}
	nw, _, _ := f.client.Network.GetByID(ctx, n.ID)
	if len(nw.Servers) != 1 || nw.Servers[0].ID != s.ID {
		t.Errorf("network servers %+v", nw.Servers)
	}
	a, _, err = f.client.Server.DetachFromNetwork(ctx, s, hcloud.ServerDetachFromNetworkOpts{Network: n})
	run("detach_from_network", a, err, "")
	got, _, _ = f.client.Server.GetByID(ctx, s.ID)
	if len(got.PrivateNet) != 0 {
		t.Errorf("after detach: %+v", got.PrivateNet)
	}
	_, _, err = f.client.Server.DetachFromNetwork(ctx, s, hcloud.ServerDetachFromNetworkOpts{Network: n})
	wantCode(t, err, hcloud.ErrorCodeServerNotAttachedToNetwork)

	acts, err := f.client.Server.Action.All(ctx, hcloud.ActionListOpts{})
	if err != nil || len(acts) < 12 {
		t.Errorf("server actions: %d %v", len(acts), err)
	}
	for _, act := range acts {
		if act.Status != hcloud.ActionStatusSuccess || act.Finished.IsZero() || act.Progress != 100 {
			t.Errorf("action %d %s: %s %d", act.ID, act.Command, act.Status, act.Progress)
		}
		// The description's examples of the network actions name the server
		// and the network; the others name the server alone.
		want := []*hcloud.ActionResource{{ID: s.ID, Type: hcloud.ActionResourceTypeServer}}
		if act.Command == "attach_to_network" || act.Command == "detach_from_network" {
			want = append(want, &hcloud.ActionResource{ID: n.ID, Type: hcloud.ActionResourceTypeNetwork})
		}
		if diff := cmp.Diff(want, act.Resources); diff != "" {
			t.Errorf("%s names (-want +got):\n%s", act.Command, diff)
		}
	}
}

func TestServerLockedWhileActionRuns(t *testing.T) {
	f := newFixture(t, Options{ActionPolls: 2})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	a, _, err := f.client.Server.Poweroff(ctx, s)
	if err != nil || a.Status != hcloud.ActionStatusRunning {
		t.Fatalf("poweroff: %+v %v", a, err)
	}
	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	if got.Status != hcloud.ServerStatusStopping {
		t.Errorf("status while powering off: %s, want stopping", got.Status)
	}
	_, _, err = f.client.Server.Poweron(ctx, s)
	wantCode(t, err, hcloud.ErrorCodeLocked)
	if err := f.client.Action.WaitFor(ctx, a); err != nil {
		t.Fatal(err)
	}
	on, _, err := f.client.Server.Poweron(ctx, s)
	if err != nil {
		t.Fatalf("poweron after the action finished: %v", err)
	}
	// Deleting does not wait for a running action, as the Terraform
	// provider's destroy needs; the action ends with nothing to change.
	if _, _, err := f.client.Server.DeleteWithResult(ctx, s); err != nil {
		t.Fatalf("delete while poweron runs: %v", err)
	}
	if err := f.client.Action.WaitFor(ctx, on); err != nil {
		t.Errorf("the poweron that ran when its server went: %v", err)
	}
	if gone, _, _ := f.client.Server.GetByID(ctx, s.ID); gone != nil {
		t.Errorf("server left: %+v", gone)
	}
}
