package fakecloud

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var (
	requestsDesc = prometheus.NewDesc("fakecloud_requests_total",
		"API requests served, by method, route and status.", []string{"method", "path", "status"}, nil)
	remainingDesc = prometheus.NewDesc("fakecloud_rate_limit_remaining",
		"Requests left in the project's rate limit bucket.", nil, nil)
	faultHitsDesc = prometheus.NewDesc("fakecloud_fault_hits_total",
		"Requests or actions a fault applied to, by fault ID.", []string{"fault"}, nil)
	stateFailuresDesc = prometheus.NewDesc("fakecloud_state_file_write_failures_total",
		"Writes of the state file that failed (each is tried again).", nil, nil)
	stateUnsavedDesc = prometheus.NewDesc("fakecloud_state_file_unsaved",
		"1 while the last write of the state file failed: acknowledged changes are not in it.", nil, nil)
)

// collector exposes the request counters, which stay the single source of
// truth, to Prometheus.
type collector struct{ s *Server }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- requestsDesc
	ch <- remainingDesc
	ch <- faultHitsDesc
	ch <- stateFailuresDesc
	ch <- stateUnsavedDesc
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, n := range c.s.Counters() {
		ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue, float64(n.Count), n.Method, n.Template, strconv.Itoa(n.Status))
	}
	if c.s.limiter != nil {
		ch <- prometheus.MustNewConstMetric(remainingDesc, prometheus.GaugeValue, float64(c.s.limiter.Peek().Remaining))
	}
	rules, actions := c.s.faults.List()
	for _, r := range rules {
		ch <- prometheus.MustNewConstMetric(faultHitsDesc, prometheus.CounterValue, float64(r.Hits), strconv.Itoa(r.ID))
	}
	for _, a := range actions {
		ch <- prometheus.MustNewConstMetric(faultHitsDesc, prometheus.CounterValue, float64(a.Hits), strconv.Itoa(a.ID))
	}
	if st, ok := c.s.StateFileStatus(); ok {
		unsaved := 0.0
		if st.Unsaved {
			unsaved = 1
		}
		ch <- prometheus.MustNewConstMetric(stateFailuresDesc, prometheus.CounterValue, float64(st.Failures))
		ch <- prometheus.MustNewConstMetric(stateUnsavedDesc, prometheus.GaugeValue, unsaved)
	}
}

// metricsHandler serves /metrics in the Prometheus text format.
func (s *Server) metricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{s})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
