package loadbalancer

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// primaryIP creates an unassigned Primary IP behind the CCM's back, as an
// operator does with hcloud primary-ip create.
func (c *lbCluster) primaryIP(t *testing.T, name, family, location string) *hcloud.PrimaryIP {
	t.Helper()
	res, _, err := c.Client.PrimaryIP.Create(t.Context(), hcloud.PrimaryIPCreateOpts{Name: name, Type: hcloud.PrimaryIPType(family), Location: location})
	if err != nil {
		t.Fatal(err)
	}
	return res.PrimaryIP
}

func id(p *hcloud.PrimaryIP) string { return strconv.FormatInt(p.ID, 10) }

// TestLBOnPrimaryIPs: a Service naming two Primary IPs gets a load
// balancer created on them, its status their addresses, for the one POST
// a load balancer of its own costs; later syncs cost nothing more than
// those of a Service without them.
func TestLBOnPrimaryIPs(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	v4, v6 := c.primaryIP(t, "web-v4", "ipv4", "fsn1"), c.primaryIP(t, "web-v6", "ipv6", "fsn1")
	plain := lbService("plain", []int32{80})
	c.ensure(t, plain, c.nodes) // the first create of the process also lists
	svc := lbService("web", []int32{80}, "public-net-ipv4", id(v4), "public-net-ipv6", id(v6))
	st, n := c.ensure(t, svc, c.nodes)
	if n != 1 {
		t.Errorf("create on Primary IPs: %d requests, want 1, as without", n)
	}
	lb := c.LoadBalancerOf(t, svc)
	if pn := lb.PublicNet; pn.IPv4.ID != v4.ID || !pn.IPv4.IP.Equal(v4.IP) || pn.IPv6.ID != v6.ID || !v6.Network.Contains(pn.IPv6.IP) {
		t.Errorf("public net %+v, want Primary IPs %d (%s) and %d (%s)", pn, v4.ID, v4.IP, v6.ID, v6.Network)
	}
	if len(st.Ingress) < 2 || st.Ingress[0].IP != v4.IP.String() || st.Ingress[1].IP != lb.PublicNet.IPv6.IP.String() {
		t.Errorf("status %+v, want the Primary IPs' addresses first", st.Ingress)
	}
	if lb.Labels[publicNetLabels[0]] != id(v4) || lb.Labels[publicNetLabels[1]] != id(v6) {
		t.Errorf("labels %v, want the Primary IPs recorded", lb.Labels)
	}
	for _, s := range []*corev1.Service{svc, plain} {
		if n := c.update(t, s, c.nodes); n != 0 {
			t.Errorf("%s: a node sync with nothing to change sent %d requests", s.Name, n)
		}
		if _, n := c.ensure(t, s, c.nodes); n != 0 {
			t.Errorf("%s: a sync with nothing to change sent %d requests", s.Name, n)
		}
	}
	for _, reason := range []string{eventPublicNetKept, eventBadAnnotation} {
		if c.hasEvent(t, corev1.EventTypeWarning, reason, "web") {
			t.Errorf("a Warning %s for a load balancer on its Primary IPs", reason)
		}
	}
}

