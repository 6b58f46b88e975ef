package doctor

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
)

// checkTargetHealth reports each served Service's load balancer targets'
// health from the listing doctor already made, as the CCM's condition
// load-balancer.hetzner.cloud/TargetsHealthy says it: no request of its own.
func (d *doctor) checkTargetHealth() {
	if d.cloud == nil || !d.cfg.LoadBalancers.Enabled {
		return
	}
	nodes := make([]*corev1.Node, len(d.nodes))
	for i := range d.nodes {
		nodes[i] = &d.nodes[i]
	}
	for _, svc := range d.lbServices() {
		lb := d.cloud.lbByUID[string(svc.UID)]
		if lb == nil || svc.DeletionTimestamp != nil {
			continue
		}
		subject := "service/" + svc.Namespace + "/" + svc.Name
		status, reason, msg := loadbalancer.ReadHealth(lb, nodes).Condition()
		msg = fmt.Sprintf("load balancer %s: %s (%s)", lb.Name, msg, reason)
		fix := "the load balancer's health check does not reach these Nodes: check the Node's server is running, kube-proxy serves the Service's node port " +
			"(with externalTrafficPolicy Local, only Nodes running a ready pod of it are healthy), and no firewall blocks the load balancer; " +
			"kubectl get service " + svc.Name + " -n " + svc.Namespace + " -o jsonpath='{.status.conditions}' shows the CCM's reading"
		switch {
		case status == metav1.ConditionTrue:
			d.found.ok("target-health", subject, msg)
		case reason == loadbalancer.ReasonNoTargets:
			d.found.warn("target-health", subject, msg, "kubectl describe service "+svc.Name+" -n "+svc.Namespace+" shows why Nodes were not added (NodeNotTargeted, TargetRejected)")
		case reason == loadbalancer.ReasonNoHealthyTarget:
			d.found.fail("target-health", subject, msg, fix)
		case reason == loadbalancer.ReasonSomeTargetsUnhealthy:
			d.found.warn("target-health", subject, msg, fix)
		default: // not checked yet: a new target
			d.found.ok("target-health", subject, msg)
		}
	}
}
