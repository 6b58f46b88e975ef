package fakecloud

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/lbtraffic/lbtraffictest"
)

// sum adds up a series' values.
func sum(t *testing.T, m *hcloud.ServerMetrics, name string) (float64, int) {
	t.Helper()
	total := 0.0
	for _, v := range m.TimeSeries[name] {
		x, err := strconv.ParseFloat(v.Value, 64)
		if err != nil {
			t.Fatalf("%s: value %q", name, v.Value)
		}
		total += x
	}
	return total, len(m.TimeSeries[name])
}

// TestServerMetrics: the series the types name, a sample a step from
// the server's creation to now, the same values for the same world and
// clock, zeros while it is off, and the query's faults refused.
func TestServerMetrics(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	created := clock.Now()
	clock.Advance(time.Hour)
	opts := hcloud.ServerGetMetricsOpts{Types: []hcloud.ServerMetricType{hcloud.ServerMetricCPU, hcloud.ServerMetricDisk, hcloud.ServerMetricNetwork},
		Start: created.Add(-time.Hour), End: created.Add(2 * time.Hour), Step: 60}
	m, _, err := f.client.Server.GetMetrics(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.TimeSeries) != 9 {
		t.Errorf("%d series, want cpu, four of disk and four of network", len(m.TimeSeries))
	}
	cpu, n := sum(t, m, "cpu")
	if n != 61 || cpu <= 0 || cpu > 100*61 {
		t.Errorf("cpu: %d samples adding to %v; want one a minute over the hour since creation, each a percentage", n, cpu)
	}
	if first := m.TimeSeries["cpu"][0].Timestamp; first < float64(created.Unix()) {
		t.Errorf("the first sample is at %v, before the server existed (%v)", first, created)
	}
	again, _, _ := f.client.Server.GetMetrics(ctx, s, opts)
	if again2, _ := sum(t, again, "network.0.bandwidth.in"); again2 != must(sum(t, m, "network.0.bandwidth.in")) {
		t.Error("the same query gave other values")
	}

	off, _, err := f.client.Server.Poweroff(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	f.waitAction(t, off, nil)
	if m, _, err := f.client.Server.GetMetrics(ctx, s, opts); err != nil || must(sum(t, m, "cpu")) != 0 {
		t.Errorf("an off server's cpu: %v, want zeros", err)
	}

	base := "/v1/servers/" + itoa(int(s.ID)) + "/metrics?"
	for query, want := range map[string]string{
		"start=2026-01-01T00:00:00Z&end=2026-01-02T00:00:00Z":                        "type",
		"type=memory&start=2026-01-01T00:00:00Z&end=2026-01-02T00:00:00Z":            "type",
		"type=cpu&start=yesterday&end=2026-01-02T00:00:00Z":                          "start",
		"type=cpu&start=2026-01-02T00:00:00Z&end=2026-01-01T00:00:00Z":               "after start",
		"type=cpu&start=2026-01-01T00:00:00Z&end=2026-01-02T00:00:00Z&step=-5":       "step",
		"type=cpu,disk&start=2026-01-01T00:00:00Z&end=2026-01-02T00:00:00Z&step=1.5": "step",
	} {
		resp, body := f.do(t, "GET", base+query, "")
		if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %s, want invalid_input naming %s", query, resp.StatusCode, body, want)
		}
	}
	// At most 500 samples, whatever the step asked.
	long := hcloud.ServerGetMetricsOpts{Types: []hcloud.ServerMetricType{hcloud.ServerMetricCPU}, Start: created, End: created.Add(time.Hour), Step: 1}
	on, _, _ := f.client.Server.Poweron(ctx, s)
	f.waitAction(t, on, nil)
	if m, _, err := f.client.Server.GetMetrics(ctx, s, long); err != nil || m.Step < 7 || len(m.TimeSeries["cpu"]) > 500 {
		t.Errorf("an hour at a step of 1 s: step %v and %d samples, %v; want the step raised to at most 500 samples", m.Step, len(m.TimeSeries["cpu"]), err)
	}
	if _, _, err := f.client.Server.GetMetrics(ctx, &hcloud.Server{ID: 1}, long); !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		t.Errorf("a missing server's metrics: %v, want not_found", err)
	}
}