// TestLBPublicNetAppliesAtCreationOnly: adding, changing or removing a
// Primary IP annotation of an existing load balancer sends nothing and
// gives a Warning PublicNetNotChanged that names its address.
func TestLBPublicNetAppliesAtCreationOnly(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	a, b := c.primaryIP(t, "a", "ipv4", "fsn1"), c.primaryIP(t, "b", "ipv4", "fsn1")
	on := lbService("on", []int32{80}, "public-net-ipv4", id(a))
	off := lbService("off", []int32{80})
	c.ensure(t, on, c.nodes)
	c.ensure(t, off, c.nodes)
	own := c.LoadBalancerOf(t, off).PublicNet.IPv4.IP.String()
	for _, tc := range []struct {
		name string
		svc  *corev1.Service
		want []string // parts of the event
	}{
		{"changed", lbService("on", []int32{80}, "public-net-ipv4", id(b)), []string{a.IP.String(), "public-net-ipv4=" + id(b), "only when a load balancer is created"}},
		{"removed", lbService("on", []int32{80}), []string{a.IP.String(), "created on Primary IP " + id(a), "removing annotation"}},
		{"added", lbService("off", []int32{80}, "public-net-ipv4", id(b)), []string{own, "public-net-ipv4=" + id(b)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(c.rec.about(tc.svc.Name))
			if n := c.update(t, tc.svc, c.nodes); n != 0 {
				t.Errorf("%d requests, want none", n)
			}
			var got []string
			for _, e := range c.rec.about(tc.svc.Name)[before:] {
				if e.Reason == eventPublicNetKept {
					got = append(got, e.Message)
				}
			}
			if len(got) != 1 || !containsAll(got[0], tc.want...) {
				t.Errorf("events %q, want one PublicNetNotChanged saying %q", got, tc.want)
			}
			if lb := c.LoadBalancerOf(t, tc.svc); lb.PublicNet.IPv4.IP.String() == b.IP.String() {
				t.Errorf("the load balancer moved to %s", b.IP)
			}
		})
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestLBPublicNetRefused: Primary IPs with the public interface off are
// refused before anything is sent (by annotation or by
// HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK); those the API refuses
// (elsewhere, of the other family, assigned) are an InvalidAnnotation
// event with the API's reason, and no load balancer is made.
func TestLBPublicNetRefused(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	here, there, v6 := c.primaryIP(t, "here", "ipv4", "fsn1"), c.primaryIP(t, "there", "ipv4", "nbg1"), c.primaryIP(t, "v6", "ipv6", "fsn1")
	taken := c.primaryIP(t, "taken", "ipv4", "fsn1")
	if _, _, err := c.Client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: "terraform", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
		Location: &hcloud.Location{Name: "fsn1"}, PublicNet: &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: taken}}); err != nil {
		t.Fatal(err)
	}
	yes := true
	offByEnv := New(c.Client, Options{Defaults: annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1", DisablePublicNetwork: &yes, UsePrivateIP: true},
		NetworkID: c.networkID, NetworkZone: "eu-central", MaxAge: c.lbs.store.maxAge, Now: c.clock.Now})
	offByEnv.Start(t.Context(), c.rec)
	for _, tc := range []struct {
		name   string
		lbs    *Manager
		svc    *corev1.Service
		posted bool     // the API was asked
		want   []string // parts of the InvalidAnnotation event
	}{
		{"public interface off", c.lbs, lbService("off", []int32{80}, "public-net-ipv4", id(here), "disable-public-network", "true", "use-private-ip", "true"), false,
			[]string{`public-net-ipv4="` + id(here) + `"`, "disable-public-network", "public interface"}},
		{"public interface off by the environment", offByEnv, lbService("env-off", []int32{80}, "public-net-ipv6", id(v6)), false,
			[]string{`public-net-ipv6="` + id(v6) + `"`, "HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK"}},
		{"in another location", c.lbs, lbService("elsewhere", []int32{80}, "public-net-ipv4", id(there)), true,
			[]string{"public-net-ipv4", "refused the Primary IP", "primary_ip_datacenter_mismatch", "in fsn1"}},
		{"of the other family", c.lbs, lbService("family", []int32{80}, "public-net-ipv4", id(v6)), true,
			[]string{"public-net-ipv4", "primary_ip_version_mismatch"}},
		{"assigned to another load balancer", c.lbs, lbService("assigned", []int32{80}, "public-net-ipv4", id(taken)), true,
			[]string{"public-net-ipv4", "primary_ip_assigned"}},
		{"no such Primary IP", c.lbs, lbService("missing", []int32{80}, "public-net-ipv4", "999999"), true,
			[]string{"public-net-ipv4", "999999"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := c.FC.Requests("POST", "/load_balancers")
			if _, err := tc.lbs.EnsureLoadBalancer(t.Context(), "", tc.svc, c.nodes); err == nil {
				t.Fatal("EnsureLoadBalancer succeeded")
			}
			if posted := c.FC.Requests("POST", "/load_balancers") > before; posted != tc.posted {
				t.Errorf("POST /load_balancers sent: %v, want %v", posted, tc.posted)
			}
			found := false
			for _, e := range c.rec.about(tc.svc.Name) {
				found = found || (e.Type == corev1.EventTypeWarning && e.Reason == eventBadAnnotation && containsAll(e.Message, tc.want...))
			}
			if !found {
				t.Errorf("events %+v, want InvalidAnnotation saying %q", c.rec.about(tc.svc.Name), tc.want)
			}
		})
	}
	if lbs := c.LoadBalancers(t); len(lbs) != 1 {
		t.Errorf("%d load balancers, want Terraform's alone", len(lbs))
	}
}

