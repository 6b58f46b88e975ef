package doctor

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// maxRoutes is how many routes a Hetzner Cloud network holds.
const maxRoutes = 100

// checkNetwork checks HCLOUD_NETWORK: it exists, every Node's server is
// attached, and with routes on, the cluster CIDR lies in its IP range and
// the routes.
func (d *doctor) checkNetwork() {
	if d.cfg.Network == "" || d.cloud == nil {
		return
	}
	n := networkRef(d.cfg.Network, d.cloud.networks)
	if n == nil {
		d.found.fail("network", "network/"+d.cfg.Network, fmt.Sprintf("HCLOUD_NETWORK=%s names no network of the project", d.cfg.Network),
			"set HCLOUD_NETWORK (or the key network of Secret hcloud) to the ID or name of the cluster's network (hcloud network list)")
		return
	}
	subject := "network/" + n.Name
	attached := 0
	for _, node := range d.nodes {
		s := d.servers[node.Name]
		if s == nil {
			continue
		}
		if ip := networkIP(s, n.ID); !ip.IsValid() {
			d.found.fail("network", "server/"+s.Name, fmt.Sprintf("not attached to network %s: Node %s gets no InternalIP and no pod route can reach it", n.Name, node.Name),
				fmt.Sprintf("hcloud server attach-to-network %s --network %s", s.Name, n.Name))
			continue
		}
		attached++
	}
	d.found.ok("network", subject, fmt.Sprintf("ID %d, IP range %s; %d Nodes' servers attached", n.ID, n.IPRange, attached))
	// Pods are routed through the network only with routes on; without,
	// their CIDRs are the CNI's business.
	if d.cfg.RoutesEnabled {
		d.checkClusterCIDR(n)
		d.checkRoutes(n)
	}
}

// checkClusterCIDR checks that the cluster CIDR (--cluster-cidr, else the
// Nodes' pod CIDRs) lies in the network's IP range and overlaps no subnet.
func (d *doctor) checkClusterCIDR(n *hcloud.Network) {
	var cidrs []netip.Prefix
	source := "--cluster-cidr"
	if d.opts.ClusterCIDR != "" {
		for c := range strings.SplitSeq(d.opts.ClusterCIDR, ",") {
			p, err := netip.ParsePrefix(strings.TrimSpace(c))
			if err != nil {
				d.found.fail("cluster-cidr", c, fmt.Sprintf("--cluster-cidr=%s is not a CIDR", d.opts.ClusterCIDR), "pass kube-controller-manager's --cluster-cidr, such as 10.244.0.0/16")
				return
			}
			cidrs = append(cidrs, p.Masked())
		}
	} else {
		source = "pod CIDR"
		cidrs = d.podCIDRs()
	}
	if len(cidrs) == 0 {
		d.found.warn("cluster-cidr", "nodes", "no Node has a pod CIDR: the CCM has no route to make",
			"run kube-controller-manager with --allocate-node-cidrs --cluster-cidr=..., or set HCLOUD_NETWORK_ROUTES_ENABLED=false if the CNI routes pods itself")
		return
	}
	netRange, _ := netip.ParsePrefix(n.IPRange.String())
	bad := 0
	for _, c := range cidrs {
		if !c.Addr().Is4() {
			continue // the API routes IPv4 only; the CCM leaves IPv6 pod CIDRs alone
		}
		if !netRange.Contains(c.Addr()) || c.Bits() < netRange.Bits() {
			bad++
			d.found.fail("cluster-cidr", c.String(), fmt.Sprintf("%s %s lies outside network %s's IP range %s: the API refuses routes to it", source, c, n.Name, netRange),
				fmt.Sprintf("widen the network's IP range to contain it (hcloud network change-ip-range %s), or choose a cluster CIDR inside %s", n.Name, netRange))
			continue
		}
		for _, sub := range n.Subnets {
			if sp, err := netip.ParsePrefix(sub.IPRange.String()); err == nil && sp.Overlaps(c) {
				bad++
				d.found.fail("cluster-cidr", c.String(), fmt.Sprintf("%s %s overlaps subnet %s of network %s: the API refuses routes to it", source, c, sp, n.Name),
					"choose a cluster CIDR that overlaps no subnet of the network")
				break
			}
		}
	}
	if bad == 0 {
		d.found.ok("cluster-cidr", "network/"+n.Name, fmt.Sprintf("%d %s ranges inside %s", len(cidrs), source, netRange))
	}
}

