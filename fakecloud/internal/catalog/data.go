package catalog

import (
	"cmp"
	"time"
)

// The catalogue as the live API answered it on the fidelity date
// (fidelity.Simulated.Catalogue); each table cites where its values come
// from in docs/reference/fakecloud/deviations.md ("Evidence from the live
// API"). Prices are illustrative: the shape and order of magnitude of the
// price list, the same in every location.

// locationData are the locations. The datacenter is no longer an API
// resource (GET /datacenters answers 410 since 2026-10-01), but the
// metadata service still names it as the availability zone.
var locationData = []struct {
	id                              int64
	name, desc, country, city, zone string
	lat, lon                        float64
	dcID                            int64
	dc, dcDesc                      string
}{
	{1, "fsn1", "Falkenstein DC Park 1", "DE", "Falkenstein", "eu-central", 50.47612, 12.370071, 4, "fsn1-dc14", "Falkenstein 1 virtual DC 14"},
	{2, "nbg1", "Nuremberg DC Park 1", "DE", "Nuremberg", "eu-central", 49.452102, 11.076665, 2, "nbg1-dc3", "Nuremberg 1 virtual DC 3"},
	{3, "hel1", "Helsinki DC Park 1", "FI", "Helsinki", "eu-central", 60.169855, 24.938379, 3, "hel1-dc2", "Helsinki 1 virtual DC 2"},
	{4, "ash", "Ashburn, VA", "US", "Ashburn, VA", "us-east", 39.045821, -77.487073, 5, "ash-dc1", "Ashburn virtual DC 1"},
	{5, "hil", "Hillsboro, OR", "US", "Hillsboro, OR", "us-west", 45.54222, -122.951924, 6, "hil-dc1", "Hillsboro virtual DC 1"},
	{6, "sin", "Singapore", "SG", "Singapore", "ap-southeast", 1.283333, 103.833333, 7, "sin-dc1", "Singapore virtual DC 1"},
}

// Where types are sold.
var (
	eu    = []string{"fsn1", "nbg1", "hel1"}
	us    = []string{"ash", "hil"}
	euSin = []string{"fsn1", "nbg1", "hel1", "sin"}
	all   = []string{"fsn1", "nbg1", "hel1", "ash", "hil", "sin"}
)

// The deprecation of CX generation 2 and CPX generation 1 (changelog
// 2025-10-16 "Server Types deprecated"): CX22 to CX52 everywhere, CPX11 to
// CPX51 outside the US; neither can be ordered there since 2026.
var (
	gen1Announced   = time.Date(2025, 10, 16, 6, 0, 0, 0, time.UTC)
	gen1Unavailable = time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
)

// The deprecation of the first CX generation (changelog 2024-06-06 "Old
// server types with shared Intel vCPUs are deprecated"), removed in
// September 2024; the exact day was not seen. CX11 is ID 1: the Terraform
// provider's acceptance tests order server type "1" and expect "cx11"
// unavailable in all locations.
var (
	gen0Announced   = time.Date(2024, 6, 6, 6, 0, 0, 0, time.UTC)
	gen0Unavailable = time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
)

