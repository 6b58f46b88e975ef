package hcloudapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestCatalogLocations(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	want := []struct {
		name    string
		zone    hcloud.NetworkZone
		country string
	}{
		{"fsn1", hcloud.NetworkZoneEUCentral, "DE"},
		{"nbg1", hcloud.NetworkZoneEUCentral, "DE"},
		{"hel1", hcloud.NetworkZoneEUCentral, "FI"},
		{"ash", hcloud.NetworkZoneUSEast, "US"},
		{"hil", hcloud.NetworkZoneUSWest, "US"},
		{"sin", hcloud.NetworkZoneAPSouthEast, "SG"},
	}
	all, err := f.client.Location.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var gotNames, wantNames []string
	for _, l := range all {
		gotNames = append(gotNames, l.Name)
	}
	for _, w := range want {
		wantNames = append(wantNames, w.name)
	}
	if diff := cmp.Diff(wantNames, gotNames); diff != "" {
		t.Errorf("All locations (-want +got):\n%s", diff)
	}
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			l, _, err := f.client.Location.GetByName(ctx, w.name)
			if err != nil || l == nil {
				t.Fatalf("GetByName: %v %v", l, err)
			}
			if l.NetworkZone != w.zone || l.Country != w.country || l.City == "" || l.Description == "" {
				t.Errorf("%s: zone %q country %q city %q description %q, want zone %q country %q",
					w.name, l.NetworkZone, l.Country, l.City, l.Description, w.zone, w.country)
			}
			byID, _, err := f.client.Location.GetByID(ctx, l.ID)
			if err != nil || byID == nil {
				t.Fatalf("GetByID(%d): %v %v", l.ID, byID, err)
			}
			if diff := cmp.Diff(l, byID); diff != "" {
				t.Errorf("GetByID differs from GetByName (-name +id):\n%s", diff)
			}
		})
	}
	missing, _, err := f.client.Location.GetByName(ctx, "mars1")
	if err != nil || missing != nil {
		t.Errorf("unknown location: %v %v, want nil, nil", missing, err)
	}
}

func TestCatalogDatacenters(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	cx22, _, err := f.client.ServerType.GetByName(ctx, "cx22")
	if err != nil || cx22 == nil {
		t.Fatalf("cx22: %v %v", cx22, err)
	}
	tests := []struct {
		name, location string
		zone           hcloud.NetworkZone
	}{
		{"fsn1-dc14", "fsn1", hcloud.NetworkZoneEUCentral},
		{"nbg1-dc3", "nbg1", hcloud.NetworkZoneEUCentral},
		{"hel1-dc2", "hel1", hcloud.NetworkZoneEUCentral},
		{"ash-dc1", "ash", hcloud.NetworkZoneUSEast},
		{"hil-dc1", "hil", hcloud.NetworkZoneUSWest},
		{"sin-dc1", "sin", hcloud.NetworkZoneAPSouthEast},
	}
	all, err := f.client.Datacenter.All(ctx) //nolint:staticcheck // the fake still serves datacenters
	if err != nil || len(all) != len(tests) {
		t.Fatalf("All datacenters: %d %v, want %d", len(all), err, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc, _, err := f.client.Datacenter.GetByName(ctx, tt.name) //nolint:staticcheck
			if err != nil || dc == nil {
				t.Fatalf("GetByName: %v %v", dc, err)
			}
			if dc.Location == nil || dc.Location.Name != tt.location || dc.Location.NetworkZone != tt.zone {
				t.Errorf("location %+v, want %s in %s", dc.Location, tt.location, tt.zone)
			}
			hasCX22 := func(types []*hcloud.ServerType) bool {
				return slices.ContainsFunc(types, func(st *hcloud.ServerType) bool { return st.ID == cx22.ID })
			}
			if !hasCX22(dc.ServerTypes.Available) || !hasCX22(dc.ServerTypes.Supported) { //nolint:staticcheck
				t.Errorf("cx22 (%d) is not available and supported in %s", cx22.ID, tt.name)
			}
			byID, _, err := f.client.Datacenter.GetByID(ctx, dc.ID) //nolint:staticcheck
			if err != nil || byID == nil || byID.Name != tt.name {
				t.Errorf("GetByID(%d): %v %v", dc.ID, byID, err)
			}
		})
	}
}

