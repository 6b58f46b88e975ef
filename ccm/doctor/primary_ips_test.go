package doctor

import (
	"strconv"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// TestPrimaryIPChecks: doctor names what is wrong with the Primary IPs a
// Service's public-net annotations name, and nothing when its load
// balancer holds them.
func TestPrimaryIPChecks(t *testing.T) {
	const shopUID = "0b1c2d3e-7777-2222-3333-444455556666"
	tests := []struct {
		name   string
		setup  func(*testing.T, *fixture, func(name, family, location string) string) // adds Services
		want   []want
		absent []want
	}{
		{name: "missing",
			setup: func(_ *testing.T, f *fixture, _ func(string, string, string) string) {
				f.services = append(f.services, lbService("shop", shopUID, "location", "fsn1", "public-net-ipv4", "999999"))
			},
			want: []want{{"service", Fail, "service/default/shop", "Primary IP 999999 of load-balancer.hetzner.cloud/public-net-ipv4 does not exist"}}},
		{name: "of the other family",
			setup: func(_ *testing.T, f *fixture, pip func(string, string, string) string) {
				f.services = append(f.services, lbService("shop", shopUID, "location", "fsn1", "public-net-ipv4", pip("v6", "ipv6", "fsn1")))
			},
			want: []want{{"service", Fail, "service/default/shop", "is of type ipv6"}}},
		{name: "assigned elsewhere",
			setup: func(t *testing.T, f *fixture, pip func(string, string, string) string) {
				id := pip("taken", "ipv4", "fsn1")
				n, _ := strconv.ParseInt(id, 10, 64)
				if _, _, err := f.client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: "terraform", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
					Location: &hcloud.Location{Name: "fsn1"}, PublicNet: &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: &hcloud.PrimaryIP{ID: n}}}); err != nil {
					t.Fatal(err)
				}
				f.services = append(f.services, lbService("shop", shopUID, "location", "fsn1", "public-net-ipv4", id))
			},
			want: []want{{"service", Fail, "service/default/shop", "is assigned to load_balancer"}}},
		{name: "in another location",
			setup: func(_ *testing.T, f *fixture, pip func(string, string, string) string) {
				f.services = append(f.services, lbService("shop", shopUID, "location", "fsn1", "public-net-ipv6", pip("far", "ipv6", "hel1")))
			},
			want: []want{{"service", Fail, "service/default/shop", "is in hel1, not in the load balancer's location fsn1"}}},
		{name: "no location",
			setup: func(_ *testing.T, f *fixture, pip func(string, string, string) string) {
				f.services = append(f.services, lbService("shop", shopUID, "public-net-ipv4", pip("here", "ipv4", "fsn1")))
			},
			want: []want{{"service", Warn, "service/default/shop", "is in fsn1, and no location is set"}}},
		{name: "an existing load balancer not on it",
			setup: func(_ *testing.T, f *fixture, pip func(string, string, string) string) {
				f.services[0].Annotations["load-balancer.hetzner.cloud/public-net-ipv4"] = pip("later", "ipv4", "fsn1")
			},
			want: []want{{"service", Warn, "service/default/web", "load balancer web is not on Primary IP"}}},
		{name: "held by its load balancer",
			setup: func(t *testing.T, f *fixture, pip func(string, string, string) string) {
				id := pip("held", "ipv4", "fsn1")
				n, _ := strconv.ParseInt(id, 10, 64)
				if _, _, err := f.client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: "shop", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
					Location: &hcloud.Location{Name: "fsn1"}, Labels: map[string]string{loadbalancer.ServiceUIDLabel: shopUID},
					PublicNet: &hcloud.LoadBalancerCreateOptsPublicNet{IPv4: &hcloud.PrimaryIP{ID: n}}}); err != nil {
					t.Fatal(err)
				}
				f.services = append(f.services, lbService("shop", shopUID, "location", "fsn1", "public-net-ipv4", id))
			},
			want:   []want{{"service", OK, "service/default/shop", "load balancer shop"}},
			absent: []want{{"service", Fail, "service/default/shop", ""}, {"service", Warn, "service/default/shop", "Primary IP"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture().start(t)
			pip := func(name, family, location string) string {
				res, _, err := f.client.PrimaryIP.Create(t.Context(), hcloud.PrimaryIPCreateOpts{Name: name, Type: hcloud.PrimaryIPType(family), Location: location})
				if err != nil {
					t.Fatal(err)
				}
				return strconv.FormatInt(res.PrimaryIP.ID, 10)
			}
			tt.setup(t, f, pip)
			for _, s := range f.services {
				s.Status.LoadBalancer.Ingress = f.services[0].Status.LoadBalancer.Ingress
			}
			f.fc.ResetCounters()
			r := f.run(t)
			for _, w := range tt.want {
				if !has(r, w.check, w.status, w.subject, w.message) {
					t.Errorf("no %s %s finding on %s with %q in:\n%s", w.status, w.check, w.subject, w.message, dump(r))
				}
			}
			for _, w := range tt.absent {
				if has(r, w.check, w.status, w.subject, w.message) {
					t.Errorf("a %s %s finding on %s with %q in:\n%s", w.status, w.check, w.subject, w.message, dump(r))
				}
			}
		})
	}
}
