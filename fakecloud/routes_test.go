package fakecloud

import (
	"net/http"
	"slices"
	"testing"

	"github.com/go-chi/chi/v5"
)

// TestOneRouteTable: the API's router serves exactly the endpoints of
// apiRoutes, each once, so the table is the whole API and a route added
// anywhere else fails here.
func TestOneRouteTable(t *testing.T) {
	var table []string
	for _, rt := range apiRoutes() {
		key := rt.method + " " + rt.pattern
		if slices.Contains(table, key) {
			t.Errorf("%s is in the route table twice", key)
		}
		table = append(table, key)
	}
	var served []string
	err := chi.Walk(New(Options{}).api, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		served = append(served, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(table)
	slices.Sort(served)
	if !slices.Equal(table, served) {
		t.Errorf("the router serves %d endpoints, the route table lists %d:\nserved %v\ntable  %v", len(served), len(table), served, table)
	}
}
