package ccm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

var (
	inventoryLookupsDesc = prometheus.NewDesc("hcloud_ccm_inventory_lookups_total",
		"Server lookups by how they were answered: hit (from memory), targeted (one request), gone (the API confirmed no such server).",
		[]string{"result"}, nil)
	inventoryListingsDesc = prometheus.NewDesc("hcloud_ccm_inventory_listings_total",
		"Full paged listings of all servers.", nil, nil)
	budgetRemainingDesc = prometheus.NewDesc("hcloud_ccm_api_budget_remaining",
		"Requests left in the project's rate limit, from the last RateLimit headers plus what refilled since.", nil, nil)
	budgetLimitDesc = prometheus.NewDesc("hcloud_ccm_api_budget_limit",
		"The project's rate limit (RateLimit-Limit).", nil, nil)
	budgetWaitDesc = prometheus.NewDesc("hcloud_ccm_api_budget_wait_seconds_total",
		"Time background requests waited so as to leave the reserve untouched.", nil, nil)
)

// collector exposes the inventory's and the budget's figures at scrape
// time, so they are counted in one place only.
type collector struct {
	inv    *inventory
	budget *budget
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{inventoryLookupsDesc, inventoryListingsDesc, budgetRemainingDesc, budgetLimitDesc, budgetWaitDesc} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	s := c.inv.stats.snapshot()
	ch <- prometheus.MustNewConstMetric(inventoryLookupsDesc, prometheus.CounterValue, float64(s.hits), "hit")
	ch <- prometheus.MustNewConstMetric(inventoryLookupsDesc, prometheus.CounterValue, float64(s.targeted), "targeted")
	ch <- prometheus.MustNewConstMetric(inventoryLookupsDesc, prometheus.CounterValue, float64(s.gone), "gone")
	ch <- prometheus.MustNewConstMetric(inventoryListingsDesc, prometheus.CounterValue, float64(s.listings))
	ch <- prometheus.MustNewConstMetric(budgetWaitDesc, prometheus.CounterValue, c.budget.waited().Seconds())
	if remaining, limit, known := c.budget.snapshot(); known {
		ch <- prometheus.MustNewConstMetric(budgetRemainingDesc, prometheus.GaugeValue, remaining)
		ch <- prometheus.MustNewConstMetric(budgetLimitDesc, prometheus.GaugeValue, float64(limit))
	}
}

// newRegistry holds the Go and process metrics; hcloud-go adds its
// hcloud_api_* request metrics, and the Cloud its own collector.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// serveMetrics listens on addr and serves /metrics until ctx ends. A busy
// address is an error at start, not a silent absence of metrics.
func serveMetrics(ctx context.Context, addr string, reg *prometheus.Registry) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("HCLOUD_METRICS_ADDRESS=%q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "Metrics server stopped")
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	klog.InfoS("Serving metrics", "address", ln.Addr().String(), "path", "/metrics")
	return ln.Addr(), nil
}
