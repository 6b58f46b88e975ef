package fakecloud

import (
	"net"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// One address, one name: a reverse DNS entry belongs to the address, so
// the server or load balancer a primary IP is assigned to and the primary
// IP itself read and write the same entry, for IPv4 and IPv6.

// rdnsFixture waits for each action of the test to end.
func rdnsDone(t *testing.T, f *fixture) func(*hcloud.Action, *hcloud.Response, error) {
	return func(a *hcloud.Action, _ *hcloud.Response, err error) {
		t.Helper()
		if err == nil {
			err = f.client.Action.WaitFor(t.Context(), a)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func rdnsPIP(t *testing.T, f *fixture, name string, family hcloud.PrimaryIPType) *hcloud.PrimaryIP {
	t.Helper()
	res, _, err := f.client.PrimaryIP.Create(t.Context(), hcloud.PrimaryIPCreateOpts{Name: name, Type: family, Location: "fsn1", AutoDelete: hcloud.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	return res.PrimaryIP
}

// inNet is the address with the last byte n inside an IPv6 network.
func inNet(network net.IP, n byte) string {
	a := make(net.IP, len(network))
	copy(a, network)
	a[15] = n
	return a.String()
}

// TestLoadBalancerOnPrimaryIPShowsItsReverseDNS: a load balancer made on
// primary IPs and the primary IPs show one name per address, whichever of
// them last changed it, for IPv4 and IPv6, and a reset shows on both.
func TestLoadBalancerOnPrimaryIPShowsItsReverseDNS(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	done := rdnsDone(t, f)
	v4, v6 := rdnsPIP(t, f, "v4", hcloud.PrimaryIPTypeIPv4), rdnsPIP(t, f, "v6", hcloud.PrimaryIPTypeIPv6)
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
		Location: &hcloud.Location{Name: "fsn1"}, PublicNet: &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: v4, IPv6: v6}})
	if err != nil {
		t.Fatal(err)
	}
	lb := res.LoadBalancer
	ip4, ip6 := lb.PublicNet.IPv4.IP.String(), lb.PublicNet.IPv6.IP.String()
	check := func(step, want4, want6 string) {
		t.Helper()
		got, _, err := f.client.LoadBalancer.GetByID(ctx, lb.ID)
		if err != nil {
			t.Fatal(err)
		}
		p4, _, _ := f.client.PrimaryIP.GetByID(ctx, v4.ID)
		p6, _, _ := f.client.PrimaryIP.GetByID(ctx, v6.ID)
		if got.PublicNet.IPv4.DNSPtr != want4 || p4.DNSPtr[ip4] != want4 {
			t.Errorf("%s: IPv4 %s named %q by the load balancer, %q by its primary IP; want %q", step, ip4, got.PublicNet.IPv4.DNSPtr, p4.DNSPtr[ip4], want4)
		}
		if got.PublicNet.IPv6.DNSPtr != want6 || p6.DNSPtr[ip6] != want6 {
			t.Errorf("%s: IPv6 %s named %q by the load balancer, %q by its primary IP (%v); want %q", step, ip6, got.PublicNet.IPv6.DNSPtr, p6.DNSPtr[ip6], p6.DNSPtr, want6)
		}
	}
	default4, default6 := lb.PublicNet.IPv4.DNSPtr, lb.PublicNet.IPv6.DNSPtr
	if default4 == "" || default6 == "" {
		t.Fatalf("a new load balancer's default names %q, %q", default4, default6)
	}
	check("created", default4, default6)
	done(f.client.LoadBalancer.ChangeDNSPtr(ctx, lb, ip4, hcloud.Ptr("lb4.example.com")))
	done(f.client.LoadBalancer.ChangeDNSPtr(ctx, lb, ip6, hcloud.Ptr("lb6.example.com")))
	check("load balancer's change", "lb4.example.com", "lb6.example.com")
	done(f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v4.ID, IP: ip4, DNSPtr: "pip4.example.com"}))
	done(f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v6.ID, IP: ip6, DNSPtr: "pip6.example.com"}))
	check("primary IPs' change", "pip4.example.com", "pip6.example.com")
	done(f.client.LoadBalancer.ChangeDNSPtr(ctx, lb, ip4, nil))
	done(f.client.LoadBalancer.ChangeDNSPtr(ctx, lb, ip6, nil))
	check("reset", default4, "")

	// The name is the address's: it stays on the primary IP when the load
	// balancer goes.
	done(f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v4.ID, IP: ip4, DNSPtr: "kept.example.com"}))
	if _, err := f.client.LoadBalancer.Delete(ctx, lb); err != nil {
		t.Fatal(err)
	}
	if p4, _, _ := f.client.PrimaryIP.GetByID(ctx, v4.ID); p4 == nil || p4.DNSPtr[ip4] != "kept.example.com" {
		t.Errorf("the primary IP after its load balancer went: %+v, want kept.example.com kept", p4)
	}
}

