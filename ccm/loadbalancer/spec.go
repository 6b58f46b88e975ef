package loadbalancer

import (
	"cmp"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// uidLabel marks a load balancer as the one of a Service, as the official CCM does.
const uidLabel = "hcloud-ccm/service-uid"

// excludeLabel keeps a node out of every load balancer.
const excludeLabel = "node.kubernetes.io/exclude-from-external-load-balancers"

// lbSpec is the load balancer a Service and the nodes call for. Nil
// pointers and empty strings mean "keep what is there".
type lbSpec struct {
	UID         string
	Name        string
	Rename      bool // the name annotation is set: an existing load balancer is renamed
	Type        string
	ChangeType  bool // the type is configured: an existing load balancer is upgraded
	Location    string
	NetworkZone string
	Algorithm   string

	PublicInterface *bool
	NetworkID       int64 // 0: no network
	PrivateIP       net.IP
	IPRange         *net.IPNet
	IPv4RDNS        *string
	IPv6RDNS        *string
	PublicNet       [2]int64 // the Primary IPs a new load balancer takes, IPv4 and IPv6; 0: one of its own

	Services    []hcloud.LoadBalancerAddServiceOpts // sorted by listen port
	KeepOthers  bool                                // services on ports the CCM did not add stay (keep-other-services)
	Targets     []lbTarget                          // oldest node first
	TargetNodes map[lbTarget]*corev1.Node           // for events
}

// lbTarget is a server target, on its primary IPv4 (or private IP) or,
// with IP, on that IPv6 of its /64 (server_target_ips.go); or, with IP and
// no ServerID, an ip target (a dedicated server's Node).
type lbTarget struct {
	ServerID     int64
	IP           string
	UsePrivateIP bool
}

func (t lbTarget) String() string {
	switch {
	case t.ServerID == 0:
		return "IP " + t.IP
	case t.IP != "":
		return fmt.Sprintf("Server %d on %s", t.ServerID, t.IP)
	}
	return fmt.Sprintf("Server %d", t.ServerID)
}

// isIPTarget is an ip target, not a server's.
func (t lbTarget) isIPTarget() bool { return t.ServerID == 0 && t.IP != "" }

// lbEnv is what the desired state depends on besides the Service and nodes.
type lbEnv struct {
	NetworkID   int64
	NetworkZone string            // of HCLOUD_NETWORK: where a load balancer goes without location or zone
	Certs       map[int32][]int64 // the certificates of each https port, resolved
	Robot       bool              // dedicated servers' Nodes become ip targets (ROBOT_ENABLED)
	// InstancesFamily is HCLOUD_INSTANCES_ADDRESS_FAMILY: with dualstack,
	// a Node without an IPv4 ExternalIP has no public IPv4.
	InstancesFamily string
}

// lbNotice is something to tell the user in an event; it does not stop the sync.
type lbNotice struct {
	Node            *corev1.Node // nil: the event goes on the Service
	Reason, Message string
}

// defaultLBName is the official CCM's name for a Service's load balancer.
func defaultLBName(svc *corev1.Service) string {
	name := "a" + strings.ReplaceAll(string(svc.UID), "-", "")
	if len(name) > 32 {
		name = name[:32]
	}
	return name
}

// desiredLB computes the load balancer for svc over nodes. It reads no
// state and calls no API; errors are configuration errors to report.
func desiredLB(svc *corev1.Service, o annotation.Options, nodes []*corev1.Node, env lbEnv) (lbSpec, []lbNotice, error) {
	s := lbSpec{
		UID: string(svc.UID), Name: o.Name, Rename: o.Name != "", Type: o.Type, ChangeType: o.TypeExplicit,
		Location: o.Location, NetworkZone: o.NetworkZone, Algorithm: o.Algorithm,
		NetworkID: env.NetworkID, IPv4RDNS: o.IPv4RDNS, IPv6RDNS: o.IPv6RDNS, PublicNet: [2]int64{o.PublicNetIPv4, o.PublicNetIPv6},
	}
	if s.Name == "" {
		s.Name = defaultLBName(svc)
	}
	var errs []error
	bad := func(name annotation.Key, value, accepted string) {
		errs = append(errs, &annotation.Error{Key: name.Short(), Value: value, Accepted: accepted})
	}
	if s.Location == "" && s.NetworkZone == "" {
		s.NetworkZone = env.NetworkZone // still empty: an error only when one is created
	}
	if o.DisablePublicNetwork != nil {
		s.PublicInterface = hcloud.Ptr(!*o.DisablePublicNetwork)
		if *o.DisablePublicNetwork && (env.NetworkID == 0 || !o.UsePrivateIP) {
			bad(annotation.DisablePublicNetwork, "true", "false unless HCLOUD_NETWORK is set and use-private-ip is true: "+
				"without a public interface the load balancer reaches its targets only on the network")
		}
	}
	errs = append(errs, publicNetErrors(svc, o)...)
	if o.UsePrivateIP && env.NetworkID == 0 {
		bad(annotation.UsePrivateIP, "true", "false unless HCLOUD_NETWORK is set")
	}
	if env.NetworkID != 0 {
		if o.PrivateIPv4.IsValid() {
			s.PrivateIP = net.IP(o.PrivateIPv4.AsSlice())
		}
		if o.PrivateSubnetIPRange.IsValid() {
			_, s.IPRange, _ = net.ParseCIDR(o.PrivateSubnetIPRange.String())
		}
	}
	var notices []lbNotice
	for _, p := range svc.Spec.Ports {
		if !annotation.IsTCP(p) {
			notices = append(notices, lbNotice{Reason: eventPortSkipped,
				Message: fmt.Sprintf("port %d/%s is left out: Hetzner load balancers forward TCP only", p.Port, p.Protocol)})
			continue
		}
		po := o.Port(p.Port)
		if po.Protocol == "https" && po.HTTP.CertificateType == "uploaded" && len(po.HTTP.Certificates) == 0 && len(po.HTTP.CertificateSecrets) == 0 {
			name := annotation.HTTPCertificates
			if o.Own[p.Port] {
				name = annotation.Key(fmt.Sprintf("%s%d.%s", annotation.PortPrefix, p.Port, annotation.HTTPCertificates.Short()))
			}
			bad(name, "", "the IDs or names of the certificates for protocol https, such as 4711,my-cert, or http-certificate-secrets")
		}
		s.Services = append(s.Services, desiredService(p, po, env.Certs[p.Port], kubeHealth(svc, po.HealthCheck)))
	}
	slices.SortFunc(s.Services, func(a, b hcloud.LoadBalancerAddServiceOpts) int { return *a.ListenPort - *b.ListenPort })
	s.KeepOthers = o.KeepOtherServices
	if v := portsValue(s.Services); s.KeepOthers && len(v) > maxLabelValue {
		bad(annotation.KeepOtherServices, "true", fmt.Sprintf("false for this Service: its ports (%s) are more than the label %s can record in %d characters", v, portsLabel, maxLabelValue))
	}
	var n []lbNotice
	s.Targets, s.TargetNodes, n = desiredTargets(svc, o, nodes, env)
	notices = append(notices, n...)
	return s, notices, annotation.JoinUnique(errs)
}

// desiredService is one load balancer service for a Service port.
func desiredService(p corev1.ServicePort, o annotation.PortOptions, certs []int64, kube int) hcloud.LoadBalancerAddServiceOpts {
	proto := hcloud.LoadBalancerServiceProtocol(o.Protocol)
	svc := hcloud.LoadBalancerAddServiceOpts{
		Protocol: proto, ListenPort: hcloud.Ptr(int(p.Port)), DestinationPort: hcloud.Ptr(int(p.NodePort)),
		Proxyprotocol: hcloud.Ptr(o.ProxyProtocol),
	}
	if proto != hcloud.LoadBalancerServiceProtocolTCP {
		h := &hcloud.LoadBalancerAddServiceOptsHTTP{StickySessions: o.HTTP.StickySessions, RedirectHTTP: o.HTTP.RedirectHTTP}
		if o.HTTP.CookieName != "" {
			h.CookieName = hcloud.Ptr(o.HTTP.CookieName)
		}
		if o.HTTP.CookieLifetime != 0 {
			h.CookieLifetime = hcloud.Ptr(o.HTTP.CookieLifetime)
		}
		if o.HTTP.TimeoutIdle != 0 {
			h.TimeoutIdle = hcloud.Ptr(o.HTTP.TimeoutIdle)
		}
		if proto == hcloud.LoadBalancerServiceProtocolHTTPS {
			for _, id := range certs {
				h.Certificates = append(h.Certificates, &hcloud.Certificate{ID: id})
			}
		} else {
			h.RedirectHTTP = nil // only https redirects
		}
		svc.HTTP = h
	}
	svc.HealthCheck = desiredHealthCheck(p, o, kube)
	return svc
}

// kubeProxyHealthzPort is where kube-proxy answers /healthz for its node:
// 503 once the node is being deleted or carries the cluster autoscaler's
// ToBeDeletedByClusterAutoscaler taint.
const kubeProxyHealthzPort = 10256

// kubeHealth is the port of the Kubernetes health endpoint a Service's
// load balancer checks at /healthz, or 0 for none: a Local Service's
// healthCheckNodePort, where kube-proxy answers 200 only on nodes with a
// ready endpoint of the Service; with the kube-proxy option, kube-proxy's
// own; none when annotations aim the health check elsewhere.
func kubeHealth(svc *corev1.Service, c annotation.HealthCheckOptions) int {
	switch {
	case c.Aimed:
		return 0
	case svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal && svc.Spec.HealthCheckNodePort != 0:
		return int(svc.Spec.HealthCheckNodePort)
	case c.KubeProxy:
		return kubeProxyHealthzPort
	}
	return 0
}

// desiredHealthCheck is TCP on the nodePort unless configured otherwise:
// HTTP /healthz on kube, a Kubernetes health endpoint, when there is one,
// else what the annotations say.
func desiredHealthCheck(p corev1.ServicePort, o annotation.PortOptions, kube int) *hcloud.LoadBalancerAddServiceOptsHealthCheck {
	hc := &hcloud.LoadBalancerAddServiceOptsHealthCheck{Protocol: hcloud.LoadBalancerServiceProtocolTCP, Port: hcloud.Ptr(int(p.NodePort))}
	c := o.HealthCheck
	switch {
	case kube != 0:
		hc.Protocol, hc.Port = hcloud.LoadBalancerServiceProtocolHTTP, hcloud.Ptr(kube)
		hc.HTTP = &hcloud.LoadBalancerAddServiceOptsHealthCheckHTTP{Path: hcloud.Ptr("/healthz")}
	case !c.Configured:
		return hc
	default:
		hc.Protocol = hcloud.LoadBalancerServiceProtocol(o.Protocol)
		if c.Protocol != "" {
			hc.Protocol = hcloud.LoadBalancerServiceProtocol(c.Protocol)
		}
		if c.Port != 0 {
			hc.Port = hcloud.Ptr(c.Port)
		}
		if hc.Protocol != hcloud.LoadBalancerServiceProtocolTCP {
			h := &hcloud.LoadBalancerAddServiceOptsHealthCheckHTTP{StatusCodes: c.StatusCodes, TLS: c.ValidateCert}
			if c.HTTPDomain != "" {
				h.Domain = hcloud.Ptr(c.HTTPDomain)
			}
			if c.HTTPPath != "" {
				h.Path = hcloud.Ptr(c.HTTPPath)
			}
			hc.HTTP = h
		}
	}
	if c.Interval != 0 {
		hc.Interval = hcloud.Ptr(c.Interval)
	}
	if c.Timeout != 0 {
		hc.Timeout = hcloud.Ptr(c.Timeout)
	}
	if c.Retries != 0 {
		hc.Retries = hcloud.Ptr(c.Retries)
	}
	return hc
}

// desiredTargets are the servers of the eligible nodes, oldest nodes first:
// a cloud server's Node as a server target, with Robot a dedicated
// server's as an ip target (dedicated.go), on the addresses of the
// Service's target address family (target_family.go).
func desiredTargets(svc *corev1.Service, o annotation.Options, nodes []*corev1.Node, env lbEnv) ([]lbTarget, map[lbTarget]*corev1.Node, []lbNotice) {
	nodes = slices.Clone(nodes)
	slices.SortFunc(nodes, func(a, b *corev1.Node) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	var notices []lbNotice
	var targets []lbTarget
	byTarget := map[lbTarget]*corev1.Node{}
	for _, node := range nodes {
		if _, excluded := node.Labels[excludeLabel]; excluded {
			continue
		}
		if o.NodeSelector != nil && !o.NodeSelector.Matches(labels.Set(node.Labels)) {
			continue
		}
		if node.Spec.ProviderID == "" {
			continue // not initialised yet: the provider ID's arrival triggers a sync
		}
		ts, n := nodeTargets(svc, node, o, env)
		notices = append(notices, n...)
		for _, t := range ts {
			if t == (lbTarget{}) || byTarget[t] != nil {
				continue
			}
			byTarget[t] = node
			targets = append(targets, t)
		}
	}
	return targets, byTarget, notices
}

// limitTargets keeps the targets within max: those the load balancer has
// stay, new ones are added oldest node first while there is room. The
// rest are reported on their nodes.
func limitTargets(svc *corev1.Service, want *lbSpec, have []hcloud.LoadBalancerTarget, max int) []lbNotice {
	if max <= 0 || len(want.Targets) <= max {
		return nil
	}
	present := map[lbTarget]bool{}
	for _, t := range have {
		if k, ok := targetOf(t); ok {
			present[k] = true
		}
	}
	kept := slices.Clone(want.Targets)
	slices.SortStableFunc(kept, func(a, b lbTarget) int {
		return cmp.Compare(boolInt(!present[a]), boolInt(!present[b]))
	})
	var notices []lbNotice
	for _, t := range kept[max:] {
		notices = append(notices, lbNotice{Node: want.TargetNodes[t], Reason: eventMaxTargets,
			Message: fmt.Sprintf("Node could not be added to Load Balancer for service %s/%s because the max number of targets (%d) has been reached", svc.Namespace, svc.Name, max)})
	}
	want.Targets = kept[:max]
	return notices
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
