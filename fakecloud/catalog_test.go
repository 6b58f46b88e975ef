package fakecloud

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
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

// sshPublicKey builds an OpenSSH ssh-ed25519 public key line from 32 bytes
// and returns it with its MD5 fingerprint as the API shows it.
func sshPublicKey(seed byte, comment string) (line, fingerprint string) {
	var blob []byte
	put := func(b []byte) {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(b)))
		blob = append(blob, b...)
	}
	key := make([]byte, 32)
	for i := range key {
		key[i] = seed + byte(i)
	}
	put([]byte("ssh-ed25519"))
	put(key)
	sum := md5.Sum(blob)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02x", b)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment, strings.Join(parts, ":")
}

func TestSSHKeyLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	pubA, fpA := sshPublicKey(1, "alice@example.com")
	pubB, fpB := sshPublicKey(2, "bob@example.com")

	a, _, err := f.client.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: "alice", PublicKey: pubA, Labels: map[string]string{"team": "ops"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "alice" || a.Fingerprint != fpA || a.PublicKey != pubA || a.Created.IsZero() {
		t.Errorf("created %+v, want fingerprint %s", a, fpA)
	}
	b, _, err := f.client.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: "bob", PublicKey: pubB + "\n"})
	if err != nil {
		t.Fatal(err)
	}
	if b.PublicKey != pubB || b.Fingerprint != fpB {
		t.Errorf("bob: public key %q fingerprint %s, want trimmed key and %s", b.PublicKey, b.Fingerprint, fpB)
	}

	got, _, err := f.client.SSHKey.GetByID(ctx, a.ID)
	if err != nil || got == nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, got); diff != "" {
		t.Errorf("GetByID differs from create (-create +get):\n%s", diff)
	}
	byName, _, err := f.client.SSHKey.GetByName(ctx, "bob")
	if err != nil || byName == nil || byName.ID != b.ID {
		t.Errorf("GetByName bob: %v %v", byName, err)
	}
	byFP, _, err := f.client.SSHKey.GetByFingerprint(ctx, fpB)
	if err != nil || byFP == nil || byFP.ID != b.ID {
		t.Errorf("GetByFingerprint: %v %v", byFP, err)
	}
	listTests := []struct {
		name string
		opts hcloud.SSHKeyListOpts
		want []string
	}{
		{"all", hcloud.SSHKeyListOpts{}, []string{"alice", "bob"}},
		{"fingerprint", hcloud.SSHKeyListOpts{Fingerprint: fpA}, []string{"alice"}},
		{"unknown fingerprint", hcloud.SSHKeyListOpts{Fingerprint: "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff"}, nil},
		{"label selector", hcloud.SSHKeyListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "team=ops"}}, []string{"alice"}},
		{"name", hcloud.SSHKeyListOpts{Name: "bob"}, []string{"bob"}},
		{"sort name desc", hcloud.SSHKeyListOpts{Sort: []string{"name:desc"}}, []string{"bob", "alice"}},
	}
	for _, tt := range listTests {
		t.Run("list "+tt.name, func(t *testing.T) {
			keys, err := f.client.SSHKey.AllWithOpts(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, k := range keys {
				names = append(names, k.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}

	up, _, err := f.client.SSHKey.Update(ctx, a, hcloud.SSHKeyUpdateOpts{Name: "alice-laptop", Labels: map[string]string{"team": "dev"}})
	if err != nil || up.Name != "alice-laptop" || cmp.Diff(map[string]string{"team": "dev"}, up.Labels) != "" || up.Fingerprint != fpA {
		t.Fatalf("update: %+v %v", up, err)
	}
	up, _, err = f.client.SSHKey.Update(ctx, a, hcloud.SSHKeyUpdateOpts{Labels: map[string]string{}})
	if err != nil || up.Name != "alice-laptop" || len(up.Labels) != 0 {
		t.Errorf("clear labels: %+v %v", up, err)
	}
	_, _, err = f.client.SSHKey.Update(ctx, a, hcloud.SSHKeyUpdateOpts{Name: "bob"})
	wantCode(t, err, hcloud.ErrorCodeUniquenessError)

	// A server created with the key gets no root password.
	res, _, err := f.client.Server.Create(ctx, hcloud.ServerCreateOpts{Name: "with-key", ServerType: &hcloud.ServerType{Name: "cx22"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, SSHKeys: []*hcloud.SSHKey{b}})
	if err != nil {
		t.Fatal(err)
	}
	if res.RootPassword != "" {
		t.Errorf("root password %q for a server with an SSH key", res.RootPassword)
	}
	// The API takes a key by name as well as by ID.
	keyByName := `{"name":"by-name","server_type":"cx22","image":"ubuntu-24.04","ssh_keys":["` + b.Name + `"]}`
	if resp, body := f.do(t, "POST", "/v1/servers", keyByName); resp.StatusCode != http.StatusCreated || strings.Contains(string(body), "root_password\":\"") {
		t.Errorf("a server with an SSH key by name: %d %s", resp.StatusCode, body)
	}
	missing := `{"name":"no-key","server_type":"cx22","image":"ubuntu-24.04","ssh_keys":["nobody"]}`
	if resp, body := f.do(t, "POST", "/v1/servers", missing); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `SSH key \"nobody\" does not exist`) {
		t.Errorf("a server with an SSH key that does not exist: %d %s", resp.StatusCode, body)
	}

	if _, err := f.client.SSHKey.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	gone, _, err := f.client.SSHKey.GetByID(ctx, a.ID)
	if err != nil || gone != nil {
		t.Errorf("deleted key still there: %v %v", gone, err)
	}
	_, err = f.client.SSHKey.Delete(ctx, a)
	wantCode(t, err, hcloud.ErrorCodeNotFound)
	left, err := f.client.SSHKey.All(ctx)
	if err != nil || len(left) != 1 || left[0].ID != b.ID {
		t.Errorf("after delete: %v %v, want only bob", left, err)
	}
	// The name is free again.
	if _, _, err := f.client.SSHKey.Create(ctx, hcloud.SSHKeyCreateOpts{Name: "alice-laptop", PublicKey: pubA}); err != nil {
		t.Errorf("re-create with a freed name and key: %v", err)
	}
}

func TestSSHKeyCreateValidation(t *testing.T) {
	f := newFixture(t, Options{})
	pubA, _ := sshPublicKey(1, "a")
	pubB, _ := sshPublicKey(2, "b")
	if _, _, err := f.client.SSHKey.Create(t.Context(), hcloud.SSHKeyCreateOpts{Name: "taken", PublicKey: pubA}); err != nil {
		t.Fatal(err)
	}
	body := func(name, key string) string {
		return string(mustJSON(t, map[string]string{"name": name, "public_key": key}))
	}
	notAKey := base64.StdEncoding.EncodeToString([]byte("this is not a key blob"))
	tests := []struct {
		name string
		body string
		want int
		code string
	}{
		{"duplicate name", body("taken", pubB), 409, "uniqueness_error"},
		{"duplicate key", body("other", pubA), 409, "uniqueness_error"},
		{"not a key", body("x", "hello world"), 422, "invalid_input"},
		{"empty key", body("x", ""), 422, "invalid_input"},
		{"type only", body("x", "ssh-ed25519"), 422, "invalid_input"},
		{"bad base64", body("x", "ssh-rsa !!!not-base64!!!"), 422, "invalid_input"},
		{"blob is not a key", body("x", "ssh-ed25519 "+notAKey), 422, "invalid_input"},
		{"blob of another type", body("x", "ssh-rsa "+strings.Fields(pubB)[1]), 422, "invalid_input"},
		{"missing name", body("", pubB), 422, "invalid_input"},
		{"reserved label", `{"name":"x","public_key":"` + pubB + `","labels":{"hetzner.cloud/x":"y"}}`, 422, "invalid_input"},
		{"malformed", `{"name":`, 400, "json_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, got := f.do(t, "POST", "/v1/ssh_keys", tt.body)
			if resp.StatusCode != tt.want || !containsCode(got, tt.code) {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, got, tt.want, tt.code)
			}
		})
	}
	_, _, err := f.client.SSHKey.Create(t.Context(), hcloud.SSHKeyCreateOpts{Name: "x", PublicKey: "ssh-rsa AAAA"})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	keys, err := f.client.SSHKey.All(t.Context())
	if err != nil || len(keys) != 1 {
		t.Errorf("keys after refused creates: %d %v, want 1", len(keys), err)
	}
}

func TestPrimaryIPsFollowServer(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Location: &hcloud.Location{Name: "hel1"}})
	only4 := newServer(t, f, hcloud.ServerCreateOpts{Name: "b", PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: false}})

	pips, err := f.client.PrimaryIP.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Type       hcloud.PrimaryIPType
		IP         string
		Assignee   int64
		AssignType string
		AutoDelete bool
		Location   string
	}
	var got []row
	for _, p := range pips {
		ip := p.IP.String()
		if p.Type == hcloud.PrimaryIPTypeIPv6 && p.Network != nil {
			ip = p.Network.String()
		}
		loc := ""
		if p.Location != nil {
			loc = p.Location.Name
		}
		got = append(got, row{p.Type, ip, p.AssigneeID, p.AssigneeType, p.AutoDelete, loc})
	}
	want := []row{
		{hcloud.PrimaryIPTypeIPv4, s.PublicNet.IPv4.IP.String(), s.ID, "server", true, "hel1"},
		{hcloud.PrimaryIPTypeIPv6, s.PublicNet.IPv6.Network.String(), s.ID, "server", true, "hel1"},
		{hcloud.PrimaryIPTypeIPv4, only4.PublicNet.IPv4.IP.String(), only4.ID, "server", true, "fsn1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("primary IPs (-want +got):\n%s", diff)
	}
	if pips[0].ID != s.PublicNet.IPv4.ID || pips[1].ID != s.PublicNet.IPv6.ID {
		t.Errorf("primary IP IDs %d %d, server public_net names %d %d", pips[0].ID, pips[1].ID, s.PublicNet.IPv4.ID, s.PublicNet.IPv6.ID)
	}
	if ptr, err := pips[0].GetDNSPtrForIP(pips[0].IP); err != nil || ptr == "" {
		t.Errorf("IPv4 primary IP has no reverse DNS: %q %v", ptr, err)
	}

	byID, _, err := f.client.PrimaryIP.GetByID(ctx, pips[0].ID)
	if err != nil || byID == nil || !byID.IP.Equal(s.PublicNet.IPv4.IP) {
		t.Errorf("GetByID: %v %v", byID, err)
	}
	byIP, _, err := f.client.PrimaryIP.GetByIP(ctx, only4.PublicNet.IPv4.IP.String())
	if err != nil || byIP == nil || byIP.AssigneeID != only4.ID {
		t.Errorf("GetByIP: %v %v", byIP, err)
	}
	byName, _, err := f.client.PrimaryIP.GetByName(ctx, pips[1].Name)
	if err != nil || byName == nil || byName.ID != pips[1].ID {
		t.Errorf("GetByName(%q): %v %v", pips[1].Name, byName, err)
	}
	sorted, err := f.client.PrimaryIP.AllWithOpts(ctx, hcloud.PrimaryIPListOpts{Sort: []string{"id:desc"}})
	if err != nil || len(sorted) != 3 || sorted[0].ID != pips[2].ID {
		t.Errorf("sort id:desc: %d %v", len(sorted), err)
	}

	res, _, err := f.client.Server.DeleteWithResult(ctx, s)
	if err != nil || f.client.Action.WaitFor(ctx, res.Action) != nil {
		t.Fatalf("delete server: %v", err)
	}
	left, err := f.client.PrimaryIP.All(ctx)
	if err != nil || len(left) != 1 || left[0].AssigneeID != only4.ID {
		t.Fatalf("after delete: %v %v, want only server b's IPv4", left, err)
	}
	for _, id := range []int64{pips[0].ID, pips[1].ID} {
		if gone, _, err := f.client.PrimaryIP.GetByID(ctx, id); gone != nil || err != nil {
			t.Errorf("primary IP %d survives its server: %v %v", id, gone, err)
		}
	}
	gone, _, err := f.client.PrimaryIP.GetByIP(ctx, s.PublicNet.IPv4.IP.String())
	if err != nil || gone != nil {
		t.Errorf("GetByIP of the deleted server's address: %v %v", gone, err)
	}
}
