// Package catalog is what a project can choose from, as fakecloud
// offers it: locations, datacenters, server types, load balancer types,
// images, and their price list. It is read-only once built, but for the
// deprecation of load balancer types, which an event announces.
package catalog

import (
	"slices"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// Catalog is what a project can choose from: locations, datacenters, server
// types, load balancer types and images, seeded like the real API's.
type Catalog struct {
	locations   []schema.Location
	datacenters []schema.Datacenter
	serverTypes []schema.ServerType
	retired     map[int64]bool // server types left out of listings
	lbTypes     []schema.LoadBalancerType
	images      []schema.Image
	isos        []schema.ISO
}

var catalogTime = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

// tb is a terabyte in bytes, as included traffic counts it.
const tb = 1 << 40

// New builds the catalogue.
func New() *Catalog {
	c := &Catalog{retired: map[int64]bool{}, isos: newISOs()}
	for _, l := range locationData {
		loc := schema.Location{ID: l.id, Name: l.name, Description: l.desc,
			Country: l.country, City: l.city, Latitude: l.lat, Longitude: l.lon, NetworkZone: l.zone}
		c.locations = append(c.locations, loc)
		c.datacenters = append(c.datacenters, schema.Datacenter{ID: l.dcID, Name: l.dc, Description: l.dcDesc, Location: loc})
	}
	for _, t := range serverTypeData {
		st := schema.ServerType{ID: t.id, Name: t.name, Description: t.desc, Category: t.cat, Cores: t.cores,
			Memory: t.mem, Disk: t.disk, StorageType: "local", CPUType: t.cpu, Architecture: t.arch}
		if t.retired {
			st.Deprecation = retiredDeprecation(t.name)
			c.retired[t.id] = true
		}
		for _, l := range c.locations {
			sold, withdrawn := slices.Contains(t.sold, l.Name), slices.Contains(t.withdrawn, l.Name)
			if !sold && !withdrawn {
				continue
			}
			st.Prices = append(st.Prices, schema.PricingServerTypePrice{Location: l.Name,
				PriceHourly: price(hourly(t.monthly)), PriceMonthly: price(t.monthly),
				IncludedTraffic: IncludedTraffic(t.name, l.Name), PricePerTBTraffic: price("1.0000")})
			at := schema.ServerTypeLocation{ID: l.ID, Name: l.Name, Available: sold, Recommended: sold}
			if withdrawn {
				at.Deprecation = gen1Deprecation()
				if t.retired {
					at.Deprecation = retiredDeprecation(t.name)
				}
			}
			st.Locations = append(st.Locations, at)
		}
		c.serverTypes = append(c.serverTypes, st)
	}
	for _, t := range lbTypeData {
		lt := schema.LoadBalancerType{ID: t.id, Name: t.name, Description: strconvUpper(t.name),
			MaxConnections: t.conns, MaxServices: t.services, MaxTargets: t.targets, MaxAssignedCertificates: t.certs}
		for _, l := range c.locations {
			lt.Prices = append(lt.Prices, schema.PricingLoadBalancerTypePrice{Location: l.Name,
				PriceHourly: price(hourly(t.monthly)), PriceMonthly: price(t.monthly),
				IncludedTraffic: IncludedTraffic(t.name, l.Name), PricePerTBTraffic: price("1.0000")})
		}
		c.lbTypes = append(c.lbTypes, lt)
	}
	for _, im := range imageData {
		name, version := im.name, im.version
		created := catalogTime
		c.images = append(c.images, schema.Image{ID: im.id, Status: "available", Type: "system", Name: &name,
			Description: im.desc, DiskSize: 5, Created: &created, OSFlavor: im.flavor, OSVersion: &version,
			Architecture: im.arch, RapidDeploy: true, Labels: map[string]string{}})
	}
	return c
}

func gen1Deprecation() *schema.DeprecationInfo {
	return &schema.DeprecationInfo{Announced: gen1Announced, UnavailableAfter: gen1Unavailable}
}

// retiredDeprecation is a retired type's deprecation: CX11 went in 2024,
// CX generation 2 at the end of 2025.
func retiredDeprecation(name string) *schema.DeprecationInfo {
	if name == "cx11" {
		return &schema.DeprecationInfo{Announced: gen0Announced, UnavailableAfter: gen0Unavailable}
	}
	return gen1Deprecation()
}

// hourly is a monthly net price per hour, as the price list rounds it.
func hourly(monthly string) string {
	f, _ := strconv.ParseFloat(monthly, 64)
	return strconv.FormatFloat(f/730, 'f', 4, 64)
}

func price(net string) schema.Price {
	f, _ := strconv.ParseFloat(net, 64)
	return schema.Price{Net: net, Gross: strconv.FormatFloat(f*1.19, 'f', 4, 64)}
}

func strconvUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

// idOrName matches a catalogue entry by numeric ID or by name.
func idOrName(ref string, id int64, name string) bool {
	if n, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return n == id
	}
	return ref == name
}

