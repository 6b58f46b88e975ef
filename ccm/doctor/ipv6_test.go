package doctor

import (
	"net/netip"
	"testing"
)

// TestIPv6Checks: with the node IPAM mode, a pod range in the server's
// /64 is OK, one outside it or only another allocator's is a warning; a
// Service that asks IPv6 targets of Nodes that list no IPv6 is one too.
func TestIPv6Checks(t *testing.T) {
	f := newFixture()
	f.env["HCLOUD_NODE_IPAM_IPV6_ENABLED"] = "true"
	f.start(t)
	net1 := f.servers["node-1"].PublicNet.IPv6.Network
	a, _ := netip.AddrFromSlice(net1.IP)
	in := netip.PrefixFrom(a, 80).Masked()
	n1 := f.node("node-1")
	n1.Spec.PodCIDR, n1.Spec.PodCIDRs = in.String(), []string{in.String()}
	f.node("node-2").Spec.PodCIDRs = []string{"10.244.2.0/24", "2001:db8:ffff::/80"}
	f.services = append(f.services, lbService("six", "0b1c2d3e-1111-2222-3333-444455557777", "target-address-family", "dualstack"))
	r := f.run(t)
	if !has(r, "pod-cidr", OK, "node/node-1", "is in server node-1's") {
		t.Errorf("no OK for node-1's range: %+v", r.Findings)
	}
	if !has(r, "pod-cidr", Warn, "node/node-2", "pod range 2001:db8:ffff::/80 is not in server node-2's") {
		t.Errorf("no warning for node-2's range outside its /64: %+v", r.Findings)
	}
	if !has(r, "ipv6-target", Warn, "service/default/six", "target-address-family is dualstack, but HCLOUD_INSTANCES_ADDRESS_FAMILY=ipv4") {
		t.Errorf("no warning for IPv6 targets without IPv6 ExternalIPs: %+v", r.Findings)
	}
	// Only another allocator's IPv4 range: told.
	f2 := newFixture()
	f2.env["HCLOUD_NODE_IPAM_IPV6_ENABLED"] = "true"
	f2.start(t)
	if r := f2.run(t); !has(r, "pod-cidr", Warn, "node/node-1", "from another allocator") {
		t.Errorf("no warning for an IPv4-only range: %+v", r.Findings)
	}
}
