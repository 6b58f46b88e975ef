package catalog

import "github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

// Pricing is GET /pricing's body. hcloud-go's schema.Pricing also carries
// the deprecated traffic price, which the description no longer has, so
// the answer is built here with the description's keys only.
type Pricing struct {
	Currency          string                           `json:"currency"`
	VATRate           string                           `json:"vat_rate"`
	PrimaryIPs        []ipPricing                      `json:"primary_ips"`
	FloatingIPs       []ipPricing                      `json:"floating_ips"`
	FloatingIP        schema.PricingFloatingIP         `json:"floating_ip"`
	Image             schema.PricingImage              `json:"image"`
	Volume            schema.PricingVolume             `json:"volume"`
	ServerBackup      schema.PricingServerBackup       `json:"server_backup"`
	ServerTypes       []schema.PricingServerType       `json:"server_types"`
	LoadBalancerTypes []schema.PricingLoadBalancerType `json:"load_balancer_types"`
}

type ipPricing struct {
	Type   string          `json:"type"`
	Prices []ipPricePerLoc `json:"prices"`
}

type ipPricePerLoc struct {
	Location     string        `json:"location"`
	PriceHourly  *schema.Price `json:"price_hourly,omitempty"` // primary IPs only
	PriceMonthly schema.Price  `json:"price_monthly"`
}

// ipPrices are the net prices per month of an address, and per hour for
// primary IPs, the same in every location. fakecloud's prices are
// illustrative, in the shape and order of magnitude of the price list.
var ipPrices = []struct {
	kind, primaryHourly, primaryMonthly, floatingMonthly string
}{
	{"ipv4", "0.0008", "0.5000", "3.0000"},
	{"ipv6", "0.0000", "0.0000", "1.0000"},
}

// Pricing is the price list of the catalogue's locations and types.
func (c *Catalog) Pricing() Pricing {
	p := Pricing{Currency: "EUR", VATRate: "19.00",
		FloatingIP:   schema.PricingFloatingIP{PriceMonthly: price(ipPrices[0].floatingMonthly)},
		Image:        schema.PricingImage{PricePerGBMonth: price("0.0110")},
		Volume:       schema.PricingVolume{PricePerGBPerMonth: price("0.0440")},
		ServerBackup: schema.PricingServerBackup{Percentage: "20.00"},
	}
	for _, ip := range ipPrices {
		primary, floating := ipPricing{Type: ip.kind}, ipPricing{Type: ip.kind}
		for _, l := range c.locations {
			hourly := price(ip.primaryHourly)
			primary.Prices = append(primary.Prices, ipPricePerLoc{Location: l.Name, PriceHourly: &hourly, PriceMonthly: price(ip.primaryMonthly)})
			floating.Prices = append(floating.Prices, ipPricePerLoc{Location: l.Name, PriceMonthly: price(ip.floatingMonthly)})
		}
		p.PrimaryIPs = append(p.PrimaryIPs, primary)
		p.FloatingIPs = append(p.FloatingIPs, floating)
	}
	for _, t := range c.serverTypes {
		if c.retired[t.ID] {
			continue // sold nowhere
		}
		p.ServerTypes = append(p.ServerTypes, schema.PricingServerType{ID: t.ID, Name: t.Name, Prices: t.Prices})
	}
	for _, t := range c.lbTypes {
		p.LoadBalancerTypes = append(p.LoadBalancerTypes, schema.PricingLoadBalancerType{ID: t.ID, Name: t.Name, Prices: t.Prices})
	}
	return p
}