// Location finds a location by ID or name.
func (c *Catalog) Location(ref string) (schema.Location, bool) {
	for _, l := range c.locations {
		if idOrName(ref, l.ID, l.Name) {
			return l, true
		}
	}
	return schema.Location{}, false
}

// ServerType finds a server type by ID or name, a retired one too.
func (c *Catalog) ServerType(ref string) (schema.ServerType, bool) {
	for _, t := range c.serverTypes {
		if idOrName(ref, t.ID, t.Name) {
			return t, true
		}
	}
	return schema.ServerType{}, false
}

// LBType finds a load balancer type by ID or name.
func (c *Catalog) LBType(ref string) (schema.LoadBalancerType, bool) {
	for _, t := range c.lbTypes {
		if idOrName(ref, t.ID, t.Name) {
			return t, true
		}
	}
	return schema.LoadBalancerType{}, false
}

// DeprecateLBType sets the deprecation of the load balancer type ref (ID
// or name), or clears it with nil, and returns the type; false when there
// is no such type. Earlier answers keep what they held.
func (c *Catalog) DeprecateLBType(ref string, d *schema.DeprecationInfo) (schema.LoadBalancerType, bool) {
	for i, t := range c.lbTypes {
		if idOrName(ref, t.ID, t.Name) {
			c.lbTypes[i].Deprecation = d
			return c.lbTypes[i], true
		}
	}
	return schema.LoadBalancerType{}, false
}

// Image finds an image by ID or by name for an architecture.
func (c *Catalog) Image(ref, arch string) (schema.Image, bool) {
	for _, im := range c.images {
		if n, err := strconv.ParseInt(ref, 10, 64); err == nil {
			if n == im.ID {
				return im, true
			}
			continue
		}
		if im.Name != nil && *im.Name == ref && im.Architecture == arch {
			return im, true
		}
	}
	return schema.Image{}, false
}

// NetworkZone reports whether a location of the catalogue is in zone.
func (c *Catalog) NetworkZone(zone string) bool {
	for _, l := range c.locations {
		if l.NetworkZone == zone {
			return true
		}
	}
	return false
}

// Locations, Datacenters, ServerTypes, LBTypes and Images list the
// catalogue in its order; callers must not change what they get.
func (c *Catalog) Locations() []schema.Location { return c.locations }

// Datacenters lists the datacenters, which only the metadata service still
// names.
func (c *Catalog) Datacenters() []schema.Datacenter { return c.datacenters }

// ServerTypes lists the server types as GET /server_types does: without
// the retired ones.
func (c *Catalog) ServerTypes() []ServerTypeView {
	return viewsOf(c.serverTypes, ViewServerType, func(t schema.ServerType) bool { return !c.retired[t.ID] })
}

// EveryServerType lists every server type, the retired ones too, as
// GET /server_types/{id} finds them.
func (c *Catalog) EveryServerType() []ServerTypeView {
	return viewsOf(c.serverTypes, ViewServerType, nil)
}

// LBTypes lists the load balancer types.
func (c *Catalog) LBTypes() []LBTypeView { return viewsOf(c.lbTypes, ViewLBType, nil) }

// Images lists the images.
func (c *Catalog) Images() []ImageView { return viewsOf(c.images, ViewImage, nil) }

// viewsOf is the answers for the items keep keeps (all, if nil).
func viewsOf[T, V any](items []T, view func(T) V, keep func(T) bool) []V {
	out := make([]V, 0, len(items))
	for _, it := range items {
		if keep == nil || keep(it) {
			out = append(out, view(it))
		}
	}
	return out
}

// Offer is whether a server type can be ordered in a location.
type Offer int

// The answers to an order.
const (
	Offered       Offer = iota
	Retired             // the type is deprecated everywhere and sold nowhere
	NotSoldThere        // the type is not sold in the location, or no longer
	OutOfStockNow       // sold there, but not available at the moment
)

// Offers says whether the server type can be ordered in the location.
func (c *Catalog) Offers(t schema.ServerType, location string) Offer {
	if c.retired[t.ID] {
		return Retired
	}
	for _, l := range t.Locations {
		if l.Name != location {
			continue
		}
		switch {
		case l.Deprecation != nil:
			return NotSoldThere
		case !l.Available:
			return OutOfStockNow
		}
		return Offered
	}
	return NotSoldThere
}
