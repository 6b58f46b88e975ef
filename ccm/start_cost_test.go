package ccm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestStartCost: the requests a start sends, by the number of servers,
// with a network and routes, as fakecloud counts them. The official CCM
// sends 4 at 60 Nodes; this CCM sends 3 there (the network, a two-page
// listing) and up to 100 servers, where the change feed is of no use
// (6 before: the feed's first read came first whatever the size).
// Beyond, the feed's first read sets its cursor before the listing, and
// the listing's first page, which told the size, is read again.
func TestStartCost(t *testing.T) {
	var table strings.Builder
	table.WriteString("| servers | requests at start | of them |\n|---:|---:|---|\n")
	for _, n := range []int{10, 60, 100, 101, 1000} {
		c := newCloud(t, n, fakecloud.Options{})
		cfg := testConfig(c)
		cfg.Network, cfg.RoutesEnabled = "k8s", true
		c.FC.ResetCounters()
		if _, err := New(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
		got := c.requests()
		fmt.Fprintf(&table, "| %d | %d | %s |\n", n, got, byRoute(c.FC.Counters()))
		pages := (n + 49) / 50
		want := 1 + pages // the network, the listing
		if pages > 2 {
			want += 4 // the feed's first read of its two streams (3 pages), and the listing's first page again
		}
		if got > uint64(want) {
			t.Errorf("start at %d servers sent %d requests, want at most %d", n, got, want)
		}
	}
	t.Logf("\n%s", table.String())
}

// byRoute sums counters by method and route, in order.
func byRoute(cs []fakecloud.Counter) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %s %d", c.Method, c.Template, c.Count))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
