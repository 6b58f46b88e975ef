package world

import (
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// member is a server or load balancer attached to a network, with the
// addresses it holds there.
type member struct {
	resourceRef
	ip    netip.Addr
	alias []netip.Addr
}

func (w *State) ipInUse(netID int64, a netip.Addr) bool {
	_, used := w.netUsed[netID][a]
	return used
}

func (w *State) memberOf(netID int64, ref resourceRef) (member, bool) {
	i := slices.IndexFunc(w.netMembers[netID], func(m member) bool { return m.resourceRef == ref })
	if i < 0 {
		return member{}, false
	}
	return w.netMembers[netID][i], true
}

// allocIP chooses an address for a new member of network n in a network
// zone: the requested ip, else the first free one of the requested subnet
// (ip_range), else of the first subnet of the zone with room.
func (w *State) allocIP(n *schema.Network, zone, want, ipRange string) (netip.Addr, *apiError) {
	subnets := w.usableSubnets(n, zone)
	if want != "" {
		a, err := netip.ParseAddr(want)
		if err != nil || !a.Is4() {
			return a, invalidField("ip", "%q is not an IPv4 address", want)
		}
		for _, p := range subnets {
			if p.Contains(a) {
				if reservedInSubnet(p, a) || w.ipInUse(n.ID, a) {
					return a, errorf("ip_not_available", "IP %s is not available in network %d", a, n.ID)
				}
				return a, nil
			}
		}
		return a, errorf("ip_not_available", "IP %s is not inside a subnet of network %d in network zone %s", a, n.ID, zone)
	}
	if ipRange != "" {
		p, msg := parseIPv4Net(ipRange)
		if msg != "" {
			return netip.Addr{}, invalidField("ip_range", "%s", msg)
		}
		if !slices.Contains(subnets, p) {
			return netip.Addr{}, errorf("no_subnet_available", "network %d has no subnet %s in network zone %s", n.ID, p, zone)
		}
		subnets = []netip.Prefix{p}
	}
	// Scan each subnet from the address after the last one handed out, then
	// from its start, so filling a large network stays linear.
	hint := w.netHint[n.ID]
	for _, p := range subnets {
		first := p.Addr().Next().Next()
		start := first
		if p.Contains(hint) && hint.Compare(first) > 0 {
			start = hint
		}
		for _, from := range []netip.Addr{start, first} {
			for a := from; p.Contains(a); a = a.Next() {
				if !reservedInSubnet(p, a) && !w.ipInUse(n.ID, a) {
					return a, nil
				}
			}
		}
	}
	return netip.Addr{}, errorf("no_subnet_available", "no subnet of network %d in network zone %s has a free IP", n.ID, zone)
}

// usableSubnets are the network's cloud and server subnets in a zone.
func (w *State) usableSubnets(n *schema.Network, zone string) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range n.Subnets {
		if s.NetworkZone != zone || s.Type == "vswitch" {
			continue
		}
		if p, err := netip.ParsePrefix(s.IPRange); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// reservedInSubnet: the subnet's own address, its first (gateway) address
// and its broadcast address are never handed out.
func reservedInSubnet(p netip.Prefix, a netip.Addr) bool {
	return a == p.Addr() || a == p.Addr().Next() || a == lastAddr(p)
}

func (w *State) attach(netID int64, m member) {
	w.netMembers[netID] = append(w.netMembers[netID], m)
	if w.netUsed[netID] == nil {
		w.netUsed[netID] = map[netip.Addr]struct{}{}
	}
	for _, a := range append([]netip.Addr{m.ip}, m.alias...) {
		w.netUsed[netID][a] = struct{}{}
	}
	w.netHint[netID] = m.ip.Next()
}

// detach removes a member from a network and the network from the
// member's private_net.
func (w *State) detach(m member, netID int64) {
	w.netMembers[netID] = slices.DeleteFunc(w.netMembers[netID], func(o member) bool {
		if o.resourceRef != m.resourceRef {
			return false
		}
		for _, a := range append([]netip.Addr{o.ip}, o.alias...) {
			delete(w.netUsed[netID], a)
		}
		return true
	})
	switch m.Type {
	case "server":
		if s, ok := w.servers.get(m.ID); ok {
			s.PrivateNet = slices.DeleteFunc(s.PrivateNet, func(p schema.ServerPrivateNet) bool { return p.Network == netID })
		}
	case "load_balancer":
		if lb, ok := w.loadBalancers.get(m.ID); ok {
			lb.PrivateNet = slices.DeleteFunc(lb.PrivateNet, func(p schema.LoadBalancerPrivateNet) bool { return p.Network == netID })
		}
	}
}

// detachAll removes a resource from every network it is attached to.
func (w *State) detachAll(ref resourceRef) {
	for netID, members := range w.netMembers {
		for _, m := range members {
			if m.resourceRef == ref {
				w.detach(m, netID)
				break
			}
		}
	}
}
