package fakecloud

import (
	"net"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestPrimaryIPProtectionAndReverseDNS: change_protection keeps a primary
// IP from deletion until lifted; change_dns_ptr names its address, shows
// on the server it is assigned to, and resets to the default with null;
// an IPv6 network takes names for addresses inside it only.
func TestPrimaryIPProtectionAndReverseDNS(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	done := func(a *hcloud.Action, _ *hcloud.Response, err error) {
		t.Helper()
		if err == nil {
			err = f.client.Action.WaitFor(ctx, a)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	res, _, err := f.client.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: "kept", Type: hcloud.PrimaryIPTypeIPv4,
		AssigneeType: "server", Location: s.Location.Name})
	if err != nil {
		t.Fatal(err)
	}
	kept := res.PrimaryIP
	done(f.client.PrimaryIP.ChangeProtection(ctx, hcloud.PrimaryIPChangeProtectionOpts{ID: kept.ID, Delete: true}))
	if got, _, _ := f.client.PrimaryIP.GetByID(ctx, kept.ID); !got.Protection.Delete {
		t.Error("protection not set")
	}
	_, err = f.client.PrimaryIP.Delete(ctx, kept)
	wantCode(t, err, "protected")
	done(f.client.PrimaryIP.ChangeProtection(ctx, hcloud.PrimaryIPChangeProtectionOpts{ID: kept.ID, Delete: false}))
	if _, err := f.client.PrimaryIP.Delete(ctx, kept); err != nil {
		t.Errorf("delete once unprotected: %v", err)
	}

	v4 := s.PublicNet.IPv4
	done(f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v4.ID, IP: v4.IP.String(), DNSPtr: "www.example.com"}))
	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	p, _, _ := f.client.PrimaryIP.GetByID(ctx, v4.ID)
	if got.PublicNet.IPv4.DNSPtr != "www.example.com" || p.DNSPtr[v4.IP.String()] != "www.example.com" {
		t.Errorf("reverse DNS: server %q, primary IP %v", got.PublicNet.IPv4.DNSPtr, p.DNSPtr)
	}
	_, _, err = f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v4.ID, IP: "203.0.113.99", DNSPtr: "x.example.com"})
	wantCode(t, err, "invalid_input")

	v6 := s.PublicNet.IPv6
	inside := make(net.IP, len(v6.IP))
	copy(inside, v6.IP)
	inside[15] = 7
	done(f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v6.ID, IP: inside.String(), DNSPtr: "v6.example.com"}))
	if p, _, _ := f.client.PrimaryIP.GetByID(ctx, v6.ID); p.DNSPtr[inside.String()] != "v6.example.com" {
		t.Errorf("IPv6 reverse DNS %v, want %s named", p.DNSPtr, inside)
	}
	_, _, err = f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v6.ID, IP: "2001:db8:ffff::1", DNSPtr: "x.example.com"})
	wantCode(t, err, "invalid_input")
}
