package fakecloud

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestServerOnGivenPrimaryIPs: a server created on primary IPs the user
// made gets their addresses and their location, and the primary IPs are
// assigned to it; each refusal the description lists changes nothing.
func TestServerOnGivenPrimaryIPs(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	mk := func(name string, kind hcloud.PrimaryIPType, loc string) *hcloud.PrimaryIP {
		t.Helper()
		res, _, err := f.client.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: name, Type: kind, AssigneeType: "server", Location: loc})
		if err != nil {
			t.Fatal(err)
		}
		return res.PrimaryIP
	}
	v4, v6 := mk("v4", hcloud.PrimaryIPTypeIPv4, "hel1"), mk("v6", hcloud.PrimaryIPTypeIPv6, "hel1")

	create := func(name string, pn *hcloud.ServerCreatePublicNet, loc string) error {
		opts := hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}, PublicNet: pn}
		if loc != "" {
			opts.Location = &hcloud.Location{Name: loc}
		}
		_, _, err := f.client.Server.Create(ctx, opts)
		return err
	}
	for _, c := range []struct {
		name, loc string
		pn        *hcloud.ServerCreatePublicNet
		code      hcloud.ErrorCode
	}{
		{"swapped", "", &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: true, IPv4: v6}, "primary_ip_version_mismatch"},
		{"elsewhere", "fsn1", &hcloud.ServerCreatePublicNet{EnableIPv4: true, IPv4: v4}, "primary_ip_datacenter_mismatch"},
		{"missing", "", &hcloud.ServerCreatePublicNet{EnableIPv4: true, IPv4: &hcloud.PrimaryIP{ID: 999}}, "invalid_input"},
		{"disabled", "", &hcloud.ServerCreatePublicNet{EnableIPv6: true, IPv4: v4}, "invalid_input"},
	} {
		wantCode(t, create(c.name, c.pn, c.loc), c.code)
	}
	// The description answers a primary IP of the wrong family with 412.
	resp, body := f.do(t, "POST", "/v1/servers", fmt.Sprintf(`{"name":"x","server_type":"cx23","image":"ubuntu-24.04","public_net":{"ipv4":%d}}`, v6.ID))
	if resp.StatusCode != http.StatusPreconditionFailed {
		t.Errorf("an IPv6 primary IP as ipv4: %d %s, want 412", resp.StatusCode, body)
	}
	if servers, _ := f.client.Server.All(ctx); len(servers) != 0 {
		t.Fatalf("refused creates left %d servers", len(servers))
	}

	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "on-mine", PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: true, IPv4: v4, IPv6: v6}})
	if s.Location.Name != "hel1" || !s.PublicNet.IPv4.IP.Equal(v4.IP) || s.PublicNet.IPv4.ID != v4.ID || s.PublicNet.IPv6.ID != v6.ID {
		t.Errorf("server in %s with IPv4 %s (primary IP %d), IPv6 primary IP %d; want hel1 with %s (%d), %d",
			s.Location.Name, s.PublicNet.IPv4.IP, s.PublicNet.IPv4.ID, s.PublicNet.IPv6.ID, v4.IP, v4.ID, v6.ID)
	}
	for _, p := range []*hcloud.PrimaryIP{v4, v6} {
		got, _, _ := f.client.PrimaryIP.GetByID(ctx, p.ID)
		if got.AssigneeID != s.ID || got.AutoDelete {
			t.Errorf("primary IP %s: assigned to %d, auto_delete %v; want %d, false as created", p.Name, got.AssigneeID, got.AutoDelete, s.ID)
		}
	}
	wantCode(t, create("again", &hcloud.ServerCreatePublicNet{EnableIPv4: true, IPv4: v4}, ""), "primary_ip_assigned")
	if _, err := f.client.Server.Delete(ctx, s); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := f.client.PrimaryIP.GetByID(ctx, v4.ID); got == nil || got.AssigneeID != 0 {
		t.Errorf("after the server's delete the primary IP without auto_delete is %+v, want kept and unassigned", got)
	}
}

// TestServerPublicNetDefaults: an enable_ipv4 or enable_ipv6 left out of
// public_net is true, as the description's default says.
func TestServerPublicNetDefaults(t *testing.T) {
	f := newFixture(t, Options{})
	resp, body := f.do(t, "POST", "/v1/servers", `{"name":"d","server_type":"cx23","image":"ubuntu-24.04","public_net":{"enable_ipv6":false}}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	s, _, _ := f.client.Server.GetByName(t.Context(), "d")
	if s.PublicNet.IPv4.IsUnspecified() || !s.PublicNet.IPv6.IsUnspecified() {
		t.Errorf("public_net {enable_ipv6: false} gave IPv4 %q and IPv6 %q; want an IPv4 only", s.PublicNet.IPv4.IP, s.PublicNet.IPv6.IP)
	}
}