func TestCatalogServerTypes(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	tests := []struct {
		name   string
		cores  int
		memory float32
		disk   int
		arch   hcloud.Architecture
		cpu    hcloud.CPUType
	}{
		{"cx22", 2, 4, 40, hcloud.ArchitectureX86, hcloud.CPUTypeShared},
		{"cx32", 4, 8, 80, hcloud.ArchitectureX86, hcloud.CPUTypeShared},
		{"cx42", 8, 16, 160, hcloud.ArchitectureX86, hcloud.CPUTypeShared},
		{"cpx21", 3, 4, 80, hcloud.ArchitectureX86, hcloud.CPUTypeShared},
		{"cax11", 2, 4, 40, hcloud.ArchitectureARM, hcloud.CPUTypeShared},
		{"ccx13", 2, 8, 80, hcloud.ArchitectureX86, hcloud.CPUTypeDedicated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _, err := f.client.ServerType.GetByName(ctx, tt.name)
			if err != nil || st == nil {
				t.Fatalf("GetByName: %v %v", st, err)
			}
			if st.Name != tt.name || st.Cores != tt.cores || st.Memory != tt.memory || st.Disk != tt.disk ||
				st.Architecture != tt.arch || st.CPUType != tt.cpu || st.StorageType != hcloud.StorageTypeLocal {
				t.Errorf("%s: cores %d memory %v disk %d arch %s cpu %s storage %s", tt.name, st.Cores, st.Memory, st.Disk, st.Architecture, st.CPUType, st.StorageType)
			}
			var priced []string
			for _, p := range st.Pricings {
				if p.Location != nil && p.Hourly.Net != "" && p.Monthly.Gross != "" {
					priced = append(priced, p.Location.Name)
				}
			}
			if diff := cmp.Diff([]string{"fsn1", "nbg1", "hel1", "ash", "hil", "sin"}, priced); diff != "" {
				t.Errorf("locations with prices (-want +got):\n%s", diff)
			}
			byID, _, err := f.client.ServerType.GetByID(ctx, st.ID)
			if err != nil || byID == nil || byID.Name != tt.name {
				t.Errorf("GetByID(%d): %v %v", st.ID, byID, err)
			}
		})
	}
	all, err := f.client.ServerType.All(ctx)
	if err != nil || len(all) < len(tests) {
		t.Fatalf("All server types: %d %v", len(all), err)
	}
	seen := map[string]bool{}
	for _, st := range all {
		if seen[st.Name] {
			t.Errorf("server type %s listed twice", st.Name)
		}
		seen[st.Name] = true
	}
	for _, tt := range tests {
		if !seen[tt.name] {
			t.Errorf("All lacks %s", tt.name)
		}
	}
}

func TestCatalogLoadBalancerTypes(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	tests := []struct {
		name                             string
		maxTargets, maxServices, maxCert int
	}{
		{"lb11", 25, 5, 10},
		{"lb21", 75, 15, 25},
		{"lb31", 150, 30, 50},
	}
	all, err := f.client.LoadBalancerType.All(ctx)
	if err != nil || len(all) != len(tests) {
		t.Fatalf("All load balancer types: %d %v, want %d", len(all), err, len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if all[i].Name != tt.name {
				t.Errorf("All[%d] = %s, want %s", i, all[i].Name, tt.name)
			}
			lt, _, err := f.client.LoadBalancerType.GetByName(ctx, tt.name)
			if err != nil || lt == nil {
				t.Fatalf("GetByName: %v %v", lt, err)
			}
			if lt.MaxTargets != tt.maxTargets || lt.MaxServices != tt.maxServices || lt.MaxAssignedCertificates != tt.maxCert || lt.MaxConnections <= 0 {
				t.Errorf("%s: max_targets %d max_services %d max_assigned_certificates %d max_connections %d, want %d %d %d",
					tt.name, lt.MaxTargets, lt.MaxServices, lt.MaxAssignedCertificates, lt.MaxConnections, tt.maxTargets, tt.maxServices, tt.maxCert)
			}
			if len(lt.Pricings) != 6 {
				t.Errorf("%d prices, want one per location", len(lt.Pricings))
			}
			byID, _, err := f.client.LoadBalancerType.GetByID(ctx, lt.ID)
			if err != nil || byID == nil {
				t.Fatalf("GetByID(%d): %v %v", lt.ID, byID, err)
			}
			if diff := cmp.Diff(lt, byID); diff != "" {
				t.Errorf("GetByID differs from GetByName (-name +id):\n%s", diff)
			}
		})
	}
}

