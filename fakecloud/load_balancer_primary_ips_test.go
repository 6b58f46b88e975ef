package fakecloud

import (
	"net/netip"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/lbtraffic/lbtraffictest"
)

// TestLoadBalancerDeletionHoldsItsPrimaryIPs: the primary IPs a deleted
// load balancer held stay locked while its delete_load_balancer runs, so
// a load balancer made on them before it ends is refused with locked; one
// with auto_delete goes with it; once the action ends, a new load
// balancer takes the same address.
func TestLoadBalancerDeletionHoldsItsPrimaryIPs(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{ActionDuration: 2 * time.Second, Now: clock.Now})
	ctx := t.Context()
	pip := func(name, family string, autoDelete bool) *hcloud.PrimaryIP {
		t.Helper()
		res, _, err := f.client.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: name, Type: hcloud.PrimaryIPType(family), Location: "fsn1", AutoDelete: hcloud.Ptr(autoDelete)})
		if err != nil {
			t.Fatal(err)
		}
		return res.PrimaryIP
	}
	v4, v6 := pip("kept", "ipv4", false), pip("goes", "ipv6", true)
	create := func(name string, pn *hcloud.LoadBalancerCreateOptsPublicNet) (hcloud.LoadBalancerCreateResult, error) {
		res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: name, LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
			Location: &hcloud.Location{Name: "fsn1"}, PublicNet: pn})
		return res, err
	}
	first, err := create("first", &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: v4, IPv6: v6})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	del, _, err := f.client.LoadBalancer.DeleteWithResult(ctx, first.LoadBalancer)
	if err != nil || del.Action == nil || del.Action.Status != hcloud.ActionStatusRunning {
		t.Fatalf("delete: %+v, %v; want a running action", del.Action, err)
	}
	_, err = create("early", &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: v4})
	wantCode(t, err, hcloud.ErrorCodeLocked)
	if got, _, _ := f.client.PrimaryIP.GetByID(ctx, v6.ID); got != nil {
		t.Errorf("the auto-deleting primary IP outlived its load balancer: %+v", got)
	}
	clock.Advance(2 * time.Second)
	if a, _, err := f.client.Action.GetByID(ctx, del.Action.ID); err != nil || a.Status != hcloud.ActionStatusSuccess {
		t.Fatalf("the delete action after 2 s: %+v, %v", a, err)
	}
	again, err := create("again", &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: v4})
	if err != nil {
		t.Fatalf("a load balancer on the primary IP once the deletion ended: %v", err)
	}
	if got := again.LoadBalancer.PublicNet.IPv4; got.ID != v4.ID || !got.IP.Equal(v4.IP) {
		t.Errorf("the new load balancer's IPv4 %d %s, want the primary IP %d %s", got.ID, got.IP, v4.ID, v4.IP)
	}
}

// TestPrimaryIPCarriesTraffic: with load balancers carrying traffic, an
// unassigned IPv4 primary IP takes its address from the traffic range,
// which no later load balancer takes, and a load balancer made on it
// carries traffic there.
func TestPrimaryIPCarriesTraffic(t *testing.T) {
	var nw lbtraffictest.Network
	f := newFixture(t, Options{LoadBalancerIPv4Range: netip.MustParsePrefix("127.0.102.0/24"), LoadBalancerDial: nw.Dial})
	ctx := t.Context()
	n := newNetwork(t, f, "cluster", "10.0.0.0/16", "10.0.1.0/24")
	one := newServer(t, f, hcloud.ServerCreateOpts{Name: "one", Networks: []*hcloud.Network{n}})
	backend(t, &nw, one.PrivateNet[0].IP.String()+":30080", "one")
	res, _, err := f.client.PrimaryIP.Create(ctx, hcloud.PrimaryIPCreateOpts{Name: "kept", Type: hcloud.PrimaryIPTypeIPv4, Location: "fsn1"})
	if err != nil {
		t.Fatal(err)
	}
	pip := res.PrimaryIP
	if pip.IP.String() != "127.0.102.1" {
		t.Fatalf("primary IP %s, want the first address of the traffic range", pip.IP)
	}
	lb := func(name string, pn *hcloud.LoadBalancerCreateOptsPublicNet) *hcloud.LoadBalancer {
		t.Helper()
		res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: name, LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
			Location: &hcloud.Location{Name: "fsn1"}, Network: n, PublicNet: pn,
			Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(8080), DestinationPort: hcloud.Ptr(30080)}},
			Targets: []hcloud.LoadBalancerCreateOptsTarget{{Type: hcloud.LoadBalancerTargetTypeServer,
				Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: one}, UsePrivateIP: hcloud.Ptr(true)}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.LoadBalancer
	}
	if own := lb("own", nil); own.PublicNet.IPv4.IP.String() != "127.0.102.2" {
		t.Errorf("a load balancer of its own got %s, want 127.0.102.2: the primary IP holds .1", own.PublicNet.IPv4.IP)
	}
	on := lb("on-primary-ip", &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: pip})
	waitTargets(t, f, on.ID, map[string]string{"one": "healthy"})
	if got := answers(t, "127.0.102.1:8080", 2); got["one"] != 2 {
		t.Fatalf("2 connections to the primary IP's address went %v, want both to one", got)
	}
}
