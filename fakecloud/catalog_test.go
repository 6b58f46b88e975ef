package fakecloud

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/exp/deprecationutil"
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

// TestCatalogDatacentersGone: datacenters were removed after 2026-10-01,
// and both their endpoints answer 410 deprecated_api_endpoint.
func TestCatalogDatacentersGone(t *testing.T) {
	f := newFixture(t, Options{})
	for _, path := range []string{"/v1/datacenters", "/v1/datacenters/4", "/v1/datacenters?name=fsn1-dc14"} {
		resp, body := f.do(t, "GET", path, "")
		if resp.StatusCode != http.StatusGone || !containsCode(body, "deprecated_api_endpoint") {
			t.Errorf("GET %s: %d %s, want 410 deprecated_api_endpoint", path, resp.StatusCode, body)
		}
	}
	_, _, err := f.client.Datacenter.GetByID(t.Context(), 4) //nolint:staticcheck // what an old client meets
	var details hcloud.ErrorDetailsDeprecatedAPIEndpoint
	if herr := (hcloud.Error{}); !asError(err, &herr) || !hcloud.IsError(err, hcloud.ErrorDeprecatedAPIEndpoint) {
		t.Fatalf("hcloud-go: %v, want deprecated_api_endpoint", err)
	} else if details, _ = herr.Details.(hcloud.ErrorDetailsDeprecatedAPIEndpoint); !strings.Contains(details.Announcement, "datacenters-deprecated") {
		t.Errorf("hcloud-go reads the announcement %q, want the changelog's entry", details.Announcement)
	}
}

