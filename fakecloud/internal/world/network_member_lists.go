package world

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
)

// MemberFilter selects a network's members, each field as the query
// repeats it (changelog 2026-09-15 "Network members endpoint").
type MemberFilter struct {
	Types, Subnets, Statuses []string
}

// networkMember is one member with what the listing shows of it.
type networkMember struct {
	schema.NetworkMember
	ip netip.Addr
}

// NetworkMembers lists the servers and load balancers attached to a
// network: their address, alias IPs, subnet, and status (attaching while
// the action that attaches them runs, else ok).
func (w *project) NetworkMembers(n *schema.Network, q listing.Query, filter MemberFilter) ([]schema.NetworkMember, int, *apierr.Error) {
	var f apierr.Fields
	for _, v := range filter.Types {
		if v != "server" && v != "load_balancer" {
			f.Add("type", "%q is not one of server, load_balancer", v)
		}
	}
	var subnets []netip.Prefix
	for _, v := range filter.Subnets {
		p, perr := netip.ParsePrefix(v)
		if perr != nil || p != p.Masked() {
			f.Add("subnet", "%q is not a subnet in CIDR notation", v)
		}
		subnets = append(subnets, p)
	}
	for _, v := range filter.Statuses {
		if !slices.Contains([]string{"ok", "attaching", "detaching", "updating", "error"}, v) {
			f.Add("status", "%q is not one of ok, attaching, detaching, updating, error", v)
		}
	}
	if err := f.Err(); err != nil {
		return nil, 0, err
	}
	var items []networkMember
	for _, m := range w.NetMembers[n.ID] {
		nm := networkMember{NetworkMember: schema.NetworkMember{Type: m.Type, ID: m.ID, IP: m.IP.String(),
			AliasIPs: []string{}, Status: w.memberStatus(n.ID, m.Ref)}, ip: m.IP}
		for _, a := range m.Alias {
			nm.AliasIPs = append(nm.AliasIPs, a.String())
		}
		for _, sn := range n.Subnets {
			if p, perr := netip.ParsePrefix(sn.IPRange); perr == nil && p.Contains(m.IP) {
				nm.Subnet = p.String()
			}
		}
		keep := (len(filter.Types) == 0 || slices.Contains(filter.Types, nm.Type)) &&
			(len(filter.Statuses) == 0 || slices.Contains(filter.Statuses, nm.Status)) &&
			(len(subnets) == 0 || slices.ContainsFunc(subnets, func(p netip.Prefix) bool { return p.String() == nm.Subnet }))
		if keep {
			items = append(items, nm)
		}
	}
	slices.SortFunc(items, func(a, b networkMember) int { return cmp.Compare(a.ID, b.ID) })
	return listing.Page(items, q, memberSortKeys, func(m networkMember) schema.NetworkMember { return m.NetworkMember })
}

var memberSortKeys = listing.SortKeys[networkMember]{
	"id":     func(a, b networkMember) int { return cmp.Compare(a.ID, b.ID) },
	"type":   func(a, b networkMember) int { return cmp.Compare(a.Type, b.Type) },
	"status": func(a, b networkMember) int { return cmp.Compare(a.Status, b.Status) },
	"ip":     func(a, b networkMember) int { return a.ip.Compare(b.ip) },
}

// memberStatus is attaching while the member's attach_to_network to the
// network runs.
func (w *project) memberStatus(netID int64, ref Ref) string {
	id, ok := w.LockedBy[ref]
	if !ok {
		return "ok"
	}
	a, ok := w.Actions.Get(id)
	if ok && a.Status == "running" && a.Command == "attach_to_network" &&
		slices.ContainsFunc(a.Resources, func(r schema.ActionResourceReference) bool { return r.Type == "network" && r.ID == netID }) {
		return "attaching"
	}
	return "ok"
}
