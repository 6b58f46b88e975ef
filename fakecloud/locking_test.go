package fakecloud

import (
	"net"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestSharedActions: actions whose change applies when they start (reverse
// DNS, protection, a load balancer's services and algorithm) run side by
// side on one resource, as the live API lets the Terraform provider run
// them; they still wait for an action that holds the resource, and an
// action that holds it still waits for nothing but another holder.
func TestSharedActions(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{ActionDuration: time.Minute, Now: clock.Now})
	ctx := t.Context()
	s := serverOnClock(t, f, clock, "a")
	s, _, _ = f.client.Server.GetByID(ctx, s.ID) // with its addresses

	// Two reverse DNS changes and a protection change at once.
	v6 := s.PublicNet.IPv6.Network.IP
	v6[15] = 1
	if _, _, err := f.client.Server.ChangeDNSPtr(ctx, s, s.PublicNet.IPv4.IP.String(), hcloud.Ptr("a.example.com")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Server.ChangeDNSPtr(ctx, s, v6.String(), hcloud.Ptr("a6.example.com")); err != nil {
		t.Errorf("a second change_dns_ptr while the first runs: %v", err)
	}
	if _, _, err := f.client.Server.ChangeProtection(ctx, s, hcloud.ServerChangeProtectionOpts{Delete: hcloud.Ptr(true), Rebuild: hcloud.Ptr(true)}); err != nil {
		t.Errorf("change_protection while reverse DNS changes run: %v", err)
	}
	// A power action holds the server: reverse DNS waits for it, and
	// another holder is refused.
	if _, _, err := f.client.Server.Poweroff(ctx, s); err != nil {
		t.Fatalf("poweroff beside shared actions: %v", err)
	}
	_, _, err := f.client.Server.ChangeDNSPtr(ctx, s, s.PublicNet.IPv4.IP.String(), hcloud.Ptr("b.example.com"))
	wantCode(t, err, hcloud.ErrorCodeLocked)
	_, _, err = f.client.Server.Poweron(ctx, s)
	wantCode(t, err, hcloud.ErrorCodeLocked)
	clock.Advance(time.Minute)
	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	if got.PublicNet.IPv4.DNSPtr != "a.example.com" || !got.Protection.Delete {
		t.Errorf("after the actions: ptr %q protection %v", got.PublicNet.IPv4.DNSPtr, got.Protection)
	}

	// Two services added at once, then one changed and one deleted at once.
	lbRes, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	lb := lbRes.LoadBalancer
	for _, port := range []int{70, 443} {
		if _, _, err := f.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(port), DestinationPort: hcloud.Ptr(port)}); err != nil {
			t.Errorf("add_service %d while another runs: %v", port, err)
		}
	}
	if _, _, err := f.client.LoadBalancer.UpdateService(ctx, lb, 70, hcloud.LoadBalancerUpdateServiceOpts{DestinationPort: hcloud.Ptr(71)}); err != nil {
		t.Errorf("update_service while add_service runs: %v", err)
	}
	if _, _, err := f.client.LoadBalancer.DeleteService(ctx, lb, 443); err != nil {
		t.Errorf("delete_service while others run: %v", err)
	}
	// Attaching to a network holds the load balancer.
	n := newNetwork(t, f, "n", "10.0.0.0/16", "10.0.1.0/24")
	if _, _, err := f.client.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: n, IP: net.ParseIP("10.0.1.5")}); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(80), DestinationPort: hcloud.Ptr(80)})
	wantCode(t, err, hcloud.ErrorCodeLocked)
	clock.Advance(time.Minute)
	gotLB, _, _ := f.client.LoadBalancer.GetByID(ctx, lb.ID)
	if len(gotLB.Services) != 1 || gotLB.Services[0].ListenPort != 70 || gotLB.Services[0].DestinationPort != 71 {
		t.Errorf("services %+v, want port 70 to 71 alone", gotLB.Services)
	}
}
