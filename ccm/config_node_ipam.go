package ccm

import (
	"fmt"
	"net/netip"
	"strings"
)

// NodeIPAMConfig is the node IPAM mode (node_ipam.go): a pod range for
// each Node from its server's IPv6 /64.
type NodeIPAMConfig struct {
	// IPv6 turns it on (HCLOUD_NODE_IPAM_IPV6_ENABLED, this CCM's own).
	IPv6 bool
	// IPv6MaskSize is the pod range's prefix length
	// (HCLOUD_NODE_IPAM_IPV6_MASK_SIZE): 65 to 120, so the range is a
	// strict part of the /64 and holds at least 256 addresses.
	IPv6MaskSize int
	// IPv4ClusterCIDR, when valid, makes the Nodes dual-stack: each gets an
	// IPv4 range of IPv4MaskSize from it beside the IPv6 one
	// (HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR, HCLOUD_NODE_IPAM_IPV4_MASK_SIZE).
	IPv4ClusterCIDR netip.Prefix
	IPv4MaskSize    int
}

// Bounds of HCLOUD_NODE_IPAM_IPV6_MASK_SIZE.
const (
	minIPv6PodMask     = 65
	maxIPv6PodMask     = 120
	defaultIPv6PodMask = 80
)

// loadNodeIPAM reads HCLOUD_NODE_IPAM_IPV6_*.
func loadNodeIPAM(r *envReader, routes bool) (NodeIPAMConfig, []string) {
	c := NodeIPAMConfig{IPv6: r.boolean("HCLOUD_NODE_IPAM_IPV6_ENABLED", false),
		IPv6MaskSize: r.integer("HCLOUD_NODE_IPAM_IPV6_MASK_SIZE", defaultIPv6PodMask)}
	if c.IPv6MaskSize < minIPv6PodMask || c.IPv6MaskSize > maxIPv6PodMask {
		r.errs = append(r.errs, fmt.Errorf("HCLOUD_NODE_IPAM_IPV6_MASK_SIZE=%d: want a prefix length from %d to %d, such as 80 or 112, "+
			"for a pod range inside the server's /64", c.IPv6MaskSize, minIPv6PodMask, maxIPv6PodMask))
		c.IPv6MaskSize = defaultIPv6PodMask
	}
	c.IPv4MaskSize = r.integer("HCLOUD_NODE_IPAM_IPV4_MASK_SIZE", 24)
	if v := strings.TrimSpace(r.getenv("HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR")); v != "" {
		p, err := netip.ParsePrefix(v)
		switch {
		case err != nil || !p.Addr().Is4():
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR=%q: want an IPv4 CIDR such as 10.244.0.0/16", v))
		case !c.IPv6:
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR=%s: it gives the IPv4 ranges beside the IPv6 ones; set HCLOUD_NODE_IPAM_IPV6_ENABLED=true too", v))
		case c.IPv4MaskSize < p.Bits() || c.IPv4MaskSize > 30 || c.IPv4MaskSize-p.Bits() > 16:
			r.errs = append(r.errs, fmt.Errorf("HCLOUD_NODE_IPAM_IPV4_MASK_SIZE=%d: want %d to %d, a part of HCLOUD_NODE_IPAM_IPV4_CLUSTER_CIDR %s of at most 65536 ranges",
				c.IPv4MaskSize, p.Bits(), min(30, p.Bits()+16), p))
		default:
			c.IPv4ClusterCIDR = p.Masked()
		}
	}
	var warnings []string
	if c.IPv6 && routes {
		warnings = append(warnings, "HCLOUD_NODE_IPAM_IPV6_ENABLED with routes on (HCLOUD_NETWORK and HCLOUD_NETWORK_ROUTES_ENABLED): "+
			"networks carry no IPv6, so no route is made for an IPv6 pod range; the pods are reached through the server's own /64, "+
			"and each refused route is a Warning event on its Node. Set HCLOUD_NETWORK_ROUTES_ENABLED=false unless an IPv4 allocator's ranges need routes")
	}
	return c, warnings
}
