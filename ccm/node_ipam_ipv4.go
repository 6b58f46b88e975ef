package ccm

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// ipv4Pool gives dual-stack Nodes their IPv4 pod range beside the IPv6
// one, as kube-controller-manager's range allocator does from
// --cluster-cidr: the lowest range of the size in the cluster CIDR that
// overlaps no Node's range. podCIDRs are set once, both families together,
// so the mode must be the Nodes' only allocator (the Talos CCM's
// CloudAllocator works the same way).
type ipv4Pool struct {
	cidr netip.Prefix
	bits int
	// given are the ranges this process gave, by Node, until the
	// informer's cache shows them.
	given map[string]netip.Prefix
}

// next is the lowest free range for the Node name among nodes.
func (p *ipv4Pool) next(name string, nodes []*corev1.Node) (netip.Prefix, error) {
	var used []netip.Prefix
	present := map[string]bool{}
	for _, n := range nodes {
		present[n.Name] = true
		for _, c := range podCIDRsOf(n) {
			if u, err := netip.ParsePrefix(c); err == nil && u.Addr().Is4() && u.Overlaps(p.cidr) {
				used = append(used, u.Masked())
			}
		}
	}
	for n, c := range p.given {
		if !present[n] {
			delete(p.given, n) // the Node is gone: its range is free
			continue
		}
		used = append(used, c)
	}
	base := p.cidr.Masked().Addr().As4()
	start := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	for i := range uint32(1) << (p.bits - p.cidr.Bits()) {
		a := start + i<<(32-p.bits)
		block := netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}), p.bits)
		if !slices.ContainsFunc(used, block.Overlaps) {
			return block, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("no /%d of HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR %s is free for Node %s", p.bits, p.cidr, name)
}

// podCIDRsOf are a Node's pod ranges, from podCIDRs or the older podCIDR.
func podCIDRsOf(n *corev1.Node) []string {
	if len(n.Spec.PodCIDRs) == 0 && n.Spec.PodCIDR != "" {
		return []string{n.Spec.PodCIDR}
	}
	return n.Spec.PodCIDRs
}
