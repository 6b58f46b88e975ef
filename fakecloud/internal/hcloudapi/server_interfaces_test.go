package hcloudapi

import (
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
	if err == nil {
		err = f.client.Action.WaitFor(ctx, act)
	}
	if err != nil {
		t.Fatal(err)
	}
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