func must(v float64, _ int) float64 { return v }

// TestLoadBalancerMetrics: a load balancer that carries no traffic
// answers zeros; one that does answers what the data plane carried.
func TestLoadBalancerMetrics(t *testing.T) {
	var nw lbtraffictest.Network
	f := newFixture(t, Options{LoadBalancerIPv4Range: netip.MustParsePrefix("127.0.102.0/24"), LoadBalancerDial: nw.Dial})
	ctx := t.Context()
	n := newNetwork(t, f, "cluster", "10.0.0.0/16", "10.0.1.0/24")
	one := newServer(t, f, hcloud.ServerCreateOpts{Name: "one", Networks: []*hcloud.Network{n}})
	backend(t, &nw, one.PrivateNet[0].IP.String()+":30080", "one")
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
		Name: "web", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Network: n,
		Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(8080), DestinationPort: hcloud.Ptr(30080),
			HealthCheck: &hcloud.LoadBalancerCreateOptsServiceHealthCheck{Protocol: hcloud.LoadBalancerServiceProtocolTCP, Port: hcloud.Ptr(30080),
				Interval: hcloud.Ptr(3 * time.Second), Timeout: hcloud.Ptr(time.Second), Retries: hcloud.Ptr(1)}}},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{
			{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: one}, UsePrivateIP: hcloud.Ptr(true)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	lb := res.LoadBalancer
	window := func() hcloud.LoadBalancerGetMetricsOpts {
		now := time.Now()
		return hcloud.LoadBalancerGetMetricsOpts{Start: now.Add(-time.Minute), End: now, Step: 1,
			Types: []hcloud.LoadBalancerMetricType{hcloud.LoadBalancerMetricOpenConnections, hcloud.LoadBalancerMetricConnectionsPerSecond,
				hcloud.LoadBalancerMetricRequestsPerSecond, hcloud.LoadBalancerMetricBandwidth}}
	}
	total := func(m *hcloud.LoadBalancerMetrics, name string) float64 {
		out := 0.0
		for _, v := range m.TimeSeries[name] {
			x, _ := strconv.ParseFloat(v.Value, 64)
			out += x
		}
		return out
	}
	m, _, err := f.client.LoadBalancer.GetMetrics(ctx, lb, window())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.TimeSeries) != 5 || total(m, "connections_per_second") != 0 || total(m, "bandwidth.in") != 0 {
		t.Errorf("before any traffic: %d series, connections %v; want five series of zeros", len(m.TimeSeries), total(m, "connections_per_second"))
	}

	waitTargets(t, f, lb.ID, map[string]string{"one": "healthy"})
	if got := answers(t, "127.0.102.1:8080", 4); got["one"] != 4 {
		t.Fatalf("4 connections went %v", got)
	}
	fakecloudtest.Eventually(t, 10*time.Second, "the four connections in the metrics", func() bool {
		m, _, err := f.client.LoadBalancer.GetMetrics(ctx, lb, window())
		return err == nil && total(m, "connections_per_second") >= 4 && total(m, "bandwidth.out") > 0 && total(m, "bandwidth.in") >= 0
	})
}

// TestMetricsStepBounded: a step far longer than the period, which would
// overflow a duration, answers at once with the period's one sample.
func TestMetricsStepBounded(t *testing.T) {
	f := newFixture(t, Options{})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	for _, step := range []string{"36028797018963968", "10000000000", "9223372036854775807"} {
		resp, body := f.do(t, "GET", "/v1/servers/"+itoa(int(s.ID))+"/metrics?type=cpu&start=2020-01-01T00:00:00Z&end=2020-01-01T01:00:00Z&step="+step, "")
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"step":3600`) {
			t.Errorf("step %s: %d %s, want the step cut to the period", step, resp.StatusCode, body)
		}
	}
}
