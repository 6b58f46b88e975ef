// Package catalog is what a project can choose from, as fakecloud
// offers it: locations, datacenters, server types, load balancer types,
// images, and their price list. It is read-only once built.
package catalog

import (
	"fmt"
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
	lbTypes     []schema.LoadBalancerType
	images      []schema.Image
}

var catalogTime = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

// New builds the catalogue.
func New() *Catalog {
	c := &Catalog{}
	locs := []struct {
		id                              int64
		name, desc, country, city, zone string
		lat, lon                        float64
		dc                              string
	}{
		{1, "fsn1", "Falkenstein DC Park 1", "DE", "Falkenstein", "eu-central", 50.47612, 12.370071, "fsn1-dc14"},
		{2, "nbg1", "Nuremberg DC Park 1", "DE", "Nuremberg", "eu-central", 49.452102, 11.076665, "nbg1-dc3"},
		{3, "hel1", "Helsinki DC Park 1", "FI", "Helsinki", "eu-central", 60.169855, 24.938379, "hel1-dc2"},
		{4, "ash", "Ashburn, VA", "US", "Ashburn, VA", "us-east", 39.045, -77.487, "ash-dc1"},
		{5, "hil", "Hillsboro, OR", "US", "Hillsboro, OR", "us-west", 45.54222, -122.95028, "hil-dc1"},
		{6, "sin", "Singapore", "SG", "Singapore", "ap-southeast", 1.283333, 103.833333, "sin-dc1"},
	}
	for _, l := range locs {
		c.locations = append(c.locations, schema.Location{ID: l.id, Name: l.name, Description: l.desc,
			Country: l.country, City: l.city, Latitude: l.lat, Longitude: l.lon, NetworkZone: l.zone})
	}
	types := []struct {
		id              int64
		name, desc, cat string
		cores           int
		mem             float32
		disk            int
		cpu, arch       string
		hourly, monthly string
	}{
		{22, "cpx11", "CPX 11", "regular_purpose", 2, 2, 40, "shared", "x86", "0.0076", "4.7500"},
		{23, "cpx21", "CPX 21", "regular_purpose", 3, 4, 80, "shared", "x86", "0.0136", "8.4900"},
		{24, "cpx31", "CPX 31", "regular_purpose", 4, 8, 160, "shared", "x86", "0.0250", "15.5900"},
		{25, "cpx41", "CPX 41", "regular_purpose", 8, 16, 240, "shared", "x86", "0.0461", "28.7900"},
		{26, "cpx51", "CPX 51", "regular_purpose", 16, 32, 360, "shared", "x86", "0.0985", "61.4900"},
		{45, "cax11", "CAX11", "cost_optimized", 2, 4, 40, "shared", "arm", "0.0064", "3.9900"},
		{93, "cax21", "CAX21", "cost_optimized", 4, 8, 80, "shared", "arm", "0.0112", "6.9900"},
		{94, "cax31", "CAX31", "cost_optimized", 8, 16, 160, "shared", "arm", "0.0224", "13.9900"},
		{104, "cx22", "CX22", "cost_optimized", 2, 4, 40, "shared", "x86", "0.0064", "3.9900"},
		{105, "cx32", "CX32", "cost_optimized", 4, 8, 80, "shared", "x86", "0.0112", "6.9900"},
		{106, "cx42", "CX42", "cost_optimized", 8, 16, 160, "shared", "x86", "0.0280", "17.4900"},
		{107, "cx52", "CX52", "cost_optimized", 16, 32, 320, "shared", "x86", "0.0568", "35.4900"},
		{96, "ccx13", "CCX13 Dedicated CPU", "general_purpose", 2, 8, 80, "dedicated", "x86", "0.0224", "13.9900"},
		{97, "ccx23", "CCX23 Dedicated CPU", "general_purpose", 4, 16, 160, "dedicated", "x86", "0.0448", "27.9900"},
	}
	var allTypeIDs []int64
	for _, t := range types {
		st := schema.ServerType{ID: t.id, Name: t.name, Description: t.desc, Category: t.cat, Cores: t.cores,
			Memory: t.mem, Disk: t.disk, StorageType: "local", CPUType: t.cpu, Architecture: t.arch,
			IncludedTraffic: 21990232555520}
		for _, l := range c.locations {
			st.Prices = append(st.Prices, schema.PricingServerTypePrice{Location: l.Name,
				PriceHourly:       price(t.hourly),
				PriceMonthly:      price(t.monthly),
				IncludedTraffic:   21990232555520,
				PricePerTBTraffic: price("1.0000")})
			st.Locations = append(st.Locations, schema.ServerTypeLocation{ID: l.ID, Name: l.Name, Recommended: true, Available: true})
		}
		c.serverTypes = append(c.serverTypes, st)
		allTypeIDs = append(allTypeIDs, t.id)
	}
	for i, l := range locs {
		c.datacenters = append(c.datacenters, schema.Datacenter{ID: l.id, Name: l.dc,
			Description: fmt.Sprintf("%s virtual DC %d", l.city, i+1), Location: c.locations[i],
			ServerTypes: &schema.DatacenterServerTypes{Supported: allTypeIDs, Available: allTypeIDs, AvailableForMigration: allTypeIDs}})
	}
	lbs := []struct {
		id                              int64
		name                            string
		conns, services, targets, certs int
		hourly, monthly                 string
	}{
		{1, "lb11", 10000, 5, 25, 10, "0.0088", "5.3900"},
		{2, "lb21", 20000, 15, 75, 25, "0.0264", "16.4900"},
		{3, "lb31", 40000, 30, 150, 50, "0.0512", "31.9900"},
	}
	for _, t := range lbs {
		lt := schema.LoadBalancerType{ID: t.id, Name: t.name, Description: strconvUpper(t.name),
			MaxConnections: t.conns, MaxServices: t.services, MaxTargets: t.targets, MaxAssignedCertificates: t.certs}
		for _, l := range c.locations {
			lt.Prices = append(lt.Prices, schema.PricingLoadBalancerTypePrice{Location: l.Name,
				PriceHourly: price(t.hourly), PriceMonthly: price(t.monthly),
				IncludedTraffic: 21990232555520, PricePerTBTraffic: price("1.0000")})
		}
		c.lbTypes = append(c.lbTypes, lt)
	}
	imgs := []struct {
		id                 int64
		name, desc, flavor string
		version, arch      string
	}{
		{67794396, "ubuntu-22.04", "Ubuntu 22.04", "ubuntu", "22.04", "x86"},
		{161547269, "ubuntu-24.04", "Ubuntu 24.04", "ubuntu", "24.04", "x86"},
		{161547270, "ubuntu-24.04", "Ubuntu 24.04", "ubuntu", "24.04", "arm"},
		{114690387, "debian-12", "Debian 12", "debian", "12", "x86"},
		{202636210, "debian-13", "Debian 13", "debian", "13", "x86"},
		{211112017, "fedora-42", "Fedora 42", "fedora", "42", "x86"},
		{76766499, "rocky-9", "Rocky Linux 9", "rocky", "9", "x86"},
		{76766502, "alma-9", "AlmaLinux 9", "alma", "9", "x86"},
	}
	for _, im := range imgs {
		name, version := im.name, im.version
		created := catalogTime
		c.images = append(c.images, schema.Image{ID: im.id, Status: "available", Type: "system", Name: &name,
			Description: im.desc, DiskSize: 5, Created: &created, OSFlavor: im.flavor, OSVersion: &version,
			Architecture: im.arch, RapidDeploy: true, Labels: map[string]string{}})
	}
	return c
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

// ServerType finds a server type by ID or name.
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

// Datacenters lists the datacenters.
func (c *Catalog) Datacenters() []schema.Datacenter { return c.datacenters }

// ServerTypes lists the server types.
func (c *Catalog) ServerTypes() []schema.ServerType { return c.serverTypes }

// LBTypes lists the load balancer types.
func (c *Catalog) LBTypes() []schema.LoadBalancerType { return c.lbTypes }

// Images lists the images.
func (c *Catalog) Images() []schema.Image { return c.images }
