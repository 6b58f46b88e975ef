package loadbalancer

import (
	"context"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
)

// Traffic metrics cost one GET /load_balancers/{id}/metrics a load
// balancer, so they are off unless asked, and spend at most the requests
// an hour the operator grants (HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS):
// one request every hour/grant, for the load balancer read longest ago,
// none read again within trafficMinAge. They go through the budget as all
// background work does.

// trafficMinAge is how often one load balancer's traffic is read at most:
// the API's figures come in steps of a minute.
const trafficMinAge = time.Minute

// MaxTrafficRequests is the most requests an hour traffic metrics may
// spend: a quarter of a project's 3,600.
const MaxTrafficRequests = 900

var trafficSeries = []struct {
	series string
	desc   *prometheus.Desc
}{
	{"open_connections", prometheus.NewDesc("hcloud_ccm_load_balancer_open_connections",
		"Open connections of a Service's load balancer, the API's last figure (with HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS).", []string{"namespace", "service"}, nil)},
	{"connections_per_second", prometheus.NewDesc("hcloud_ccm_load_balancer_connections_per_second",
		"New connections a second to a Service's load balancer, the API's last figure.", []string{"namespace", "service"}, nil)},
	{"requests_per_second", prometheus.NewDesc("hcloud_ccm_load_balancer_requests_per_second",
		"HTTP requests a second to a Service's load balancer (http and https ports), the API's last figure.", []string{"namespace", "service"}, nil)},
	{"bandwidth.in", prometheus.NewDesc("hcloud_ccm_load_balancer_bandwidth_in_bytes_per_second",
		"Ingress bandwidth of a Service's load balancer in bytes a second, the API's last figure.", []string{"namespace", "service"}, nil)},
	{"bandwidth.out", prometheus.NewDesc("hcloud_ccm_load_balancer_bandwidth_out_bytes_per_second",
		"Egress bandwidth of a Service's load balancer in bytes a second, the API's last figure.", []string{"namespace", "service"}, nil)},
}

var trafficReadDesc = prometheus.NewDesc("hcloud_ccm_load_balancer_traffic_read_timestamp_seconds",
	"When a Service's load balancer's traffic figures were last read (Unix time).", []string{"namespace", "service"}, nil)

var trafficDescs = func() []*prometheus.Desc {
	out := []*prometheus.Desc{trafficReadDesc}
	for _, s := range trafficSeries {
		out = append(out, s.desc)
	}
	return out
}()

// traffic is a load balancer's last traffic figures, by series.
type traffic struct {
	at     time.Time // zero: never read
	values map[string]float64
}

func (t traffic) collect(ch chan<- prometheus.Metric, namespace, name string) {
	if t.at.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(trafficReadDesc, prometheus.GaugeValue, float64(t.at.Unix()), namespace, name)
	for _, s := range trafficSeries {
		if v, ok := t.values[s.series]; ok {
			ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, v, namespace, name)
		}
	}
}

// StartTraffic reads the load balancers' traffic figures, perHour
// requests an hour at most, until ctx ends; 0 turns it off.
func (l *Manager) StartTraffic(ctx context.Context, perHour int) {
	if perHour <= 0 {
		return
	}
	go func() {
		t := time.NewTicker(time.Hour / time.Duration(min(perHour, MaxTrafficRequests)))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := l.readTraffic(ctx); err != nil && ctx.Err() == nil {
					klog.ErrorS(err, "Reading a load balancer's traffic figures; the next is read at the next turn")
				}
			}
		}
	}()
}

// readTraffic reads the traffic of the served Service's load balancer
// read longest ago, unless every one was read within trafficMinAge: at
// most one request.
func (l *Manager) readTraffic(ctx context.Context) error {
	now := l.now()
	l.mu.Lock()
	served := make(map[string]lastSync, len(l.last))
	for uid, s := range l.last {
		served[uid] = s
	}
	l.mu.Unlock()
	var pick string
	var oldest time.Time
	l.health.mu.Lock()
	for uid := range served {
		var at time.Time
		if sh := l.health.byUID[uid]; sh != nil {
			at = sh.traffic.at
		}
		if now.Sub(at) >= trafficMinAge && (pick == "" || at.Before(oldest) || (at.Equal(oldest) && uid < pick)) {
			pick, oldest = uid, at
		}
	}
	l.health.mu.Unlock()
	if pick == "" {
		return nil
	}
	unlock := l.store.lock(pick)
	var id int64
	if lb := l.store.current(pick); lb != nil {
		id = lb.ID
	}
	unlock()
	if id == 0 {
		return nil // no load balancer of its own (yet)
	}
	m, _, err := l.client.LoadBalancer.GetMetrics(ctx, &hcloud.LoadBalancer{ID: id}, hcloud.LoadBalancerGetMetricsOpts{
		Types: []hcloud.LoadBalancerMetricType{hcloud.LoadBalancerMetricOpenConnections, hcloud.LoadBalancerMetricConnectionsPerSecond,
			hcloud.LoadBalancerMetricRequestsPerSecond, hcloud.LoadBalancerMetricBandwidth},
		Start: now.Add(-2 * trafficMinAge), End: now, Step: int(trafficMinAge / time.Second)})
	if err != nil {
		return err
	}
	values := map[string]float64{}
	for series, points := range m.TimeSeries {
		if len(points) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(points[len(points)-1].Value, 64); err == nil {
			values[series] = v
		}
	}
	svc := served[pick].svc
	l.health.mu.Lock()
	defer l.health.mu.Unlock()
	sh := l.health.byUID[pick]
	if sh == nil {
		sh = &serviceHealth{namespace: svc.Namespace, name: svc.Name}
		l.health.byUID[pick] = sh
	}
	sh.traffic = traffic{at: now, values: values}
	return nil
}
