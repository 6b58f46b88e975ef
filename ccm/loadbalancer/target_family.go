package loadbalancer

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
)

// instancesDualStack is HCLOUD_INSTANCES_ADDRESS_FAMILY's dualstack: every
// Node then lists its server's public IPv4, when it has one, beside the
// IPv6, so a Node with only the IPv6 is on a server without public IPv4.
const instancesDualStack = "dualstack"

// nodeTargets are the targets of one eligible Node, by the Service's
// target address family (target-address-family): a cloud server's Node
// as a server target on its primary IPv4 and/or on its IPv6 ExternalIP, a
// dedicated server's Node (with Robot) as ip targets on the same
// addresses. Private targets are IPv4-only and ignore the family. The
// IPv6 is the Node's IPv6 ExternalIP, which the CCM wrote (the ::1 of the
// server's /64 or the Node's external-ipv6 annotation), so no target
// costs a request; a Node without one, when the family asks for it, is
// reported and left out of that family.
func nodeTargets(svc *corev1.Service, node *corev1.Node, o annotation.Options, env lbEnv) ([]lbTarget, []lbNotice) {
	robot := env.Robot && providerid.IsRobot(node.Spec.ProviderID)
	var id int64
	if !robot {
		var err error
		if id, err = providerid.ToServerID(node.Spec.ProviderID); err != nil {
			return nil, []lbNotice{{Node: node, Reason: eventNodeSkipped,
				Message: fmt.Sprintf("not a target of the load balancer of Service %s/%s: %v", svc.Namespace, svc.Name, err)}}
		}
	}
	if o.UsePrivateIP {
		if robot {
			t, n := dedicatedTarget(svc, node, true)
			return []lbTarget{t}, notices(n)
		}
		return []lbTarget{{ServerID: id, UsePrivateIP: true}}, nil
	}
	v4, v6 := externalIPs(node)
	wantV4 := o.TargetAddressFamily != annotation.FamilyIPv6
	wantV6 := o.TargetAddressFamily != annotation.FamilyIPv4
	if !v4.IsValid() && v6.IsValid() && env.InstancesFamily == instancesDualStack {
		wantV4, wantV6 = false, true // a server without public IPv4
	}
	var out []lbTarget
	var ns []lbNotice
	if wantV4 {
		if robot {
			t, n := dedicatedTarget(svc, node, false)
			out, ns = append(out, t), append(ns, notices(n)...)
		} else {
			out = append(out, lbTarget{ServerID: id})
		}
	}
	if wantV6 {
		switch {
		case !v6.IsValid():
			ns = append(ns, lbNotice{Node: node, Reason: eventNodeSkipped, Message: fmt.Sprintf(
				"not an IPv6 target of the load balancer of Service %s/%s (target-address-family %s): the Node has no IPv6 ExternalIP; "+
					"set HCLOUD_INSTANCES_ADDRESS_FAMILY to dualstack so the CCM lists it", svc.Namespace, svc.Name, o.TargetAddressFamily)})
		case robot:
			out = append(out, lbTarget{IP: v6.String()})
		default:
			out = append(out, lbTarget{ServerID: id, IP: v6.String()})
		}
	}
	return out, ns
}

// externalIPs are the Node's first IPv4 and IPv6 ExternalIPs.
func externalIPs(node *corev1.Node) (v4, v6 netip.Addr) {
	for _, a := range node.Status.Addresses {
		ip, err := netip.ParseAddr(a.Address)
		if err != nil || a.Type != corev1.NodeExternalIP || ip.Zone() != "" {
			continue
		}
		switch {
		case ip.Is4() && !v4.IsValid():
			v4 = ip
		case ip.Is6() && !ip.Is4In6() && !v6.IsValid():
			v6 = ip
		}
	}
	return v4, v6
}

func notices(n *lbNotice) []lbNotice {
	if n == nil {
		return nil
	}
	return []lbNotice{*n}
}

// addressesChanged says whether the Node's ExternalIPs, which its targets
// are on, changed.
func addressesChanged(old, cur *corev1.Node) bool {
	v4, v6 := externalIPs(old)
	w4, w6 := externalIPs(cur)
	return v4 != w4 || v6 != w6
}

// targetsMoved says whether the Node makes other targets of svc now.
func (l *Manager) targetsMoved(svc *corev1.Service, o annotation.Options, old, cur *corev1.Node) bool {
	env := lbEnv{Robot: l.robot, InstancesFamily: l.instancesFamily}
	before, _ := nodeTargets(svc, old, o, env)
	after, _ := nodeTargets(svc, cur, o, env)
	return !slices.Equal(before, after)
}
