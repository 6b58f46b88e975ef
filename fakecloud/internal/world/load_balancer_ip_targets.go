package world

import (
	"net/netip"
	"slices"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// checkIPTarget applies the API's rules for an ip target: the address of
// a dedicated (Robot) server of the project, public or in a vSwitch
// subnet of a network the load balancer is attached to; addresses of
// Hetzner Cloud resources are refused. Sources: the add_target error
// Table and the TargetTypeIP description in the OpenAPI description.
// fakecloud cannot know which public addresses the project's dedicated
// servers own (ip_not_owned), so it counts every public unicast address
// outside its cloud ranges as theirs.
func (w *project) checkIPTarget(lb *StoredLoadBalancer, a netip.Addr) (string, *apierr.Error) {
	switch {
	case a.Zone() != "" || a.Is4In6():
		return "is written with a zone or as an IPv4-mapped IPv6 address; write the plain address", nil
	case !netaddr.HostAddr(a):
		return a.String() + " is not a unicast address a load balancer can reach", nil
	case w.dedicatedAddr(a):
		// A dedicated server's own address, which is what ip targets are
		// for, even in a private range (as when kind's node containers
		// play dedicated servers).
		return "", nil
	case a.IsPrivate():
		return "", w.checkVSwitchTarget(lb, a)
	case netaddr.PublicIPv4Range.Contains(a) || netaddr.PublicIPv6Cloud.Contains(a) || (w.LBIPv4.IsValid() && w.LBIPv4.Contains(a)):
		return "", apierr.Errorf("cloud_resource_ip_not_allowed", "IP %s belongs to a Hetzner Cloud resource; add the server instead", a)
	}
	return "", nil
}

// checkVSwitchTarget: a private ip target must lie in a vSwitch subnet of
// a network the load balancer is attached to.
func (w *project) checkVSwitchTarget(lb *StoredLoadBalancer, a netip.Addr) *apierr.Error {
	if len(lb.PrivateNet) == 0 {
		return apierr.Errorf("load_balancer_not_attached_to_network", "IP %s is private and load balancer %d is not attached to a network", a, lb.ID)
	}
	vswitch := false
	for _, pn := range lb.PrivateNet {
		n, ok := w.Networks.Get(pn.Network)
		if !ok {
			continue
		}
		for _, s := range n.Subnets {
			if s.Type != "vswitch" {
				continue
			}
			vswitch = true
			if p, err := netip.ParsePrefix(s.IPRange); err == nil && p.Contains(a) {
				return nil
			}
		}
	}
	if !vswitch {
		return apierr.Errorf("network_has_no_vswitch_subnet", "IP %s is private and no network of load balancer %d has a vSwitch subnet", a, lb.ID)
	}
	return apierr.Errorf("ip_not_in_vswitch_subnet", "IP %s is not inside a vSwitch subnet of the networks load balancer %d is attached to", a, lb.ID)
}

// dedicatedAddr says whether a dedicated server of the Robot webservice
// has the address: its main IPv4 or one of its single IPs.
func (w *project) dedicatedAddr(a netip.Addr) bool {
	_, ok := w.Dedicated.Find(func(d *dedicated.Server) bool {
		return d.IPv4 == a.String() || slices.Contains(d.IPs, a.String())
	})
	return ok
}
