package ccm

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/probes"
)

// Probe kinds: a failing liveness check gets the process restarted, a
// failing readiness check marks it not ready.
const (
	Liveness  = probes.Liveness
	Readiness = probes.Readiness
)

// AddCheck adds a check to the liveness or readiness probe of the health
// address (HCLOUD_METRICS_ADDRESS); without one it does nothing.
func (c *Cloud) AddCheck(kind, name string, run func(context.Context) error) {
	if c.server != nil {
		c.server.Add(kind, name, run)
	}
}

// WatchAPIServer makes readiness fail while the apiserver does not answer
// its own /readyz (asked at most every 5 s, for 2 s).
func (c *Cloud) WatchAPIServer(kube kubernetes.Interface) {
	c.AddCheck(Readiness, "apiserver", probes.APIServerCheck(kube, 5*time.Second))
}
