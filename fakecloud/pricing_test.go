package fakecloud

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// TestPricing: GET /pricing prices every server and load balancer type as
// their own listings do, and primary IPs per location (the fixture checks
// the answer against the description).
func TestPricing(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	p, _, err := f.client.Pricing.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	types, err := f.client.ServerType.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ServerTypes) != len(types) || p.Currency != "EUR" {
		t.Fatalf("pricing lists %d server types in %q, want %d in EUR", len(p.ServerTypes), p.Currency, len(types))
	}
	for i, st := range types {
		got, want := p.ServerTypes[i].Pricings[0].Hourly, st.Pricings[0].Hourly
		if p.ServerTypes[i].ServerType.ID != st.ID || got.Net != want.Net || got.Gross != want.Gross {
			t.Errorf("pricing of %s: %+v, want its listing's %+v", st.Name, p.ServerTypes[i].Pricings[0].Hourly, st.Pricings[0].Hourly)
		}
	}
	if len(p.LoadBalancerTypes) != 3 {
		t.Errorf("%d load balancer types priced, want 3", len(p.LoadBalancerTypes))
	}
	var v4 *hcloud.PrimaryIPPrice
	for _, ip := range p.PrimaryIPs {
		for _, l := range ip.Pricings {
			if ip.Type == "ipv4" && l.Location == "fsn1" {
				v4 = &l.Hourly
			}
		}
	}
	if v4 == nil || v4.Net != "0.0008" || v4.Gross != "0.0010" {
		t.Errorf("a primary IPv4's hourly price in fsn1 is %+v, want 0.0008 net, 0.0010 gross", v4)
	}
}
