package parity

import (
	"cmp"
	"context"
	"fmt"
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// Image is the image of every server the kit creates; the API picks the
// build for the server type's architecture.
const Image = "ubuntu-24.04"

// catalogue is what the kit takes from the target's catalogue: the
// cheapest server type offered in the location, the type to change it
// to, the cheapest load balancer type, and their prices (hourly, net).
type catalogue struct {
	location   *hcloud.Location
	serverType *hcloud.ServerType
	nextType   *hcloud.ServerType // same architecture, at least the disk: a change needs no disk upgrade
	lbType     *hcloud.LoadBalancerType
	serverHour float64
	nextHour   float64
	lbHour     float64
	ipv4Hour   float64 // a primary IPv4's
	ipv4Why    string  // why ipv4Hour is unknown, if it is
}

// readCatalogue reads the catalogue for a location.
func readCatalogue(ctx context.Context, c *hcloud.Client, location string) (*catalogue, error) {
	loc, _, err := c.Location.GetByName(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("read location %s: %w", location, err)
	}
	if loc == nil {
		return nil, fmt.Errorf("location %q does not exist", location)
	}
	cat := &catalogue{location: loc}
	types, err := c.ServerType.All(ctx)
	if err != nil {
		return nil, fmt.Errorf("read server types: %w", err)
	}
	cat.serverType, cat.serverHour = cheapest(types, location, func(*hcloud.ServerType) bool { return true })
	if cat.serverType == nil {
		return nil, fmt.Errorf("no server type is offered in %s", location)
	}
	cat.nextType, cat.nextHour = cheapest(types, location, func(t *hcloud.ServerType) bool {
		return t.Name != cat.serverType.Name && t.Architecture == cat.serverType.Architecture && t.Disk >= cat.serverType.Disk
	})
	if cat.nextType == nil {
		return nil, fmt.Errorf("no server type in %s to change %s to", location, cat.serverType.Name)
	}
	lbTypes, err := c.LoadBalancerType.All(ctx)
	if err != nil {
		return nil, fmt.Errorf("read load balancer types: %w", err)
	}
	for _, t := range lbTypes {
		if hour, ok := lbHourly(t, location); ok && !t.IsDeprecated() && (cat.lbType == nil || hour < cat.lbHour) {
			cat.lbType, cat.lbHour = t, hour
		}
	}
	if cat.lbType == nil {
		return nil, fmt.Errorf("no load balancer type is offered in %s", location)
	}
	cat.ipv4Hour, cat.ipv4Why = ipv4Hourly(ctx, c, location)
	return cat, nil
}

// cheapest is the cheapest server type offered in the location that
// keep accepts, by hourly price, then by name.
func cheapest(types []*hcloud.ServerType, location string, keep func(*hcloud.ServerType) bool) (*hcloud.ServerType, float64) {
	var best *hcloud.ServerType
	var bestHour float64
	for _, t := range types {
		hour, ok := serverHourly(t, location)
		if !ok || !keep(t) {
			continue
		}
		if best == nil || cmp.Or(cmp.Compare(hour, bestHour), cmp.Compare(t.Name, best.Name)) < 0 {
			best, bestHour = t, hour
		}
	}
	return best, bestHour
}

// serverHourly is a server type's hourly price in a location where it can
// be ordered: priced there, not deprecated, available if the type lists
// its locations.
func serverHourly(t *hcloud.ServerType, location string) (float64, bool) {
	if t.IsDeprecated() {
		return 0, false
	}
	if len(t.Locations) > 0 {
		ok := false
		for _, l := range t.Locations {
			if l.Location != nil && l.Location.Name == location && l.Available && !l.IsDeprecated() {
				ok = true
			}
		}
		if !ok {
			return 0, false
		}
	}
	for _, p := range t.Pricings {
		if p.Location != nil && p.Location.Name == location {
			return parsePrice(p.Hourly.Net)
		}
	}
	return 0, false
}

func lbHourly(t *hcloud.LoadBalancerType, location string) (float64, bool) {
	for _, p := range t.Pricings {
		if p.Location != nil && p.Location.Name == location {
			return parsePrice(p.Hourly.Net)
		}
	}
	return 0, false
}

// ipv4Hourly is a primary IPv4's hourly price from /pricing, or why it is
// not known.
func ipv4Hourly(ctx context.Context, c *hcloud.Client, location string) (float64, string) {
	pricing, _, err := c.Pricing.Get(ctx)
	if err != nil {
		return 0, fmt.Sprintf("GET /pricing: %v", err)
	}
	for _, p := range pricing.PrimaryIPs {
		if p.Type != "ipv4" {
			continue
		}
		for _, l := range p.Pricings {
			if l.Location == location {
				if hour, ok := parsePrice(l.Hourly.Net); ok {
					return hour, ""
				}
			}
		}
	}
	return 0, "GET /pricing has no primary IPv4 price for " + location
}

func parsePrice(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
