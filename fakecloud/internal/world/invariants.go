package world

import (
	"encoding/binary"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// CheckInvariants reports every way a snapshot breaks what any sequence of
// API calls and events keeps true: each address has one owner (public
// IPv4 across servers, load balancers and primary IPs; private IPs per
// network), private IPs lie in a subnet of their network, primary IPs and
// their servers agree, and fakecloud's pool neither hands out an address
// twice nor has lost one. Import refuses a snapshot that breaks one, and
// the hostile tests check the world after every run.
// CheckInvariants reports what makes a snapshot inconsistent: IDs and
// names not unique per kind, and the invariants Import holds a snapshot
// to.
func CheckInvariants(st *Snapshot) []error {
	return append(checkInvariants(st), uniqueIDs(*st)...)
}

func checkInvariants(st *Snapshot) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	subnets := networkSubnets(st, bad)
	private := map[int64]map[netip.Addr]string{} // network → address → holder
	holdPrivate := func(netID int64, ip, who string) {
		a, err := netip.ParseAddr(ip)
		switch {
		case err != nil:
			bad("%s: private IP %q is not an address", who, ip)
		case subnets[netID] == nil:
			bad("%s: network %d does not exist", who, netID)
		case !slices.ContainsFunc(subnets[netID], func(p netip.Prefix) bool { return p.Contains(a) }):
			bad("%s: private IP %s is in no subnet of network %d", who, a, netID)
		case private[netID][a] != "":
			bad("%s: private IP %s in network %d is also held by %s", who, a, netID, private[netID][a])
		default:
			if private[netID] == nil {
				private[netID] = map[netip.Addr]string{}
			}
			private[netID][a] = who
		}
	}
	public := map[string]string{} // public IPv4 → holder
	holdPublic := func(ip, who string) {
		if ip == "" {
			return
		}
		if other, ok := public[ip]; ok {
			bad("%s: public IP %s is also held by %s", who, ip, other)
		}
		public[ip] = who
	}
	pips := map[int64]*schema.PrimaryIP{}
	for _, p := range st.PrimaryIPs {
		pips[p.ID] = p
		if p.Type == "ipv4" {
			holdPublic(p.IP, fmt.Sprintf("primary IP %d", p.ID))
		}
	}
	for _, s := range st.Servers {
		who := fmt.Sprintf("server %d", s.ID)
		for _, pn := range s.PrivateNet {
			holdPrivate(pn.Network, pn.IP, who)
			for _, a := range pn.AliasIPs {
				holdPrivate(pn.Network, a, who+" (alias)")
			}
		}
		if ip := s.PublicNet.IPv4.IP; ip != "" {
			p := pips[s.PublicNet.IPv4.ID]
			if p == nil || p.IP != ip || p.AssigneeID == nil || *p.AssigneeID != s.ID {
				bad("%s: public IPv4 %s is not its primary IP %d", who, ip, s.PublicNet.IPv4.ID)
			}
		}
	}
	holders := map[string]map[int64]bool{"server": {}, "load_balancer": {}}
	for _, s := range st.Servers {
		holders["server"][s.ID] = true
	}
	for _, lb := range st.LoadBalancers {
		holders["load_balancer"][lb.ID] = true
	}
	for _, p := range st.PrimaryIPs {
		if p.AssigneeID != nil && !holders[p.AssigneeType][*p.AssigneeID] {
			bad("primary IP %d: assigned to %s %d, which does not exist", p.ID, p.AssigneeType, *p.AssigneeID)
		}
	}
	for _, lb := range st.LoadBalancers {
		who := fmt.Sprintf("load balancer %d", lb.ID)
		if id := lb.PublicNet.IPv4.ID; id != 0 {
			// On a primary IP, which holds the address.
			if p := pips[id]; p == nil || p.IP != lb.PublicNet.IPv4.IP || p.AssigneeID == nil || *p.AssigneeID != lb.ID || p.AssigneeType != "load_balancer" {
				bad("%s: public IPv4 %s is not its primary IP %d", who, lb.PublicNet.IPv4.IP, id)
			}
		} else {
			holdPublic(lb.PublicNet.IPv4.IP, who)
		}
		for _, pn := range lb.PrivateNet {
			holdPrivate(pn.Network, pn.IP, who)
		}
	}
	for _, d := range st.DedicatedServers {
		who := fmt.Sprintf("dedicated server %d", d.Number)
		for _, ip := range dedicatedIPv4s(d) {
			holdPublic(ip, who)
		}
	}
	holdIPv6 := ipv6Holder(st, bad)
	for _, p := range st.PrimaryIPs {
		if p.Type == "ipv6" {
			holdIPv6(p.IP, fmt.Sprintf("primary IP %d", p.ID))
		}
	}
	for _, lb := range st.LoadBalancers {
		holdIPv6(lb.PublicNet.IPv6.IP, fmt.Sprintf("load balancer %d", lb.ID))
	}
	c := &snapshotCheck{bad: bad, holdPublic: holdPublic, holdIPv6: holdIPv6, servers: holders["server"]}
	list, _ := kinds()
	for _, k := range list {
		if data, ok := st.Kinds[k.name]; ok && k.check != nil {
			k.check(data, c)
		}
	}
	checkPool(st.PublicIPv4, public, bad)
	return errs
}

