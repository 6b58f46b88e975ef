package fakecloud

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// unserved are the parts of the vendored description fakecloud does not
// serve, by path prefix, each with the reason. An operation that is
// neither served by a route of its own nor under one of these fails
// TestEveryOperationServed, and so does a prefix left here once served.
var unserved = map[string]string{}

// TestEveryOperationServed: every operation of the vendored OpenAPI
// description has a route of its own (the catch-all of a family's unknown
// actions does not count), or is unserved with its reason.
func TestEveryOperationServed(t *testing.T) {
	data, err := os.ReadFile("../testdata/openapi/cloud.spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	err = chi.Walk(New(Options{}).api, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		served[method+" "+shape(route)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total, left := 0, map[string]int{}
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		for _, m := range slices.Sorted(maps.Keys(doc.Paths[path])) {
			if !slices.Contains([]string{"get", "post", "put", "delete", "patch"}, m) {
				continue
			}
			total++
			key := strings.ToUpper(m) + " " + shape(path)
			prefix := slices.IndexFunc(slices.Sorted(maps.Keys(unserved)), func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") })
			switch {
			case served[key] && prefix >= 0:
				t.Errorf("%s is served, yet under an unserved prefix: take the prefix off the list", key)
			case served[key]:
			case prefix >= 0:
				left[slices.Sorted(maps.Keys(unserved))[prefix]]++
			default:
				t.Errorf("%s %s is neither served nor unserved with a reason", strings.ToUpper(m), path)
			}
		}
	}
	for prefix, reason := range unserved {
		if left[prefix] == 0 {
			t.Errorf("nothing of the description is under %s (%s): take it off the list", prefix, reason)
		}
	}
	n := 0
	for _, c := range left {
		n += c
	}
	t.Logf("%d of the description's %d operations served; unserved: %v", total-n, total, left)
}
