package fakecloud

import (
	"net"
	"slices"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestServerWithoutInterfaces: a server with no public IP and no network
// may be created stopped, as the Terraform provider creates a bastion's
// hosts, and attached to a network after; it cannot start before, nor be
// created started.
func TestServerWithoutInterfaces(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	noPublic := &hcloud.ServerCreatePublicNet{EnableIPv4: false, EnableIPv6: false}
	opts := hcloud.ServerCreateOpts{Name: "host", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}, PublicNet: noPublic}
	_, _, err := f.client.Server.Create(ctx, opts)
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	if all, _ := f.client.Server.All(ctx); len(all) != 0 {
		t.Fatalf("%d servers after a refused create", len(all))
	}

	opts.StartAfterCreate = hcloud.Ptr(false)
	res, _, err := f.client.Server.Create(ctx, opts)
	if err != nil {
		t.Fatalf("a stopped server without interfaces: %v", err)
	}
	if err := f.client.Action.WaitFor(ctx, res.Action); err != nil {
		t.Fatal(err)
	}
	s := res.Server
	_, _, err = f.client.Server.Poweron(ctx, s)
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)

	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	act, _, err := f.client.Server.AttachToNetwork(ctx, s, hcloud.ServerAttachToNetworkOpts{Network: n})
	f.waitAction(t, act, err)
	act, _, err = f.client.Server.Poweron(ctx, s)
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatalf("poweron with a network: %v", err)
	}
	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	if got.Status != hcloud.ServerStatusRunning || got.PublicNet.IPv4.IP != nil || len(got.PrivateNet) != 1 {
		t.Errorf("server %s, public %v, private %+v; want running on its network alone", got.Status, got.PublicNet.IPv4.IP, got.PrivateNet)
	}
}

// TestServerAliasIPs: change_alias_ips replaces a server's alias IPs in a
// network; the old ones are free again, and addresses taken, reserved or
// outside the subnets are refused with nothing changed.
func TestServerAliasIPs(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	a := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	b := newServer(t, f, hcloud.ServerCreateOpts{Name: "b", Networks: []*hcloud.Network{n}})
	attach := func(s *hcloud.Server, opts hcloud.ServerAttachToNetworkOpts) {
		t.Helper()
		act, _, err := f.client.Server.AttachToNetwork(ctx, s, opts)
		f.waitAction(t, act, err)
	}
	attach(a, hcloud.ServerAttachToNetworkOpts{Network: n, IP: net.ParseIP("10.0.1.5"), AliasIPs: []net.IP{net.ParseIP("10.0.1.6"), net.ParseIP("10.0.1.7")}})
	change := func(s *hcloud.Server, ips ...string) error {
		var aliases []net.IP
		for _, ip := range ips {
			aliases = append(aliases, net.ParseIP(ip))
		}
		act, _, err := f.client.Server.ChangeAliasIPs(ctx, s, hcloud.ServerChangeAliasIPsOpts{Network: n, AliasIPs: aliases})
		if err == nil {
			err = f.client.Action.WaitFor(ctx, act)
		}
		return err
	}
	aliases := func(s *hcloud.Server) []string {
		got, _, _ := f.client.Server.GetByID(ctx, s.ID)
		var out []string
		for _, ip := range got.PrivateNet[0].Aliases {
			out = append(out, ip.String())
		}
		return out
	}
	if err := change(a, "10.0.1.7", "10.0.1.8"); err != nil {
		t.Fatal(err)
	}
	if got := aliases(a); !slices.Equal(got, []string{"10.0.1.7", "10.0.1.8"}) {
		t.Errorf("aliases %v, want 10.0.1.7 10.0.1.8", got)
	}
	// 10.0.1.6 was let go: b may take it.
	if err := change(b, "10.0.1.6"); err != nil {
		t.Errorf("a released alias for another server: %v", err)
	}
	for _, bad := range [][]string{{"10.0.1.8"}, {"10.0.0.1"}, {"10.0.1.255"}, {"10.0.2.9"}, {"10.0.1.5"}, {"10.0.1.9", "10.0.1.9"}, {"fd00::1"}} {
		if err := change(b, bad...); err == nil {
			t.Errorf("aliases %v accepted", bad)
		}
	}
	if got := aliases(b); !slices.Equal(got, []string{"10.0.1.6"}) {
		t.Errorf("b's aliases after refused changes: %v", got)
	}
	// Emptied, and refused for a network the server is not in.
	if err := change(a); err != nil || len(aliases(a)) != 0 {
		t.Errorf("aliases emptied: %v %v", err, aliases(a))
	}
	other := newNetwork(t, f, "other", "10.1.0.0/16", "10.1.1.0/24")
	_, _, err := f.client.Server.ChangeAliasIPs(ctx, a, hcloud.ServerChangeAliasIPsOpts{Network: other, AliasIPs: []net.IP{}})
	wantCode(t, err, hcloud.ErrorCodeServerNotAttachedToNetwork)
}
