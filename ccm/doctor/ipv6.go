package doctor

import (
	"fmt"
	"net/netip"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// checkIPv6 looks at the IPv6 modes: with HCLOUD_NODE_IPAM_IPV6_ENABLED,
// each cloud Node's pod range lies in its server's /64; a Service whose
// targets are to be on IPv6 has Nodes that list an IPv6 ExternalIP.
func (d *doctor) checkIPv6() {
	if d.cfg.NodeIPAM.IPv6 && d.cloud != nil {
		for i := range d.nodes {
			n := &d.nodes[i]
			if s := d.servers[n.Name]; s != nil && d.blocked[n.Name] == "" {
				d.checkPodCIDR(n, s)
			}
		}
	}
	if d.cfg.AddressFamily != ccm.AddressFamilyIPv4 {
		return
	}
	for _, svc := range d.lbServices() {
		o, err := annotation.Parse(svc, d.cfg.LoadBalancers)
		if err != nil || o.UsePrivateIP || o.TargetAddressFamily == annotation.FamilyIPv4 {
			continue // bad annotations are the service check's
		}
		d.found.warn("ipv6-target", "service/"+svc.Namespace+"/"+svc.Name, fmt.Sprintf(
			"target-address-family is %s, but HCLOUD_INSTANCES_ADDRESS_FAMILY=ipv4 lists no IPv6 ExternalIP on any Node: no Node is an IPv6 target", o.TargetAddressFamily),
			"set HCLOUD_INSTANCES_ADDRESS_FAMILY=dualstack, or target-address-family ipv4")
	}
}

// checkPodCIDR: the Node's IPv6 pod range is a part of its server's /64.
func (d *doctor) checkPodCIDR(n *corev1.Node, s *hcloud.Server) {
	subject := "node/" + n.Name
	var net netip.Prefix
	if !s.PublicNet.IPv6.IsUnspecified() && s.PublicNet.IPv6.Network != nil {
		a, _ := netip.AddrFromSlice(s.PublicNet.IPv6.Network.IP)
		ones, _ := s.PublicNet.IPv6.Network.Mask.Size()
		net = netip.PrefixFrom(a.Unmap(), ones)
	}
	if !net.IsValid() {
		d.found.fail("pod-cidr", subject, fmt.Sprintf("server %s has no public IPv6 /64, so the Node gets no pod range from it", s.Name),
			"add an IPv6 Primary IP to the server, or give this Node its range another way")
		return
	}
	cidrs := n.Spec.PodCIDRs
	if len(cidrs) == 0 && n.Spec.PodCIDR != "" {
		cidrs = []string{n.Spec.PodCIDR}
	}
	if len(cidrs) == 0 {
		d.found.warn("pod-cidr", subject, "the Node has no pod range yet", "read the Node's PodCIDRNotAssigned events, and the CCM's log")
		return
	}
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(c)
		if err != nil || !p.Addr().Is6() {
			continue
		}
		if net.Contains(p.Addr()) && p.Bits() > net.Bits() {
			d.found.ok("pod-cidr", subject, fmt.Sprintf("pod range %s is in server %s's %s", p, s.Name, net))
		} else {
			d.found.warn("pod-cidr", subject, fmt.Sprintf("pod range %s is not in server %s's %s: the server's /64 does not carry it", p, s.Name, net),
				"delete and rejoin the Node so the CCM assigns it a range of the /64 (podCIDRs cannot change once set)")
		}
		return
	}
	d.found.warn("pod-cidr", subject, fmt.Sprintf("the Node has the pod ranges %v from another allocator and none of server %s's %s", cidrs, s.Name, net),
		"podCIDRs cannot change once set: turn off kube-controller-manager's --allocate-node-cidrs, then delete and rejoin the Node")
}