// podCIDRs are the Nodes' pod CIDRs.
func (d *doctor) podCIDRs() []netip.Prefix {
	var out []netip.Prefix
	for _, node := range d.nodes {
		for _, c := range nodePodCIDRs(node.Spec.PodCIDR, node.Spec.PodCIDRs) {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

func nodePodCIDRs(one string, many []string) []netip.Prefix {
	if len(many) == 0 && one != "" {
		many = []string{one}
	}
	var out []netip.Prefix
	for _, c := range many {
		if p, err := netip.ParsePrefix(c); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

// checkRoutes counts the routes against the network's limit, and finds
// routes to no Node and Nodes without a route.
func (d *doctor) checkRoutes(n *hcloud.Network) {
	subject := "network/" + n.Name
	need := 0
	gateways := map[netip.Addr]bool{}
	for _, node := range d.nodes {
		if s := d.servers[node.Name]; s != nil {
			if ip := networkIP(s, n.ID); ip.IsValid() {
				gateways[ip] = true
			}
		}
		if slices.ContainsFunc(nodePodCIDRs(node.Spec.PodCIDR, node.Spec.PodCIDRs), func(p netip.Prefix) bool { return p.Addr().Is4() }) {
			need++
		}
	}
	switch {
	case need > maxRoutes:
		d.found.fail("route", subject, fmt.Sprintf("%d Nodes need a route each; a network holds at most %d", need, maxRoutes),
			"route pods without the cloud (a CNI with its own routing or tunnels) and set HCLOUD_NETWORK_ROUTES_ENABLED=false")
	case len(n.Routes) >= maxRoutes*9/10:
		d.found.warn("route", subject, fmt.Sprintf("%d of %d routes used", len(n.Routes), maxRoutes),
			"plan for the limit: a CNI with its own routing needs no cloud routes")
	default:
		d.found.ok("route", subject, fmt.Sprintf("%d of %d routes used", len(n.Routes), maxRoutes))
	}
	have := map[string]bool{}
	for _, r := range n.Routes {
		gw, _ := netip.AddrFromSlice(r.Gateway)
		gw = gw.Unmap()
		dest := r.Destination.String()
		have[dest+" "+gw.String()] = true
		if gateways[gw] {
			continue
		}
		// The CCM lists, replaces and deletes only its own Nodes' routes.
		if s := d.serverAt(n.ID, gw); s != nil {
			d.found.warn("route", "route/"+dest, fmt.Sprintf("route to %s via %s: %s is server %s's IP in network %s, no Node's: another cluster's or made by hand, and the CCM leaves it alone", dest, gw, gw, s.Name, n.Name),
				"if it is another cluster's, give the clusters --cluster-cidr ranges that do not overlap")
			continue
		}
		d.found.warn("route", "route/"+dest, fmt.Sprintf("route to %s via %s: %s is no Node's IP in network %s, and no server holds it: the route belongs to nobody, and the CCM leaves it alone", dest, gw, gw, n.Name),
			fmt.Sprintf("hcloud network remove-route %s --destination %s --gateway %s, unless something outside the cluster uses it", n.Name, dest, gw))
	}
	for _, node := range d.nodes {
		s := d.servers[node.Name]
		if s == nil {
			continue
		}
		ip := networkIP(s, n.ID)
		for _, c := range nodePodCIDRs(node.Spec.PodCIDR, node.Spec.PodCIDRs) {
			if ip.IsValid() && c.Addr().Is4() && !have[c.String()+" "+ip.String()] {
				d.found.warn("route", "node/"+node.Name, fmt.Sprintf("no route to pod CIDR %s via %s", c, ip),
					"the CCM's route controller adds it within --route-reconciliation-period; if it does not, read the CCM's logs")
			}
		}
	}
}

// serverAt is the server holding an IP in a network, or nil.
func (d *doctor) serverAt(networkID int64, ip netip.Addr) *hcloud.Server {
	if d.cloud == nil {
		return nil
	}
	for _, s := range d.cloud.servers {
		if networkIP(s, networkID) == ip {
			return s
		}
	}
	return nil
}

// networkIP is s's IP in the network, if attached.
func networkIP(s *hcloud.Server, networkID int64) netip.Addr {
	for _, pn := range s.PrivateNet {
		if pn.Network != nil && pn.Network.ID == networkID {
			ip, _ := netip.AddrFromSlice(pn.IP)
			return ip.Unmap()
		}
	}
	return netip.Addr{}
}