func TestCatalogImages(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	tests := []struct {
		name string
		arch hcloud.Architecture
		ok   bool
	}{
		{"ubuntu-24.04", hcloud.ArchitectureX86, true},
		{"ubuntu-24.04", hcloud.ArchitectureARM, true},
		{"ubuntu-22.04", hcloud.ArchitectureX86, true},
		{"debian-12", hcloud.ArchitectureX86, true},
		{"windows-95", hcloud.ArchitectureX86, false},
	}
	ids := map[int64]string{}
	for _, tt := range tests {
		t.Run(tt.name+"/"+string(tt.arch), func(t *testing.T) {
			im, _, err := f.client.Image.GetByNameAndArchitecture(ctx, tt.name, tt.arch)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.ok {
				if im != nil {
					t.Fatalf("got image %d, want none", im.ID)
				}
				return
			}
			if im == nil {
				t.Fatal("no image")
			}
			if im.Name != tt.name || im.Architecture != tt.arch || im.Type != hcloud.ImageTypeSystem || im.Status != hcloud.ImageStatusAvailable || im.OSFlavor == "" {
				t.Errorf("image %+v", im)
			}
			if other, dup := ids[im.ID]; dup {
				t.Errorf("image %d is both %s and %s/%s", im.ID, other, tt.name, tt.arch)
			}
			ids[im.ID] = tt.name + "/" + string(tt.arch)
			byID, _, err := f.client.Image.GetByID(ctx, im.ID)
			if err != nil || byID == nil || byID.Name != tt.name || byID.Architecture != tt.arch {
				t.Errorf("GetByID(%d): %+v %v", im.ID, byID, err)
			}
			viaGet, _, err := f.client.Image.GetForArchitecture(ctx, tt.name, tt.arch)
			if err != nil || viaGet == nil || viaGet.ID != im.ID {
				t.Errorf("GetForArchitecture: %v %v, want %d", viaGet, err, im.ID)
			}
		})
	}

	armOnly, err := f.client.Image.AllWithOpts(ctx, hcloud.ImageListOpts{Architecture: []hcloud.Architecture{hcloud.ArchitectureARM}})
	if err != nil || len(armOnly) == 0 {
		t.Fatalf("arm images: %d %v", len(armOnly), err)
	}
	for _, im := range armOnly {
		if im.Architecture != hcloud.ArchitectureARM {
			t.Errorf("architecture filter arm returned %s/%s", im.Name, im.Architecture)
		}
	}
	all, err := f.client.Image.All(ctx)
	if err != nil || len(all) <= len(armOnly) {
		t.Fatalf("all images: %d %v", len(all), err)
	}
	snapshots, err := f.client.Image.AllWithOpts(ctx, hcloud.ImageListOpts{Type: []hcloud.ImageType{hcloud.ImageTypeSnapshot}})
	if err != nil || len(snapshots) != 0 {
		t.Errorf("snapshots: %d %v, want none", len(snapshots), err)
	}
	sorted, err := f.client.Image.AllWithOpts(ctx, hcloud.ImageListOpts{Sort: []string{"name:desc"}})
	if err != nil || !slices.IsSortedFunc(sorted, func(a, b *hcloud.Image) int { return strings.Compare(b.Name, a.Name) }) {
		t.Errorf("sort name:desc: %v", err)
	}
	// The API sorts images by created too, and filters them by label.
	if _, err := f.client.Image.AllWithOpts(ctx, hcloud.ImageListOpts{Sort: []string{"created:desc"}}); err != nil {
		t.Errorf("sort created:desc: %v", err)
	}
	labelled, err := f.client.Image.AllWithOpts(ctx, hcloud.ImageListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "env=prod"}})
	if err != nil || len(labelled) != 0 {
		t.Errorf("label_selector env=prod: %d images %v, want none (system images have no labels)", len(labelled), err)
	}
}

func TestCatalogUnknownIDs(t *testing.T) {
	f := newFixture(t, Options{})
	for _, family := range []string{"locations", "datacenters", "server_types", "load_balancer_types", "images", "ssh_keys", "primary_ips", "certificates"} {
		t.Run(family, func(t *testing.T) {
			resp, body := f.do(t, "GET", "/v1/"+family+"/999999", "")
			if resp.StatusCode != http.StatusNotFound || !containsCode(body, "not_found") {
				t.Errorf("GET /v1/%s/999999: %d %s, want 404 not_found", family, resp.StatusCode, body)
			}
		})
	}
	ctx := t.Context()
	if l, _, err := f.client.Location.GetByID(ctx, 999999); l != nil || err != nil {
		t.Errorf("hcloud-go unknown location: %v %v, want nil, nil", l, err)
	}
	if st, _, err := f.client.ServerType.GetByID(ctx, 999999); st != nil || err != nil {
		t.Errorf("hcloud-go unknown server type: %v %v, want nil, nil", st, err)
	}
}

func TestCatalogListNameFilterAndPagination(t *testing.T) {
	f := newFixture(t, Options{})
	tests := []struct {
		path  string
		field string
		want  []string
	}{
		{"/v1/locations?name=hel1", "locations", []string{"hel1"}},
		{"/v1/locations?name=nowhere", "locations", nil},
		{"/v1/locations?sort=name", "locations", []string{"ash", "fsn1", "hel1", "hil", "nbg1", "sin"}},
		{"/v1/locations?per_page=2&page=3", "locations", []string{"hil", "sin"}},
		{"/v1/load_balancer_types?sort=id:desc", "load_balancer_types", []string{"lb31", "lb21", "lb11"}},
		{"/v1/datacenters?name=ash-dc1", "datacenters", []string{"ash-dc1"}},
		{"/v1/images?name=ubuntu-24.04&architecture=arm", "images", []string{"ubuntu-24.04"}},
		{"/v1/images?bound_to=1", "images", nil}, // only backups are bound to a server
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := f.do(t, "GET", tt.path, "")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			var list map[string]json.RawMessage
			if err := json.Unmarshal(body, &list); err != nil {
				t.Fatal(err)
			}
			var items []struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(list[tt.field], &items); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
	resp, body := f.do(t, "GET", "/v1/locations?sort=colour", "")
	if resp.StatusCode != http.StatusUnprocessableEntity || !containsCode(body, "invalid_input") {
		t.Errorf("bad sort: %d %s", resp.StatusCode, body)
	}
}
