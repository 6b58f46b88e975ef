package ccm

import (
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"
)

// A kubelet's --node-ip (the Node's annotation
// alpha.kubernetes.io/provided-node-ip) must be one of the addresses the
// CCM reports, or the cloud-node controller never initialises the Node.
// An address of the operator's own network (a WireGuard, Tailscale or
// Calico overlay) is none of the server's; in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS
// it is reported as an InternalIP besides them, so it becomes the Node's
// InternalIP, while the server's public addresses stay its ExternalIPs.
// The upstream controller then drops the other InternalIPs (the
// network's), as it always does for a --node-ip. Addresses outside the
// CIDRs are refused as before (NodeIPNotOfServer).

// overlayIPs are the Node's --node-ip addresses that lie in one of cidrs,
// in the annotation's order.
func overlayIPs(node *corev1.Node, cidrs []netip.Prefix) []netip.Addr {
	if node == nil || len(cidrs) == 0 {
		return nil
	}
	var out []netip.Addr
	for s := range strings.SplitSeq(node.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr], ",") {
		ip, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			continue
		}
		if _, ok := cidrOf(ip.Unmap(), cidrs); ok {
			out = append(out, ip.Unmap())
		}
	}
	return out
}

// cidrOf is the first of cidrs that holds ip.
func cidrOf(ip netip.Addr, cidrs []netip.Prefix) (netip.Prefix, bool) {
	for _, p := range cidrs {
		if p.Contains(ip) {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

// withOverlay appends the Node's --node-ip addresses in
// cfg.InternalIPCIDRs to addrs as InternalIPs, unless addrs has them
// already (a CIDR that holds the server's own network).
func withOverlay(addrs []corev1.NodeAddress, node *corev1.Node, cfg Config) []corev1.NodeAddress {
	for _, ip := range overlayIPs(node, cfg.InternalIPCIDRs) {
		if !addressIn(addrs, ip.String()) {
			addrs = append(addrs, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip.String()})
		}
	}
	return addrs
}

// OverlayCIDR says whether ip, a kubelet's --node-ip, is kept as the
// Node's InternalIP, and by which CIDR of HCLOUD_INSTANCES_INTERNAL_IP_CIDRS;
// ccm doctor explains the choice with it.
func OverlayCIDR(ip string, cfg Config) (netip.Prefix, bool) {
	a, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return netip.Prefix{}, false
	}
	return cidrOf(a.Unmap(), cfg.InternalIPCIDRs)
}

// nodeIPAdvice is what the NodeIPNotOfServer event suggests beyond the
// kubelet's flag, for an address outside the CIDRs.
func nodeIPAdvice(cfg Config) string {
	if len(cfg.InternalIPCIDRs) == 0 {
		return "; if it is an address of your own network (an overlay such as WireGuard or Tailscale), name its range in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS"
	}
	ranges := make([]string, len(cfg.InternalIPCIDRs))
	for i, p := range cfg.InternalIPCIDRs {
		ranges[i] = p.String()
	}
	return "; it is not in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS (" + strings.Join(ranges, ", ") + ")"
}

// NodeWarnings are what the Node webhook (ccm/admission) tells whoever
// writes a Node whose --node-ip is new or changed: kept as the Node's
// InternalIP by which range of HCLOUD_INSTANCES_INTERNAL_IP_CIDRS, or, with
// ranges set, in none of them, so the Node is initialised only if it is
// an address of its server. old is nil for a new Node.
func NodeWarnings(cfg Config, old, cur *corev1.Node) []string {
	want := cur.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr]
	if want == "" || len(cfg.InternalIPCIDRs) == 0 || (old != nil && old.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr] == want) {
		return nil
	}
	var out []string
	for ip := range strings.SplitSeq(want, ",") {
		if ip = strings.TrimSpace(ip); ip == "" {
			continue
		}
		if cidr, ok := OverlayCIDR(ip, cfg); ok {
			out = append(out, "--node-ip "+ip+" lies in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS ("+cidr.String()+
				"): the CCM keeps it as the Node's InternalIP, and the server's public addresses as its ExternalIPs")
			continue
		}
		out = append(out, "--node-ip "+ip+" is in none of HCLOUD_INSTANCES_INTERNAL_IP_CIDRS"+strings.TrimPrefix(nodeIPAdvice(cfg), "; it is not in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS")+
			": unless it is an address of the Node's server, the Node is not initialised (Warning event NodeIPNotOfServer)")
	}
	return out
}