// serverTypeData are the server types, by ID. sold lists the locations a
// type is sold in, withdrawn those where it is deprecated and no longer
// sold; retired types (CX generation 2) are deprecated everywhere, left out
// of listings, and still answered by ID.
var serverTypeData = []struct {
	id              int64
	name, desc, cat string
	cores           int
	mem             float32
	disk            int
	cpu, arch       string
	monthly         string
	sold, withdrawn []string
	retired         bool
}{
	{1, "cx11", "CX11", "cost_optimized", 1, 2, 20, "shared", "x86", "3.2900", nil, eu, true},
	{22, "cpx11", "CPX 11", "regular_purpose", 2, 2, 40, "shared", "x86", "5.4900", us, euSin, false},
	{23, "cpx21", "CPX 21", "regular_purpose", 3, 4, 80, "shared", "x86", "9.9900", us, euSin, false},
	{24, "cpx31", "CPX 31", "regular_purpose", 4, 8, 160, "shared", "x86", "18.4900", us, euSin, false},
	{25, "cpx41", "CPX 41", "regular_purpose", 8, 16, 240, "shared", "x86", "33.4900", us, euSin, false},
	{26, "cpx51", "CPX 51", "regular_purpose", 16, 32, 360, "shared", "x86", "67.9900", us, euSin, false},
	{45, "cax11", "CAX11", "cost_optimized", 2, 4, 40, "shared", "arm", "5.9900", eu, nil, false},
	{93, "cax21", "CAX21", "cost_optimized", 4, 8, 80, "shared", "arm", "10.4900", eu, nil, false},
	{94, "cax31", "CAX31", "cost_optimized", 8, 16, 160, "shared", "arm", "20.9900", eu, nil, false},
	{95, "cax41", "CAX41", "cost_optimized", 16, 32, 320, "shared", "arm", "40.9900", eu, nil, false},
	{96, "ccx13", "CCX13 Dedicated CPU", "general_purpose", 2, 8, 80, "dedicated", "x86", "42.9900", all, nil, false},
	{97, "ccx23", "CCX23 Dedicated CPU", "general_purpose", 4, 16, 160, "dedicated", "x86", "85.9900", all, nil, false},
	{98, "ccx33", "CCX33 Dedicated CPU", "general_purpose", 8, 32, 240, "dedicated", "x86", "138.4900", all, nil, false},
	{99, "ccx43", "CCX43 Dedicated CPU", "general_purpose", 16, 64, 360, "dedicated", "x86", "275.9900", all, nil, false},
	{100, "ccx53", "CCX53 Dedicated CPU", "general_purpose", 32, 128, 600, "dedicated", "x86", "551.9900", all, nil, false},
	{101, "ccx63", "CCX63 Dedicated CPU", "general_purpose", 48, 192, 960, "dedicated", "x86", "827.9900", all, nil, false},
	{104, "cx22", "CX22", "cost_optimized", 2, 4, 40, "shared", "x86", "4.5900", nil, eu, true},
	{105, "cx32", "CX32", "cost_optimized", 4, 8, 80, "shared", "x86", "7.5900", nil, eu, true},
	{106, "cx42", "CX42", "cost_optimized", 8, 16, 160, "shared", "x86", "18.5900", nil, eu, true},
	{107, "cx52", "CX52", "cost_optimized", 16, 32, 320, "shared", "x86", "36.5900", nil, eu, true},
	{108, "cpx12", "CPX 12", "regular_purpose", 1, 2, 40, "shared", "x86", "11.4900", euSin, nil, false},
	{109, "cpx22", "CPX 22", "regular_purpose", 2, 4, 80, "shared", "x86", "19.4900", euSin, nil, false},
	{110, "cpx32", "CPX 32", "regular_purpose", 4, 8, 160, "shared", "x86", "35.4900", euSin, nil, false},
	{111, "cpx42", "CPX 42", "regular_purpose", 8, 16, 320, "shared", "x86", "69.4900", euSin, nil, false},
	{112, "cpx52", "CPX 52", "regular_purpose", 12, 24, 480, "shared", "x86", "100.4900", euSin, nil, false},
	{113, "cpx62", "CPX 62", "regular_purpose", 16, 32, 640, "shared", "x86", "129.9900", euSin, nil, false},
	{114, "cx23", "CX23", "cost_optimized", 2, 4, 40, "shared", "x86", "5.4900", eu, nil, false},
	{115, "cx33", "CX33", "cost_optimized", 4, 8, 80, "shared", "x86", "8.4900", eu, nil, false},
	{116, "cx43", "CX43", "cost_optimized", 8, 16, 160, "shared", "x86", "15.9900", eu, nil, false},
	{117, "cx53", "CX53", "cost_optimized", 16, 32, 320, "shared", "x86", "29.4900", eu, nil, false},
}

// IncludedTraffic is the traffic, in bytes a month, a server or load
// balancer type includes in a location: what its price there says.
func IncludedTraffic(typ, location string) uint64 { return uint64(includedTB(typ, location)) * tb }

// includedTB is the traffic included per month, in TB: 20 TB in Europe
// (more for the larger dedicated types), far less in the US and Singapore.
func includedTB(typ string, location string) int64 {
	switch location {
	case "fsn1", "nbg1", "hel1":
		return cmp.Or(map[string]int64{"ccx33": 30, "ccx43": 40, "ccx53": 50, "ccx63": 60}[typ], 20)
	case "sin":
		return 1
	}
	return cmp.Or(map[string]int64{"cpx21": 2, "cpx31": 3, "cpx41": 4, "cpx51": 5,
		"ccx23": 2, "ccx33": 3, "ccx43": 4, "ccx53": 6, "ccx63": 8}[typ], 1)
}

// lbTypeData are the load balancer types, sold everywhere.
var lbTypeData = []struct {
	id                              int64
	name                            string
	conns, services, targets, certs int
	monthly                         string
}{
	{1, "lb11", 10000, 5, 25, 10, "7.4900"},
	{2, "lb21", 20000, 15, 75, 25, "21.4900"},
	{3, "lb31", 40000, 30, 150, 50, "42.9900"},
}

// imageData are the system images. The Ubuntu 24.04, Ubuntu 26.04 and
// Debian 12 IDs are the live ones; the others are fakecloud's own.
var imageData = []struct {
	id                 int64
	name, desc, flavor string
	version, arch      string
}{
	{67794396, "ubuntu-22.04", "Ubuntu 22.04", "ubuntu", "22.04", "x86"},
	{161547269, "ubuntu-24.04", "Ubuntu 24.04", "ubuntu", "24.04", "x86"},
	{161547270, "ubuntu-24.04", "Ubuntu 24.04", "ubuntu", "24.04", "arm"},
	{387894169, "ubuntu-26.04", "Ubuntu 26.04", "ubuntu", "26.04", "x86"},
	{114690387, "debian-12", "Debian 12", "debian", "12", "x86"},
	{114690389, "debian-12", "Debian 12", "debian", "12", "arm"},
	{202636210, "debian-13", "Debian 13", "debian", "13", "x86"},
	{211112017, "fedora-42", "Fedora 42", "fedora", "42", "x86"},
	{76766499, "rocky-9", "Rocky Linux 9", "rocky", "9", "x86"},
	{76766502, "alma-9", "AlmaLinux 9", "alma", "9", "x86"},
}