// ipv6Holder records the /64s fakecloud handed out (to a primary IP, a
// load balancer or a floating IP): each has one holder and was counted,
// so none is handed out again.
func ipv6Holder(st *Snapshot, bad func(string, ...any)) func(ip, who string) {
	held := map[netip.Prefix]string{}
	return func(ip, who string) {
		a, err := netip.ParseAddr(strings.TrimSuffix(ip, "/64"))
		if err != nil || !netaddr.PublicIPv6Cloud.Contains(a) {
			return
		}
		p := netip.PrefixFrom(a, 64).Masked()
		if other := held[p]; other != "" {
			bad("%s: IPv6 network %s is also held by %s", who, p, other)
		}
		held[p] = who
		b, base := p.Addr().As16(), netaddr.PublicIPv6Base.As16()
		if n := binary.BigEndian.Uint64(b[:8]) - binary.BigEndian.Uint64(base[:8]); n > st.PublicIPv6 {
			bad("%s: IPv6 network %s is beyond the counter public_ipv6 %d", who, p, st.PublicIPv6)
		}
	}
}

// snapshotCheck is what a kind's table kept by the registry is checked
// against in a snapshot: the addresses others hold, and the servers.
type snapshotCheck struct {
	bad        func(format string, args ...any)
	holdPublic func(ip, who string) // a public IPv4 address
	holdIPv6   func(ip, who string) // a public /64
	servers    map[int64]bool
}

// networkSubnets parses each network's subnets, reporting ranges that are
// not network addresses, lie outside the network or overlap.
func networkSubnets(st *Snapshot, bad func(string, ...any)) map[int64][]netip.Prefix {
	out := map[int64][]netip.Prefix{}
	for _, n := range st.Networks {
		r, msg := netaddr.ParseIPv4Net(n.IPRange)
		if msg != "" {
			bad("network %d: ip_range %s", n.ID, msg)
		}
		out[n.ID] = []netip.Prefix{}
		for _, s := range n.Subnets {
			p, msg := netaddr.ParseIPv4Net(s.IPRange)
			switch {
			case msg != "":
				bad("network %d: subnet %s", n.ID, msg)
				continue
			case r.IsValid() && !netaddr.Within(p, r):
				bad("network %d: subnet %s is outside its ip_range %s", n.ID, p, r)
			case slices.ContainsFunc(out[n.ID], p.Overlaps):
				bad("network %d: subnet %s overlaps another", n.ID, p)
			}
			out[n.ID] = append(out[n.ID], p)
		}
	}
	return out
}

// checkPool: an address of fakecloud's pool that someone holds was handed
// out (it lies before next) and is not free; a free one is held by nobody.
func checkPool(pool PoolState, public map[string]string, bad func(string, ...any)) {
	if !pool.Next.IsValid() {
		return
	}
	free := map[netip.Addr]bool{}
	for _, a := range pool.Free {
		if free[a] {
			bad("public_ipv4.free: %s is listed twice", a)
		}
		free[a] = true
		if who := public[a.String()]; who != "" {
			bad("public_ipv4.free: %s is free but held by %s", a, who)
		}
	}
	for _, ip := range slices.Sorted(maps.Keys(public)) {
		who := public[ip]
		a, err := netip.ParseAddr(ip)
		if err == nil && netaddr.PublicIPv4Range.Contains(a) && a.Compare(pool.Next) >= 0 {
			bad("%s: public IP %s is in the pool but not yet handed out (next %s)", who, a, pool.Next)
		}
	}
}
