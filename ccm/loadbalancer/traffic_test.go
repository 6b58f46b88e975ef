package loadbalancer

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestTrafficMetricsWithinTheirShare: each turn reads one load balancer's
// figures, the one read longest ago, and none more often than once a
// minute: a turn with every one read within the minute sends nothing.
func TestTrafficMetricsWithinTheirShare(t *testing.T) {
	a, b := lbService("a", []int32{80}), lbService("b", []int32{80})
	c, _ := healthCluster(t, 2, a, b)
	c.clock.Advance(time.Since(c.clock.Now())) // the API's figures are of its clock's last minutes
	turn := func() uint64 {
		t.Helper()
		before := c.FC.Requests("GET", "/load_balancers/{id}/metrics")
		all := c.Requests()
		if err := c.lbs.readTraffic(t.Context()); err != nil {
			t.Fatalf("readTraffic: %v", err)
		}
		n := c.FC.Requests("GET", "/load_balancers/{id}/metrics") - before
		if other := c.Requests() - all - n; other != 0 {
			t.Errorf("a turn sent %d requests besides the metrics", other)
		}
		return n
	}
	for _, svc := range []*corev1.Service{a, b} {
		if n := turn(); n != 1 {
			t.Fatalf("turn for %s: %d requests, want 1", svc.Name, n)
		}
	}
	m := gather(t, c.lbs)
	for _, svc := range []string{"a", "b"} {
		for _, name := range []string{"hcloud_ccm_load_balancer_open_connections", "hcloud_ccm_load_balancer_bandwidth_in_bytes_per_second",
			"hcloud_ccm_load_balancer_traffic_read_timestamp_seconds"} {
			if _, ok := m[name+"{namespace=default,service="+svc+"}"]; !ok {
				t.Errorf("no %s for Service %s", name, svc)
			}
		}
	}
	if n := turn(); n != 0 {
		t.Errorf("a turn with both read within the minute: %d requests, want 0", n)
	}
	c.clock.Advance(trafficMinAge)
	if n := turn(); n != 1 {
		t.Errorf("a turn a minute later: %d requests, want 1", n)
	}
}
