package ccm

import "github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"

// LoadBalancers is the load balancer Manager, whose parsing and caches the
// Service admission webhook (ccm/admission) judges with; nil with
// HCLOUD_LOAD_BALANCERS_ENABLED=false.
func (c *Cloud) LoadBalancers() *loadbalancer.Manager { return c.lbs }
