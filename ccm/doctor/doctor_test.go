package doctor

import (
	"slices"
	"strings"
	"testing"
)

// TestHealthyCluster: a healthy cluster yields no FAIL and no WARN, for
// one listing per kind of resource it needs and the write probe.
func TestHealthyCluster(t *testing.T) {
	f := newFixture().start(t)
	r := f.run(t)
	if r.Count(Fail)+r.Count(Warn) > 0 {
		t.Errorf("findings that are not OK:\n%s", dump(r))
	}
	for _, route := range []struct{ method, template string }{
		{"GET", "/servers"}, {"GET", "/networks"}, {"GET", "/load_balancers"}, {"GET", "/load_balancer_types"}, {"GET", "/locations"},
		{"POST", "/servers/{id}/actions/poweron"},
	} {
		if n := f.fc.Requests(route.method, route.template); n != 1 {
			t.Errorf("%s %s: %d requests, want 1", route.method, route.template, n)
		}
	}
	if r.Requests != 6 {
		t.Errorf("%d requests, want 6", r.Requests)
	}
	if !slices.ContainsFunc(r.Findings, func(f Finding) bool {
		return f.Check == "staleness" && strings.Contains(f.Message, "at most 5m0s old")
	}) {
		t.Error("no finding states how stale the inventory may be")
	}
	t.Log("\n" + dump(r))
}
