package loadbalancer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
)

// ConditionTargetsHealthy is the type of the condition each Service of
// type LoadBalancer gets in status.conditions: True when every target of
// its load balancer is healthy on every port, False when one is not (or
// there is no target), Unknown while no target has been checked. The
// domain keeps it apart from the types Kubernetes may add.
const ConditionTargetsHealthy = "load-balancer.hetzner.cloud/TargetsHealthy"

// The condition's reasons.
const (
	ReasonAllTargetsHealthy    = "AllTargetsHealthy"
	ReasonSomeTargetsUnhealthy = "SomeTargetsUnhealthy"
	ReasonNoHealthyTarget      = "NoHealthyTarget"
	ReasonNoTargets            = "NoTargets"
	ReasonTargetsNotChecked    = "TargetsNotChecked"
)

// The statuses the API gives a target on a port, and a target as a whole.
const (
	healthHealthy   = string(hcloud.LoadBalancerTargetHealthStatusStatusHealthy)
	healthUnhealthy = string(hcloud.LoadBalancerTargetHealthStatusStatusUnhealthy)
	healthUnknown   = string(hcloud.LoadBalancerTargetHealthStatusStatusUnknown)
)

// PortHealth is a target's health on one listen port, as the API says it:
// with an unhealthy status, why (detail, such as layer4_no_connection or
// unexpected_http_status) and the HTTP status the check got, when known.
type PortHealth struct {
	Port int
	// Address is the IPv6 a server target is reached on (server.ip);
	// "" for its primary IPv4 and for other targets. A dual-stack Node is
	// one target with each port twice.
	Address        string
	Status         string // healthy, unhealthy or unknown
	Detail         string
	HTTPStatusCode int
}

// TargetHealth is one target's health on every port of its load balancer.
type TargetHealth struct {
	// Node is the name of the Node the target is, else "server <ID>" or
	// "ip <address>".
	Node   string
	Status string // unhealthy if a port is, healthy if every port is, else unknown
	Ports  []PortHealth
}

// Health is the health of a load balancer's targets, by Node name.
type Health struct {
	Targets                     []TargetHealth
	Healthy, Unhealthy, Unknown int
}

// ReadHealth reads lb's targets' health (a label selector's servers each
// count) and names each by its Node among nodes.
func ReadHealth(lb *hcloud.LoadBalancer, nodes []*corev1.Node) Health {
	byServer, byIP := map[int64]string{}, map[string]string{}
	for _, n := range nodes {
		if id, err := providerid.ToServerID(n.Spec.ProviderID); err == nil {
			byServer[id] = n.Name
		}
		for _, a := range n.Status.Addresses {
			if _, taken := byIP[a.Address]; !taken {
				byIP[a.Address] = n.Name
			}
		}
	}
	var h Health
	at := map[string]int{} // a Node targeted twice (a label selector and its server) is one target
	add := func(name, addr string, statuses []hcloud.LoadBalancerTargetHealthStatus) {
		i, ok := at[name]
		if !ok {
			i, at[name] = len(h.Targets), len(h.Targets)
			h.Targets = append(h.Targets, TargetHealth{Node: name})
		}
		t := &h.Targets[i]
		for _, s := range statuses {
			p := PortHealth{Port: s.ListenPort, Address: addr, Status: cmp.Or(string(s.Status), healthUnknown)}
			if s.Detail != nil {
				p.Detail = string(*s.Detail)
			}
			if s.HTTPStatusCode != nil {
				p.HTTPStatusCode = *s.HTTPStatusCode
			}
			t.Ports = append(t.Ports, p)
		}
	}
	server := func(id int64, addr string, statuses []hcloud.LoadBalancerTargetHealthStatus) {
		add(cmp.Or(byServer[id], fmt.Sprintf("server %d", id)), addr, statuses)
	}
	for _, t := range lb.Targets {
		switch {
		case t.Type == hcloud.LoadBalancerTargetTypeServer && t.Server != nil && t.Server.Server != nil:
			addr := ""
			if t.IP != nil {
				addr = t.IP.IP // server.ip, an IPv6 (server_target_ips.go)
			}
			server(t.Server.Server.ID, addr, t.HealthStatus)
		case t.Type == hcloud.LoadBalancerTargetTypeIP && t.IP != nil:
			add(cmp.Or(byIP[t.IP.IP], "ip "+t.IP.IP), "", t.HealthStatus)
		case t.Type == hcloud.LoadBalancerTargetTypeLabelSelector:
			for _, sub := range t.Targets {
				if sub.Server != nil && sub.Server.Server != nil {
					server(sub.Server.Server.ID, "", sub.HealthStatus)
				}
			}
		}
	}
	for i := range h.Targets {
		t := &h.Targets[i]
		slices.SortStableFunc(t.Ports, func(a, b PortHealth) int { return cmp.Or(a.Port-b.Port, strings.Compare(a.Address, b.Address)) })
		t.Status = targetStatus(t.Ports)
		switch t.Status {
		case healthHealthy:
			h.Healthy++
		case healthUnhealthy:
			h.Unhealthy++
		default:
			h.Unknown++
		}
	}
	slices.SortFunc(h.Targets, func(a, b TargetHealth) int { return strings.Compare(a.Node, b.Node) })
	return h
}