// TestLBRetainedOnItsPrimaryIP: with retain-on-delete the load balancer
// and its Primary IP stay when the Service goes, and a new Service naming
// both adopts it with the same address, also when the API refuses the
// create for the assigned Primary IP before it looks at the name.
func TestLBRetainedOnItsPrimaryIP(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	pip := c.primaryIP(t, "shop", "ipv4", "fsn1")
	shop := lbService("shop", []int32{80}, "name", "shop", "retain-on-delete", "true", "public-net-ipv4", id(pip))
	c.ensure(t, shop, c.nodes)
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", shop); err != nil {
		t.Fatal(err)
	}
	if held, _, _ := c.Client.PrimaryIP.GetByID(t.Context(), pip.ID); held == nil || held.AssigneeType != "load_balancer" {
		t.Fatalf("the Primary IP after the Service went: %+v, want still the retained load balancer's", held)
	}
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "POST", Path: "/load_balancers", Code: "primary_ip_assigned", Count: 1}); err != nil {
		t.Fatal(err)
	}
	again := lbService("shop-v2", []int32{80}, "name", "shop", "public-net-ipv4", id(pip))
	st, _ := c.ensure(t, again, c.nodes)
	if len(st.Ingress) == 0 || st.Ingress[0].IP != pip.IP.String() {
		t.Errorf("status %+v, want the Primary IP's address %s", st.Ingress, pip.IP)
	}
	if !c.hasEvent(t, corev1.EventTypeNormal, "AdoptedLoadBalancer", "shop-v2") || c.hasEvent(t, corev1.EventTypeWarning, eventPublicNetKept, "shop-v2") ||
		c.hasEvent(t, corev1.EventTypeWarning, eventBadAnnotation, "shop-v2") {
		t.Errorf("events %+v, want AdoptedLoadBalancer and no Warning", c.rec.about("shop-v2"))
	}
	if lbs := c.LoadBalancers(t); len(lbs) != 1 {
		t.Errorf("%d load balancers, want the retained one", len(lbs))
	}
}

// TestLBAdoptedOnAPrimaryIPIsLeftAsItIs: a load balancer made elsewhere
// on a Primary IP and adopted by name keeps its addresses and gets no
// Warning from a Service that names no Primary IP.
func TestLBAdoptedOnAPrimaryIPIsLeftAsItIs(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	pip := c.primaryIP(t, "edge", "ipv4", "fsn1")
	if _, _, err := c.Client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: "edge", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
		Location: &hcloud.Location{Name: "fsn1"}, PublicNet: &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: pip}}); err != nil {
		t.Fatal(err)
	}
	svc := lbService("edge", []int32{80}, "name", "edge")
	st, _ := c.ensure(t, svc, c.nodes)
	c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	if lb.PublicNet.IPv4.ID != pip.ID || len(st.Ingress) == 0 || st.Ingress[0].IP != pip.IP.String() {
		t.Errorf("adopted load balancer on %d %s, status %+v; want Primary IP %d %s", lb.PublicNet.IPv4.ID, lb.PublicNet.IPv4.IP, st.Ingress, pip.ID, pip.IP)
	}
	if c.hasEvent(t, corev1.EventTypeWarning, eventPublicNetKept, "edge") {
		t.Errorf("events %+v, want no PublicNetNotChanged", c.rec.about("edge"))
	}
}
