package scale

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestScrapeWaitsSumsEverySeries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`# TYPE rest_client_rate_limiter_duration_seconds histogram
rest_client_rate_limiter_duration_seconds_bucket{host="a",verb="GET",le="+Inf"} 3
rest_client_rate_limiter_duration_seconds_sum{host="a",verb="GET"} 1.5
rest_client_rate_limiter_duration_seconds_count{host="a",verb="GET"} 3
rest_client_rate_limiter_duration_seconds_bucket{host="a",verb="PATCH",le="+Inf"} 1
rest_client_rate_limiter_duration_seconds_sum{host="a",verb="PATCH"} 0.25
rest_client_rate_limiter_duration_seconds_count{host="a",verb="PATCH"} 1
# TYPE hcloud_api_request_duration_seconds histogram
hcloud_api_request_duration_seconds_bucket{api_endpoint="/servers",method="get",le="+Inf"} 2
hcloud_api_request_duration_seconds_sum{api_endpoint="/servers",method="get"} 0.02
hcloud_api_request_duration_seconds_count{api_endpoint="/servers",method="get"} 2
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="a",method="GET"} 40
rest_client_requests_total{code="201",host="a",method="POST"} 2
`))
	}))
	defer srv.Close()
	w, err := scrapeWaits(context.Background(), strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if w.clientRateLimit != 1750*time.Millisecond || w.cloud != 20*time.Millisecond || w.kubeRequests != 42 {
		t.Errorf("waits %+v, want 1.75s client rate limit, 20ms cloud, 42 apiserver requests", w)
	}
}