// targetStatus is unhealthy if a port is, healthy if every port is (a
// load balancer without services checks nothing: unknown).
func targetStatus(ports []PortHealth) string {
	if len(ports) == 0 {
		return healthUnknown
	}
	all := true
	for _, p := range ports {
		if p.Status == healthUnhealthy {
			return healthUnhealthy
		}
		all = all && p.Status == healthHealthy
	}
	if all {
		return healthHealthy
	}
	return healthUnknown
}

// UnhealthyNodes are the Nodes (or servers, or IPs) of the unhealthy targets.
func (h Health) UnhealthyNodes() []string {
	var out []string
	for _, t := range h.Targets {
		if t.Status == healthUnhealthy {
			out = append(out, t.Node)
		}
	}
	return out
}

// maxNamed is how many unhealthy targets a condition's message names.
const maxNamed = 10

// Condition is what the Service's condition says of h.
func (h Health) Condition() (status metav1.ConditionStatus, reason, message string) {
	total := len(h.Targets)
	switch {
	case total == 0:
		return metav1.ConditionFalse, ReasonNoTargets, "the load balancer has no targets: no Node is eligible, or none was accepted (see the Service's and the Nodes' events)"
	case h.Unhealthy > 0 && h.Healthy > 0:
		return metav1.ConditionFalse, ReasonSomeTargetsUnhealthy, fmt.Sprintf("%d of %d targets unhealthy: %s", h.Unhealthy, total, h.unhealthyText())
	case h.Unhealthy > 0:
		return metav1.ConditionFalse, ReasonNoHealthyTarget, fmt.Sprintf("no healthy target; %d of %d unhealthy: %s", h.Unhealthy, total, h.unhealthyText())
	case h.Unknown > 0:
		return metav1.ConditionUnknown, ReasonTargetsNotChecked, fmt.Sprintf("%d of %d targets not checked yet by the load balancer", h.Unknown, total)
	}
	return metav1.ConditionTrue, ReasonAllTargetsHealthy, fmt.Sprintf("%d of %d targets healthy on every port", h.Healthy, total)
}

// unhealthyText names the unhealthy targets with the API's reason per
// port, e.g. "worker-1 (port 80: layer4_no_connection; port 443:
// unexpected_http_status 503)", the first maxNamed of them.
func (h Health) unhealthyText() string {
	var parts []string
	n := 0
	for _, t := range h.Targets {
		if t.Status != healthUnhealthy {
			continue
		}
		if n++; n > maxNamed {
			continue
		}
		var ports []string
		for _, p := range t.Ports {
			if p.Status == healthHealthy {
				continue
			}
			why := p.Status
			if p.Status == healthUnhealthy && p.Detail != "" {
				why = p.Detail
			}
			if p.HTTPStatusCode != 0 {
				why += fmt.Sprintf(" %d", p.HTTPStatusCode)
			}
			port := fmt.Sprintf("port %d", p.Port)
			if p.Address != "" {
				port += " on " + p.Address
			}
			ports = append(ports, port+": "+why)
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", t.Node, strings.Join(ports, "; ")))
	}
	if n > maxNamed {
		parts = append(parts, fmt.Sprintf("and %d more", n-maxNamed))
	}
	return strings.Join(parts, ", ")
}
