package world

import (
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/timeseries"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// The metrics of servers and load balancers, as GET …/metrics answers
// them: a sample every step from start to end, none before the resource
// existed, after now or older than 30 days.

// ServerMetricTypes and LoadBalancerMetricTypes are the types a metrics
// query may ask for.
var (
	ServerMetricTypes       = []string{"cpu", "disk", "network"}
	LoadBalancerMetricTypes = []string{"open_connections", "connections_per_second", "requests_per_second", "bandwidth"}
)

// serverSeries are each type's series with the largest value each takes.
var serverSeries = map[string][]struct {
	name string
	top  float64
}{
	"cpu": {{"cpu", 100}},
	"disk": {{"disk.0.iops.read", 500}, {"disk.0.iops.write", 500},
		{"disk.0.bandwidth.read", 50e6}, {"disk.0.bandwidth.write", 50e6}},
	"network": {{"network.0.pps.in", 2000}, {"network.0.pps.out", 2000},
		{"network.0.bandwidth.in", 5e6}, {"network.0.bandwidth.out", 5e6}},
}

// ServerMetrics are a server's metrics for a query. fakecloud runs no
// server, so the values are made up, the same for the same world and
// clock: each sample a fixed function of the server, the series and the
// time; zero while the server is not running (its status now).
func (t *Tx) ServerMetrics(id int64, q timeseries.Query) (timeseries.Answer, *apierr.Error) {
	s, err := servers.find(t.w, id)
	if err != nil {
		return timeseries.Answer{}, err
	}
	now := t.w.Now()
	times := q.Times(later(s.Created, now.Add(-timeseries.Retention)), now)
	series := map[string][]timeseries.Point{}
	for _, typ := range q.Types {
		for _, sr := range serverSeries[typ] {
			points := make([]timeseries.Point, 0, len(times))
			for _, at := range times {
				v := 0.0
				if s.Status == "running" {
					v = math.Round(sr.top*unitNoise(s.ID, sr.name, at)*1000) / 1000
				}
				points = append(points, timeseries.Point{At: at, Value: v})
			}
			series[sr.name] = points
		}
	}
	return q.Build(series), nil
}

// unitNoise is a number in [0, 1) fixed by a resource, a series and a
// time.
func unitNoise(id int64, series string, at time.Time) float64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatInt(id, 10) + "/" + series + "/" + strconv.FormatInt(at.Unix(), 10)))
	return float64(h.Sum64()>>11) / (1 << 53)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// LoadBalancerMetrics are a load balancer's metrics for a query: what the
// data plane carried for it (--lb-ipv4-range), sampled once a second and
// kept for an hour, and zeros for one that carries no traffic.
func (t *Tx) LoadBalancerMetrics(id int64, q timeseries.Query) (timeseries.Answer, *apierr.Error) {
	lb, err := loadBalancers.find(t.w, id)
	if err != nil {
		return timeseries.Answer{}, err
	}
	now := t.w.Now()
	times := q.Times(later(lb.Created, now.Add(-timeseries.Retention)), now)
	var carried []trafficspec.Counters
	if t.w.carried != nil {
		carried = t.w.carried(lb.ID)
	}
	// at is the last sample at or before when: none before counting
	// began, and the oldest kept for a time whose samples are gone, so a
	// lost stretch reads as no change rather than as everything at once.
	at := func(when time.Time) trafficspec.Counters {
		i := sort.Search(len(carried), func(i int) bool { return carried[i].At.After(when) })
		switch {
		case i > 0:
			return carried[i-1]
		case len(carried) > 0 && !when.Before(carried[0].Since):
			return carried[0]
		}
		return trafficspec.Counters{}
	}
	step := time.Duration(q.Step) * time.Second
	rate := func(of func(trafficspec.Counters) uint64, when time.Time) float64 {
		now, before := of(at(when)), of(at(when.Add(-step)))
		if now < before {
			return 0
		}
		return float64(now-before) / step.Seconds()
	}
	series := map[string][]timeseries.Point{}
	add := func(name string, value func(time.Time) float64) {
		points := make([]timeseries.Point, 0, len(times))
		for _, when := range times {
			points = append(points, timeseries.Point{At: when, Value: value(when)})
		}
		series[name] = points
	}
	for _, typ := range q.Types {
		switch typ {
		case "open_connections":
			add("open_connections", func(when time.Time) float64 { return float64(at(when).Open) })
		case "connections_per_second":
			add("connections_per_second", func(when time.Time) float64 {
				return rate(func(c trafficspec.Counters) uint64 { return c.Connections }, when)
			})
		case "requests_per_second":
			add("requests_per_second", func(when time.Time) float64 {
				return rate(func(c trafficspec.Counters) uint64 { return c.Requests }, when)
			})
		case "bandwidth":
			add("bandwidth.in", func(when time.Time) float64 {
				return rate(func(c trafficspec.Counters) uint64 { return c.BytesIn }, when)
			})
			add("bandwidth.out", func(when time.Time) float64 {
				return rate(func(c trafficspec.Counters) uint64 { return c.BytesOut }, when)
			})
		}
	}
	return q.Build(series), nil
}