// TestCatalogServerTypes: today's types with their sizes and where they
// are sold; the CPX generation 1 types deprecated outside the US; the
// retired CX generation 2 types left out of the listing but answered by ID.
func TestCatalogServerTypes(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	eu, euSin := []string{"fsn1", "nbg1", "hel1"}, []string{"fsn1", "nbg1", "hel1", "sin"}
	tests := []struct {
		name       string
		cores      int
		memory     float32
		disk       int
		arch       hcloud.Architecture
		cpu        hcloud.CPUType
		sold, gone []string // locations where it is sold, and where it is deprecated
	}{
		{"cx23", 2, 4, 40, hcloud.ArchitectureX86, hcloud.CPUTypeShared, eu, nil},
		{"cx33", 4, 8, 80, hcloud.ArchitectureX86, hcloud.CPUTypeShared, eu, nil},
		{"cpx12", 1, 2, 40, hcloud.ArchitectureX86, hcloud.CPUTypeShared, euSin, nil},
		{"cpx22", 2, 4, 80, hcloud.ArchitectureX86, hcloud.CPUTypeShared, euSin, nil},
		{"cpx11", 2, 2, 40, hcloud.ArchitectureX86, hcloud.CPUTypeShared, []string{"ash", "hil"}, euSin},
		{"cax11", 2, 4, 40, hcloud.ArchitectureARM, hcloud.CPUTypeShared, eu, nil},
		{"ccx13", 2, 8, 80, hcloud.ArchitectureX86, hcloud.CPUTypeDedicated, []string{"fsn1", "nbg1", "hel1", "ash", "hil", "sin"}, nil},
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
			if st.IsDeprecated() || st.IncludedTraffic != 0 { //nolint:staticcheck // the field the API still sends as 0
				t.Errorf("%s: deprecated %v, included_traffic %d; want neither (deprecation is per location, traffic per price)", tt.name, st.IsDeprecated(), st.IncludedTraffic) //nolint:staticcheck
			}
			var sold, gone, priced []string
			for _, l := range st.Locations {
				switch {
				case l.IsDeprecated() && !l.Available && !l.Recommended:
					gone = append(gone, l.Location.Name)
				case l.Available && l.Recommended && !l.IsDeprecated():
					sold = append(sold, l.Location.Name)
				default:
					t.Errorf("%s in %s: available %v, recommended %v, deprecated %v", tt.name, l.Location.Name, l.Available, l.Recommended, l.IsDeprecated())
				}
			}
			for _, p := range st.Pricings {
				if p.Location != nil && p.Hourly.Net != "" && p.Monthly.Gross != "" && p.IncludedTraffic > 0 {
					priced = append(priced, p.Location.Name)
				}
			}
			slices.Sort(sold)
			slices.Sort(gone)
			slices.Sort(priced)
			wantSold, wantGone := slices.Sorted(slices.Values(tt.sold)), slices.Sorted(slices.Values(tt.gone))
			if diff := cmp.Diff(wantSold, sold); diff != "" {
				t.Errorf("sold in (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantGone, gone, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("deprecated in (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(slices.Sorted(slices.Values(append(wantSold, wantGone...))), priced); diff != "" {
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
	// The retired CX generation 2: not listed, not found by name, answered
	// by ID with the deprecation.
	for id, name := range map[int64]string{104: "cx22", 105: "cx32", 106: "cx42", 107: "cx52"} {
		if seen[name] {
			t.Errorf("the retired %s is listed", name)
		}
		if byName, _, err := f.client.ServerType.GetByName(ctx, name); err != nil || byName != nil {
			t.Errorf("GetByName(%s): %v %v, want none", name, byName, err)
		}
		byID, _, err := f.client.ServerType.GetByID(ctx, id)
		if err != nil || byID == nil || byID.Name != name || !byID.IsDeprecated() || byID.UnavailableAfter().Year() != 2025 {
			t.Errorf("GetByID(%d): %+v %v, want %s deprecated, unavailable after 2025", id, byID, err, name)
		}
	}
	// CX11, ID 1, went in 2024: hcloud-go says what the Terraform
	// provider's acceptance test expects of it.
	cx11, _, err := f.client.ServerType.GetByID(ctx, 1)
	if err != nil || cx11 == nil || seen["cx11"] {
		t.Fatalf("GetByID(1): %+v %v (listed: %v), want cx11 unlisted", cx11, err, seen["cx11"])
	}
	msg, unavailable := deprecationutil.ServerTypeMessage(cx11, "fsn1")
	if want := `Server Type "cx11" is unavailable in all locations and can no longer be ordered`; msg != want || !unavailable {
		t.Errorf("cx11: %q %v, want %q", msg, unavailable, want)
	}
}

// TestRetiredAndUnsoldServerTypes: the live API's answers for a type that
// cannot be ordered where it is asked for; nothing is created.
func TestRetiredAndUnsoldServerTypes(t *testing.T) {
	f := newFixture(t, Options{})
	for _, tt := range []struct{ typ, location, code, message string }{
		{"cx22", "fsn1", "invalid_input", "server type 104 is deprecated"},
		{"104", "nbg1", "invalid_input", "server type 104 is deprecated"},
		{"1", "hel1", "invalid_input", "server type 1 is deprecated"},
		{"cpx11", "fsn1", "invalid_input", "unsupported location for server type"},
		{"cx23", "ash", "invalid_input", "unsupported location for server type"},
		{"cax11", "sin", "invalid_input", "unsupported location for server type"},
	} {
		body := `{"name":"s","server_type":"` + tt.typ + `","image":"ubuntu-24.04","location":"` + tt.location + `"}`
		resp, got := f.do(t, "POST", "/v1/servers", body)
		var e struct {
			Error struct{ Code, Message string }
		}
		_ = json.Unmarshal(got, &e)
		if resp.StatusCode != http.StatusUnprocessableEntity || e.Error.Code != tt.code || e.Error.Message != tt.message {
			t.Errorf("%s in %s: %d %s, want 422 %s %q", tt.typ, tt.location, resp.StatusCode, got, tt.code, tt.message)
		}
	}
	if all, _ := f.client.Server.All(t.Context()); len(all) != 0 {
		t.Errorf("%d servers after refused creates, want none", len(all))
	}
	// A type still sold in the US can be ordered there.
	us := newServer(t, f, hcloud.ServerCreateOpts{Name: "us", ServerType: &hcloud.ServerType{Name: "cpx11"}, Location: &hcloud.Location{Name: "ash"}})
	if us.IncludedTraffic != 1<<40 {
		t.Errorf("cpx11 in ash includes %d bytes of traffic, want 1 TB", us.IncludedTraffic)
	}
	// Changing to a type not sold in the server's location is refused.
	act, _, err := f.client.Server.Poweroff(t.Context(), us)
	if err == nil {
		err = f.client.Action.WaitFor(t.Context(), act)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.Server.ChangeType(t.Context(), us, hcloud.ServerChangeTypeOpts{ServerType: &hcloud.ServerType{Name: "cx23"}})
	wantCode(t, err, "invalid_server_type")
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
	for _, family := range []string{"locations", "server_types", "load_balancer_types", "images", "ssh_keys", "primary_ips", "certificates"} {
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
