package scale

import (
	"context"
	"fmt"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// waits is time spent by the CCM, summed over its requests, from its
// metrics: waiting for the Kubernetes client's rate limiter, and in Hetzner
// API requests.
type waits struct {
	clientRateLimit, cloud time.Duration
	kubeRequests           int // requests to the apiserver
}

// scrapeWaits reads the CCM's /metrics at addr (host:port).
func scrapeWaits(ctx context.Context, addr string) (waits, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return waits{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return waits{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return waits{}, fmt.Errorf("%s/metrics: %s", addr, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return waits{}, fmt.Errorf("%s/metrics: %w", addr, err)
	}
	return waits{
		clientRateLimit: histogramSum(families["rest_client_rate_limiter_duration_seconds"]),
		cloud:           histogramSum(families["hcloud_api_request_duration_seconds"]),
		kubeRequests:    int(counterSum(families["rest_client_requests_total"])),
	}, nil
}

// histogramSum adds the sums of every series of a histogram family.
func histogramSum(f *dto.MetricFamily) time.Duration {
	if f == nil {
		return 0
	}
	var s float64
	for _, m := range f.GetMetric() {
		s += m.GetHistogram().GetSampleSum()
	}
	return time.Duration(s * float64(time.Second))
}

// counterSum adds every series of a counter family.
func counterSum(f *dto.MetricFamily) float64 {
	if f == nil {
		return 0
	}
	var s float64
	for _, m := range f.GetMetric() {
		s += m.GetCounter().GetValue()
	}
	return s
}
