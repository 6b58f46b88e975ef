package hcloudapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// A snapshot refers to the catalogue's entries instead of copying them:
// no price table, no type's locations, in any server or load balancer.
func TestSnapshotRefersToTheCatalogue(t *testing.T) {
	fc, _ := seededServer(t)
	data, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	var sections struct {
		Servers       json.RawMessage `json:"servers"`
		LoadBalancers json.RawMessage `json:"load_balancers"`
	}
	if err := json.Unmarshal(data, &sections); err != nil {
		t.Fatal(err)
	}
	for _, section := range []json.RawMessage{sections.Servers, sections.LoadBalancers} {
		for _, copied := range []string{`"prices"`, `"cores"`, `"os_flavor"`, `"country"`} {
			if strings.Contains(string(section), copied) {
				t.Errorf("the snapshot copies catalogue entries: it holds %s", copied)
			}
		}
	}
	var servers []json.RawMessage
	if err := json.Unmarshal(sections.Servers, &servers); err != nil || len(servers) == 0 {
		t.Fatalf("the small world's servers: %d (%v)", len(servers), err)
	}
	if perServer := len(sections.Servers) / len(servers); perServer > 1500 {
		t.Errorf("%d bytes per server, want the server's own fields, under 1,500", perServer)
	}
}

// A version 1 snapshot, which carried the copies, gives the same world.
func TestVersion1SnapshotIsRead(t *testing.T) {
	fc, _ := seededServer(t)
	v2, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	st, err := decodeState(v2, fc.world.cat)
	if err != nil {
		t.Fatal(err)
	}
	st.Version = 1
	v1, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(v1), `"prices"`) {
		t.Fatal("the version 1 form does not carry the copies")
	}
	twin := New(Options{Now: newClock().Now})
	if err := twin.Import(v1); err != nil {
		t.Fatalf("version 1: %v", err)
	}
	again, _ := twin.Export()
	if string(again) != string(v2) {
		t.Error("a version 1 snapshot gave another world than its version 2 form")
	}
	// A version 2 snapshot that says version 1 would load with empty
	// server types: the version is checked against the content.
	wrong := strings.Replace(string(v2), `"version": 2`, `"version": 1`, 1)
	if err := New(Options{}).Import([]byte(wrong)); err == nil || !strings.Contains(err.Error(), "version 1 carries whole server types") {
		t.Errorf("a version 2 snapshot labelled 1: %v, want refused", err)
	}
	for _, null := range []string{`{"version":1,"servers":[null]}`, `{"version":1,"load_balancers":[null]}`} {
		if err := New(Options{}).Import([]byte(null)); err == nil || !strings.Contains(err.Error(), "null") {
			t.Errorf("%s: %v, want refused naming the null entry", null, err)
		}
	}
}

// An entry the catalogue does not hold is refused, naming the field.
func TestSnapshotWithUnknownCatalogueEntries(t *testing.T) {
	fc, _ := seededServer(t)
	good, _ := fc.Export()
	for _, tc := range []struct{ from, to, field string }{
		{`"name": "fsn1"`, `"name": "mars1"`, "location.name"},
		{`"name": "lb11"`, `"name": "lb99"`, "load_balancer_type.name"},
	} {
		bad := strings.Replace(string(good), tc.from, tc.to, 1)
		if bad == string(good) {
			t.Fatalf("%s is not in the snapshot", tc.from)
		}
		if err := fc.Import([]byte(bad)); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s → %s: %v, want an error naming %s", tc.from, tc.to, err, tc.field)
		}
	}
	if now, _ := fc.Export(); string(now) != string(good) {
		t.Error("a refused snapshot changed the world")
	}
}
