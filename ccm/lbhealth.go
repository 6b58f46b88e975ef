package ccm

import (
	"context"

	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// startHealth reads the load balancers' target health into each Service's
// condition, events and metrics (HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL),
// and their traffic into metrics when asked
// (HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS), until ctx ends.
func (c *Cloud) startHealth(ctx context.Context, builder cloudprovider.ControllerClientBuilder) {
	o := loadbalancer.HealthOptions{Interval: c.cfg.TargetHealthInterval}
	if o.Interval > 0 {
		if client, err := builder.Client("hcloud-load-balancer-health"); err != nil {
			klog.ErrorS(err, "No Kubernetes client to write the Services' target health condition; events and metrics only")
		} else {
			o.Services = client.CoreV1()
		}
	}
	c.lbs.StartHealth(ctx, o)
	c.lbs.StartTraffic(ctx, c.cfg.TrafficRequests)
}
