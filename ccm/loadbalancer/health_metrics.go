package loadbalancer

import (
	"github.com/prometheus/client_golang/prometheus"
)

var (
	targetHealthDesc = prometheus.NewDesc("hcloud_ccm_load_balancer_target_health",
		"Health of each target of a Service's load balancer as last read: 1 for the status it has (unhealthy when a port is, healthy when every port is, else unknown), 0 for the others. Only Services served and their targets; a series goes with its Service or target.",
		[]string{"namespace", "service", "node", "status"}, nil)
	targetsDesc = prometheus.NewDesc("hcloud_ccm_load_balancer_targets",
		"Targets of a Service's load balancer by health status, as last read.",
		[]string{"namespace", "service", "status"}, nil)
)

// HealthCollector exposes the targets' health last read, at scrape time.
func (l *Manager) HealthCollector() prometheus.Collector { return healthCollector{l} }

type healthCollector struct{ l *Manager }

func (c healthCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- targetHealthDesc
	ch <- targetsDesc
	for _, d := range trafficDescs {
		ch <- d
	}
}

func (c healthCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.l.health
	s.mu.Lock()
	defer s.mu.Unlock()
	statuses := []string{healthHealthy, healthUnhealthy, healthUnknown}
	for _, sh := range s.byUID {
		sh.traffic.collect(ch, sh.namespace, sh.name)
		if !sh.read {
			continue
		}
		for _, t := range sh.health.Targets {
			for _, st := range statuses {
				v := 0.0
				if t.Status == st {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(targetHealthDesc, prometheus.GaugeValue, v, sh.namespace, sh.name, t.Node, st)
			}
		}
		counts := map[string]int{healthHealthy: sh.health.Healthy, healthUnhealthy: sh.health.Unhealthy, healthUnknown: sh.health.Unknown}
		for _, st := range statuses {
			ch <- prometheus.MustNewConstMetric(targetsDesc, prometheus.GaugeValue, float64(counts[st]), sh.namespace, sh.name, st)
		}
	}
}
