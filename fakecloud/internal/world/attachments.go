package world

import (
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// Member is a server or load balancer attached to a network, with the
// addresses it holds there.
type Member struct {
	Ref
	IP    netip.Addr
	Alias []netip.Addr
}

func (w *project) IPInUse(netID int64, a netip.Addr) bool {
	_, used := w.NetUsed[netID][a]
	return used
}

func (w *project) MemberOf(netID int64, ref Ref) (Member, bool) {
	i := slices.IndexFunc(w.NetMembers[netID], func(m Member) bool { return m.Ref == ref })
	if i < 0 {
		return Member{}, false
	}
	return w.NetMembers[netID][i], true
}

// AllocIP chooses an address for a new member of network n in a network
// zone: the requested ip, else the first free one of the requested subnet
// (ip_range), else of the first subnet of the zone with room.
func (w *project) AllocIP(n *schema.Network, zone, want, ipRange string) (netip.Addr, *apierr.Error) {
	subnets := w.usableSubnets(n, zone)
	if want != "" {
		a, err := netip.ParseAddr(want)
		if err != nil || !a.Is4() {
			return a, apierr.InvalidField("ip", "%q is not an IPv4 address", want)
		}
		for _, sn := range subnets {
			if sn.p.Contains(a) {
				if sn.reserved(a) || w.IPInUse(n.ID, a) {
					return a, apierr.Errorf("ip_not_available", "IP %s is not available in network %d", a, n.ID)
				}
				return a, nil
			}
		}
		return a, apierr.Errorf("ip_not_available", "IP %s is not inside a subnet of network %d in network zone %s", a, n.ID, zone)
	}
	if ipRange != "" {
		p, msg := netaddr.ParseIPv4Net(ipRange)
		if msg != "" {
			return netip.Addr{}, apierr.InvalidField("ip_range", "%s", msg)
		}
		i := slices.IndexFunc(subnets, func(sn subnetRange) bool { return sn.p == p })
		if i < 0 {
			return netip.Addr{}, apierr.Errorf("no_subnet_available", "network %d has no subnet %s in network zone %s", n.ID, p, zone)
		}
		subnets = subnets[i : i+1]
	}
	// Scan each subnet from the address after the last one handed out, then
	// from its start, so filling a large network stays linear.
	hint := w.NetHint[n.ID]
	for _, sn := range subnets {
		first := sn.p.Addr().Next()
		start := first
		if sn.p.Contains(hint) && hint.Compare(first) > 0 {
			start = hint
		}
		for _, from := range []netip.Addr{start, first} {
			for a := from; sn.p.Contains(a); a = a.Next() {
				if !sn.reserved(a) && !w.IPInUse(n.ID, a) {
					return a, nil
				}
			}
		}
	}
	return netip.Addr{}, apierr.Errorf("no_subnet_available", "no subnet of network %d in network zone %s has a free IP", n.ID, zone)
}

// subnetRange is a subnet's range and its gateway.
type subnetRange struct {
	p       netip.Prefix
	gateway netip.Addr
}

// usableSubnets are the network's cloud and server subnets in a zone.
func (w *project) usableSubnets(n *schema.Network, zone string) []subnetRange {
	var out []subnetRange
	for _, s := range n.Subnets {
		if s.NetworkZone != zone || s.Type == "vswitch" {
			continue
		}
		p, err := netip.ParsePrefix(s.IPRange)
		if err != nil {
			continue
		}
		g, _ := netip.ParseAddr(s.Gateway)
		out = append(out, subnetRange{p: p, gateway: g})
	}
	return out
}

// reserved: the subnet's own address, its broadcast address and the
// gateway are never handed out. The gateway of a cloud subnet is the
// network's first address, so the subnet's first address is free: the
// first server in 10.0.1.0/24 of 10.0.0.0/16 gets 10.0.1.1, as the
// Terraform provider's acceptance tests, run against the live API, expect.
func (sn subnetRange) reserved(a netip.Addr) bool {
	return a == sn.p.Addr() || a == sn.gateway || a == netaddr.LastAddr(sn.p)
}

func (w *project) Attach(netID int64, m Member) {
	w.NetMembers[netID] = append(w.NetMembers[netID], m)
	if w.NetUsed[netID] == nil {
		w.NetUsed[netID] = map[netip.Addr]struct{}{}
	}
	for _, a := range append([]netip.Addr{m.IP}, m.Alias...) {
		w.NetUsed[netID][a] = struct{}{}
	}
	w.NetHint[netID] = m.IP.Next()
}

// Detach removes a member from a network and the network from the
// member's private_net.
func (w *project) Detach(m Member, netID int64) {
	w.NetMembers[netID] = slices.DeleteFunc(w.NetMembers[netID], func(o Member) bool {
		if o.Ref != m.Ref {
			return false
		}
		for _, a := range append([]netip.Addr{o.IP}, o.Alias...) {
			delete(w.NetUsed[netID], a)
		}
		return true
	})
	if k := w.kind(m.Type); k.leave != nil {
		k.leave(w, m.ID, netID)
	}
}

// DetachAll removes a resource from every network it is attached to.
func (w *project) DetachAll(ref Ref) {
	for netID, members := range w.NetMembers {
		for _, m := range members {
			if m.Ref == ref {
				w.Detach(m, netID)
				break
			}
		}
	}
}

// endAttach ends the attachment of a server created in a network: the
// server shows it in private_net once its attach_to_network succeeds, and
// leaves the network if it fails. A server or membership gone meanwhile
// (deleted, detached, its network deleted) leaves nothing to do.
func (w *project) endAttach(ref Ref, pn schema.ServerPrivateNet, ok bool) {
	m, attached := w.MemberOf(pn.Network, ref)
	s, exists := w.Servers.Get(ref.ID)
	switch {
	case !attached || !exists:
	case !ok:
		w.Detach(m, pn.Network)
	default:
		s.PrivateNet = append(s.PrivateNet, pn)
	}
}

// CheckAliases validates a member's new alias IPs in network n: IPv4
// addresses inside a subnet of its zone, none reserved, none twice, none
// its own IP, none held by another member (its own current aliases may
// stay).
func (w *project) CheckAliases(n *schema.Network, zone string, m Member, want []string) ([]netip.Addr, *apierr.Error) {
	subnets := w.usableSubnets(n, zone)
	out := make([]netip.Addr, 0, len(want))
	for _, s := range want {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return nil, apierr.InvalidField("alias_ips", "%q is not an IPv4 address", s)
		}
		i := slices.IndexFunc(subnets, func(sn subnetRange) bool { return sn.p.Contains(a) })
		taken := w.IPInUse(n.ID, a) && !slices.Contains(m.Alias, a)
		if i < 0 || subnets[i].reserved(a) || taken || a == m.IP || slices.Contains(out, a) {
			return nil, apierr.Errorf("ip_not_available", "alias IP %s is not available in network %d", a, n.ID)
		}
		out = append(out, a)
	}
	return out, nil
}

// SetAliases gives a member of a network its new alias IPs, releasing
// the old ones.
func (w *project) SetAliases(netID int64, ref Ref, aliases []netip.Addr) {
	members := w.NetMembers[netID]
	i := slices.IndexFunc(members, func(m Member) bool { return m.Ref == ref })
	if i < 0 {
		return
	}
	for _, a := range members[i].Alias {
		delete(w.NetUsed[netID], a)
	}
	for _, a := range aliases {
		w.NetUsed[netID][a] = struct{}{}
	}
	members[i].Alias = aliases
}