// TestServerIPv6ReverseDNSIsItsPrimaryIPs: a server's IPv6 names are its
// primary IP's: the server's change_dns_ptr shows on the primary IP, the
// names go with the primary IP when it is unassigned, and a server it is
// assigned to shows them.
func TestServerIPv6ReverseDNSIsItsPrimaryIPs(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	done := rdnsDone(t, f)
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Location: &hcloud.Location{Name: "fsn1"}})
	v6 := s.PublicNet.IPv6
	one, two := inNet(v6.IP, 1), inNet(v6.IP, 2)
	done(f.client.Server.ChangeDNSPtr(ctx, s, one, hcloud.Ptr("one.example.com")))
	done(f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v6.ID, IP: two, DNSPtr: "two.example.com"}))
	want := map[string]string{one: "one.example.com", two: "two.example.com"}
	same := func(step string, got map[string]string) {
		t.Helper()
		if len(got) != len(want) || got[one] != want[one] || got[two] != want[two] {
			t.Errorf("%s: %v, want %v", step, got, want)
		}
	}
	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	same("the server", got.PublicNet.IPv6.DNSPtr)
	p, _, _ := f.client.PrimaryIP.GetByID(ctx, v6.ID)
	same("its primary IP", p.DNSPtr)

	// Moved to another server, the network keeps its names.
	done(f.client.Server.Poweroff(ctx, s))
	b := newServer(t, f, hcloud.ServerCreateOpts{Name: "b", Location: &hcloud.Location{Name: "fsn1"},
		PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: false}, StartAfterCreate: hcloud.Ptr(false)})
	done(f.client.PrimaryIP.Unassign(ctx, v6.ID))
	p, _, _ = f.client.PrimaryIP.GetByID(ctx, v6.ID)
	same("unassigned", p.DNSPtr)
	done(f.client.PrimaryIP.Assign(ctx, hcloud.PrimaryIPAssignOpts{ID: v6.ID, AssigneeType: "server", AssigneeID: b.ID}))
	got, _, _ = f.client.Server.GetByID(ctx, b.ID)
	same("the server it moved to", got.PublicNet.IPv6.DNSPtr)
	done(f.client.Server.ChangeDNSPtr(ctx, got, one, nil))
	delete(want, one)
	p, _, _ = f.client.PrimaryIP.GetByID(ctx, v6.ID)
	same("removed through the server", p.DNSPtr)
}

// TestAssignedIPv6PrimaryIPShowsItsNames: a server made on an IPv6
// primary IP that already has names shows them.
func TestAssignedIPv6PrimaryIPShowsItsNames(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	done := rdnsDone(t, f)
	v6 := rdnsPIP(t, f, "v6", hcloud.PrimaryIPTypeIPv6)
	addr := inNet(v6.IP, 9)
	done(f.client.PrimaryIP.ChangeDNSPtr(ctx, hcloud.PrimaryIPChangeDNSPtrOpts{ID: v6.ID, IP: addr, DNSPtr: "named.example.com"}))
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Location: &hcloud.Location{Name: "fsn1"},
		PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: true, IPv6: v6}})
	if got := s.PublicNet.IPv6.DNSPtr; got[addr] != "named.example.com" || len(got) != 1 {
		t.Errorf("the server on the primary IP shows %v, want %s named.example.com", got, addr)
	}
}

// TestFailedChangeDNSPtrKeepsTheName: a change_dns_ptr that fails, on a
// server or on a load balancer whose address is a primary IP's, leaves
// the name where every holder of the address shows it.
func TestFailedChangeDNSPtrKeepsTheName(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Location: &hcloud.Location{Name: "fsn1"}})
	ip4, v6 := s.PublicNet.IPv4, s.PublicNet.IPv6
	addr := inNet(v6.IP, 3)
	if _, err := f.fc.AddActionFault(ActionFault{Command: "change_dns_ptr", ErrorCode: "action_failed", Count: 2}); err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{ip4.IP.String(), addr} {
		a, _, err := f.client.Server.ChangeDNSPtr(ctx, s, ip, hcloud.Ptr("lost.example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.client.Action.WaitFor(ctx, a); err == nil {
			t.Fatalf("change_dns_ptr of %s succeeded despite its fault", ip)
		}
	}
	got, _, _ := f.client.Server.GetByID(ctx, s.ID)
	p4, _, _ := f.client.PrimaryIP.GetByID(ctx, ip4.ID)
	p6, _, _ := f.client.PrimaryIP.GetByID(ctx, v6.ID)
	if got.PublicNet.IPv4.DNSPtr != ip4.DNSPtr || p4.DNSPtr[ip4.IP.String()] != ip4.DNSPtr {
		t.Errorf("IPv4 after a failed change: server %q, primary IP %v; want %q", got.PublicNet.IPv4.DNSPtr, p4.DNSPtr, ip4.DNSPtr)
	}
	if len(got.PublicNet.IPv6.DNSPtr) != 0 || len(p6.DNSPtr) != 0 {
		t.Errorf("IPv6 after a failed change: server %v, primary IP %v; want none", got.PublicNet.IPv6.DNSPtr, p6.DNSPtr)
	}
}

// TestReverseDNSOutlivesItsServer: a primary IP kept when its server is
// deleted keeps the name the server gave its address, and the next server
// made on it shows that name.
func TestReverseDNSOutlivesItsServer(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	done := rdnsDone(t, f)
	v4 := rdnsPIP(t, f, "v4", hcloud.PrimaryIPTypeIPv4)
	opts := func(name string) hcloud.ServerCreateOpts {
		return hcloud.ServerCreateOpts{Name: name, Location: &hcloud.Location{Name: "fsn1"},
			PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, IPv4: v4}}
	}
	a := newServer(t, f, opts("a"))
	done(f.client.Server.ChangeDNSPtr(ctx, a, v4.IP.String(), hcloud.Ptr("a.example.com")))
	res, _, err := f.client.Server.DeleteWithResult(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	done(res.Action, nil, nil)
	if p, _, _ := f.client.PrimaryIP.GetByID(ctx, v4.ID); p == nil || p.DNSPtr[v4.IP.String()] != "a.example.com" {
		t.Fatalf("the primary IP after its server went: %+v, want a.example.com kept", p)
	}
	b := newServer(t, f, opts("b"))
	if b.PublicNet.IPv4.DNSPtr != "a.example.com" {
		t.Errorf("the next server on the primary IP shows %q, want a.example.com", b.PublicNet.IPv4.DNSPtr)
	}
}
