package ccm

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
)

var robotCallsDesc = prometheus.NewDesc("hcloud_ccm_robot_calls_total",
	"Calls to the Robot webservice by endpoint (server: the shared listing, reset: a server's power state) and result: "+
		"ok, rate_limited (403 RATE_LIMIT_EXCEEDED), unauthorized (401), error, or held_back (answered without a request "+
		"while ROBOT_RATE_LIMIT_WAIT_TIME or the 10 minutes after a refused login run).",
	[]string{"endpoint", "result"}, nil)

// robotCollector exposes the Robot cache's counts at scrape time.
type robotCollector struct{ cache *robotclient.Cache }

func (c robotCollector) Describe(ch chan<- *prometheus.Desc) { ch <- robotCallsDesc }

func (c robotCollector) Collect(ch chan<- prometheus.Metric) {
	for k, n := range c.cache.Counts() {
		ch <- prometheus.MustNewConstMetric(robotCallsDesc, prometheus.CounterValue, float64(n), k.Family, k.Result)
	}
}
