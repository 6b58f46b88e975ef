package world

import (
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/timeseries"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// TestLoadBalancerMetricsOverLostHistory: where the kept samples no
// longer reach, a rate reads as no change, not as everything carried
// since counting began arriving at once.
func TestLoadBalancerMetricsOverLostHistory(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	w := New(Config{Now: func() time.Time { return now }})
	var lb LoadBalancerView
	if !runOK(w, func(tx *Tx) bool {
		created, err := tx.CreateLoadBalancer(LoadBalancerCreateRequest{LoadBalancerCreateRequest: schema.LoadBalancerCreateRequest{Name: "lb",
			LoadBalancerType: schema.IDOrName{Name: "lb11"}, Location: hcloudString("fsn1")}})
		lb = created.LoadBalancer
		return err == nil
	}) {
		t.Fatal("no load balancer")
	}
	// Counting began at t0+1h; the samples kept start at t0+2h, when a
	// million connections had been counted, then one a second.
	since, kept := t0.Add(time.Hour), t0.Add(2*time.Hour)
	var samples []trafficspec.Counters
	for i := range 3600 {
		samples = append(samples, trafficspec.Counters{At: kept.Add(time.Duration(i) * time.Second), Connections: 1_000_000 + uint64(i), Since: since})
	}
	w.SetTraffic(netip.Prefix{}, nil, func(int64) []trafficspec.Counters { return samples })
	now = t0.Add(3 * time.Hour)
	q := timeseries.Query{Types: []string{"connections_per_second"}, Start: t0.Add(90 * time.Minute), End: t0.Add(150 * time.Minute), Step: 60}
	var answer timeseries.Answer
	runOK(w, func(tx *Tx) bool {
		a, err := tx.LoadBalancerMetrics(lb.ID, q)
		answer = a
		return err == nil
	})
	values := answer.Metrics.TimeSeries["connections_per_second"].Values
	if len(values) != 61 {
		t.Fatalf("%d samples, want 61", len(values))
	}
	for _, v := range values {
		rate, _ := strconv.ParseFloat(v[1].(string), 64)
		if rate > 1.01 {
			t.Errorf("at %v a rate of %v connections a second, want at most 1", v[0], rate)
		}
	}
}

// runOK runs f as a request and reports whether it succeeded.
func runOK(w *State, f func(*Tx) bool) bool {
	ok := false
	w.Run(func(tx *Tx) bool { ok = f(tx); return ok })
	return ok
}
