package fakecloud

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
