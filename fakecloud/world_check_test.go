package fakecloud

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// checkWorld is the world's own invariants and what else an export makes checkable:
// IDs and names unique per kind, SSH keys unique, one attachment per
// network and resource, routes that the API would still accept next to
// the subnets, gateways inside their networks, primary IPs and their
// servers that name each other, services with unique ports and existing
// certificates, and targets listed once. A load balancer's server target
// may outlive its server: deleteServer keeps it, reported unhealthy, as
// the API does.
func checkWorld(st *world.Snapshot) []error {
	errs := world.CheckInvariants(st)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, n := range st.Networks {
		checkRoutes(n, bad)
	}
	checkAttachments(st, bad)
	checkPrimaryIPs(st, bad)
	certs := map[int64]bool{}
	for _, c := range st.Certificates {
		certs[c.ID] = true
	}
	for _, lb := range st.LoadBalancers {
		checkLBConfig(lb, certs, bad)
	}
	return errs
}

// checkRoutes: each route's destination is a private (or the default)
// range overlapping no subnet and no other route, and its gateway lies in
// the network's range without being its first address; each subnet's
// gateway lies in the network's range (the API's is its first address).
func checkRoutes(n *schema.Network, bad func(string, ...any)) {
	who := fmt.Sprintf("network %d", n.ID)
	ipRange, _ := netip.ParsePrefix(n.IPRange)
	var subnets, dests []netip.Prefix
	for _, s := range n.Subnets {
		p, err := netip.ParsePrefix(s.IPRange)
		if err != nil {
			continue // the world's invariants report it
		}
		subnets = append(subnets, p)
		if g, err := netip.ParseAddr(s.Gateway); err != nil || !ipRange.Contains(g) {
			bad("%s: subnet %s has gateway %q outside the network's range", who, p, s.Gateway)
		}
	}
	for _, r := range n.Routes {
		d, err := netip.ParsePrefix(r.Destination)
		g, gerr := netip.ParseAddr(r.Gateway)
		switch {
		case err != nil || d != d.Masked():
			bad("%s: route destination %q is not a network address", who, r.Destination)
			continue
		case d.Bits() != 0 && !netaddr.RFC1918(d):
			bad("%s: route destination %s is neither private nor 0.0.0.0/0", who, d)
		case slices.ContainsFunc(subnets, d.Overlaps):
			bad("%s: route destination %s overlaps a subnet", who, d)
		case slices.ContainsFunc(dests, d.Overlaps):
			bad("%s: route destination %s overlaps another route", who, d)
		}
		if gerr != nil || !ipRange.Contains(g) || g == ipRange.Addr().Next() {
			bad("%s: route gateway %q is not an address of %s other than its first", who, r.Gateway, ipRange)
		}
		dests = append(dests, d)
	}
}

// checkAttachments: a server or load balancer is in a network at most once.
func checkAttachments(st *world.Snapshot, bad func(string, ...any)) {
	once := func(who string, networks []int64) {
		for i, n := range networks {
			if slices.Contains(networks[:i], n) {
				bad("%s: attached to network %d twice", who, n)
			}
		}
	}
	for _, s := range st.Servers {
		var ids []int64
		for _, pn := range s.PrivateNet {
			ids = append(ids, pn.Network)
		}
		once(fmt.Sprintf("server %d", s.ID), ids)
	}
	for _, lb := range st.LoadBalancers {
		var ids []int64
		for _, pn := range lb.PrivateNet {
			ids = append(ids, pn.Network)
		}
		once(fmt.Sprintf("load balancer %d", lb.ID), ids)
	}
}

// checkPrimaryIPs: a server's public IPv6 is the primary IP it names, and
// an assigned primary IP is the one its server names for that family.
func checkPrimaryIPs(st *world.Snapshot, bad func(string, ...any)) {
	servers := map[int64]*world.StoredServer{}
	for _, s := range st.Servers {
		servers[s.ID] = s
		if v6 := s.PublicNet.IPv6; v6.IP != "" {
			i := slices.IndexFunc(st.PrimaryIPs, func(p *schema.PrimaryIP) bool { return p.ID == v6.ID })
			if i < 0 || st.PrimaryIPs[i].IP != v6.IP || st.PrimaryIPs[i].AssigneeID == nil || *st.PrimaryIPs[i].AssigneeID != s.ID {
				bad("server %d: public IPv6 %s is not its primary IP %d", s.ID, v6.IP, v6.ID)
			}
		}
	}
	for _, p := range st.PrimaryIPs {
		if p.AssigneeID == nil {
			continue
		}
		s := servers[*p.AssigneeID]
		if s == nil {
			continue // the world's invariants report it
		}
		named := s.PublicNet.IPv4.ID
		if p.Type == "ipv6" {
			named = s.PublicNet.IPv6.ID
		}
		if named != p.ID {
			bad("primary IP %d: assigned to server %d, which names primary IP %d for %s", p.ID, s.ID, named, p.Type)
		}
	}
}

// checkLBConfig: listen ports unique, certificates of services exist,
// each target listed once.
func checkLBConfig(lb *world.StoredLoadBalancer, certs map[int64]bool, bad func(string, ...any)) {
	who := fmt.Sprintf("load balancer %d", lb.ID)
	ports := map[int]bool{}
	for _, s := range lb.Services {
		if ports[s.ListenPort] {
			bad("%s: two services listen on port %d", who, s.ListenPort)
		}
		ports[s.ListenPort] = true
		if s.HTTP == nil {
			continue
		}
		for _, c := range s.HTTP.Certificates {
			if !certs[c] {
				bad("%s: service on port %d uses certificate %d, which does not exist", who, s.ListenPort, c)
			}
		}
	}
	seen := map[string]bool{}
	for _, t := range lb.Targets {
		var key string
		switch {
		case t.Server != nil:
			key = fmt.Sprint("server ", t.Server.ID)
		case t.LabelSelector != nil:
			key = "label_selector " + t.LabelSelector.Selector
		case t.IP != nil:
			key = "ip " + t.IP.IP
		default:
			bad("%s: a %q target names nothing", who, t.Type)
			continue
		}
		if seen[key] {
			bad("%s: target %s is listed twice", who, key)
		}
		seen[key] = true
	}
}
