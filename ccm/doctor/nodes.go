package doctor

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm"
	"github.com/hcloudlab/hcloud-ccm/ccm/nearname"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
)

// initGrace is how long a new Node may wait for the CCM before its
// uninitialized taint is a failure.
const initGrace = 2 * time.Minute

// checkNodes maps every Node to its server, checks its addresses, and
// explains Nodes the CCM has not initialised.
func (d *doctor) checkNodes() {
	if d.cloud != nil {
		owners := map[int64][]string{}
		for i := range d.nodes {
			n := &d.nodes[i]
			if s := d.matchNode(n); s != nil {
				d.servers[n.Name] = s
				owners[s.ID] = append(owners[s.ID], n.Name)
			}
		}
		for _, s := range d.cloud.servers {
			if names := owners[s.ID]; len(names) > 1 {
				d.found.fail("node", "server/"+s.Name, fmt.Sprintf("Nodes %s all map to server %s (ID %d)", strings.Join(names, ", "), s.Name, s.ID),
					"delete the Nodes that no kubelet runs for any more")
				for _, name := range names {
					d.blocked[name] = "another Node maps to the same server"
				}
			}
		}
		for i := range d.nodes {
			if s := d.servers[d.nodes[i].Name]; s != nil {
				d.checkNodeIPs(&d.nodes[i], s)
			}
		}
	}
	for i := range d.nodes {
		d.checkInit(&d.nodes[i])
	}
	if d.cloud != nil {
		d.checkServerLabels()
	}
}

// matchNode finds n's server as the CCM does, by provider ID, else by
// name; it reports a Node without one, with near misses.
func (d *doctor) matchNode(n *corev1.Node) *hcloud.Server {
	subject := "node/" + n.Name
	if d.isDedicated(n) {
		return nil // checkRobot's
	}
	if n.Spec.ProviderID != "" {
		id, err := providerid.ToServerID(n.Spec.ProviderID)
		switch {
		case err != nil:
			d.found.fail("node", subject, err.Error(), "start the kubelet with --provider-id=hcloud://<server ID>, or without --provider-id")
			d.blocked[n.Name] = "its provider ID is not a server's"
			return nil
		}
		if s := d.cloud.byID[id]; s != nil {
			return s
		}
		msg, fix := fmt.Sprintf("provider ID %s names no server of the project: the server was deleted", n.Spec.ProviderID),
			"delete the Node; the CCM's node lifecycle controller does so when it runs"
		if s := d.cloud.byName[n.Name]; s != nil {
			msg += fmt.Sprintf("; server %s now has ID %d", s.Name, s.ID)
			fix = "delete the Node, so its kubelet registers it again for the new server"
		}
		d.found.fail("node", subject, msg, fix)
		d.blocked[n.Name] = "its server does not exist"
		return nil
	}
	if s := d.cloud.byName[n.Name]; s != nil {
		return s
	}
	d.blocked[n.Name] = "no server matches it"
	if s := d.nearMiss(n.Name); s != nil {
		d.found.fail("node", subject, fmt.Sprintf("no server is named %s; server %s (ID %d) is close, but the CCM matches names exactly", n.Name, s.Name, s.ID),
			fmt.Sprintf("rename server %s to %s, or start the kubelet with --provider-id=hcloud://%d", s.Name, n.Name, s.ID))
		return nil
	}
	d.found.fail("node", subject, "no server is named like the Node, and it has no provider ID",
		"name the server as the Node, or start the kubelet with --provider-id=hcloud://<server ID>")
	return nil
}

// nearMiss is a server whose name differs from name only in case or in
// a domain suffix (node1.example.com and node1).
func (d *doctor) nearMiss(name string) *hcloud.Server {
	for _, s := range d.cloud.servers {
		if nearname.NearMiss(s.Name, name) {
			return s
		}
	}
	return nil
}

// checkNodeIPs checks the kubelet's --node-ip against the addresses the
// CCM reports for the server (the cloud-node controller refuses a Node
// whose --node-ip is not one of them), and the Node's addresses against
// every address of the server.
func (d *doctor) checkNodeIPs(n *corev1.Node, s *hcloud.Server) {
	subject := "node/" + n.Name
	reported := d.reported(s, n)
	problems := 0
	for ip := range strings.SplitSeq(n.Annotations[cloudproviderapi.AnnotationAlphaProvidedIPAddr], ",") {
		if ip = strings.TrimSpace(ip); ip == "" || slices.Contains(reported, ip) {
			continue
		}
		problems++
		d.blocked[n.Name] = fmt.Sprintf("its --node-ip %s is not an address the CCM reports", ip)
		fix := fmt.Sprintf("start the kubelet with --node-ip set to one of %s", strings.Join(reported, ", "))
		addr, _ := netip.ParseAddr(ip)
		if id := privateNetwork(s, addr); id != 0 && id != d.networkID {
			fix += fmt.Sprintf(", or set HCLOUD_NETWORK=%s", d.cloud.networkName(id))
		} else if !owns(s, addr) {
			fix += ", or, if it is an address of your own network (an overlay such as WireGuard or Tailscale), name its range in HCLOUD_INSTANCES_INTERNAL_IP_CIDRS"
		}
		d.found.fail("node-ip", subject, fmt.Sprintf("kubelet --node-ip %s is not among the addresses the CCM reports for server %s (%s)",
			ip, s.Name, strings.Join(reported, ", ")), fix)
	}
	d.explainOverlay(n, s)
	for _, a := range n.Status.Addresses {
		if a.Type != corev1.NodeInternalIP && a.Type != corev1.NodeExternalIP {
			continue
		}
		// The annotated external-ipv6 is one the CCM reports, in the
		// server's /64 or not.
		if addr, err := netip.ParseAddr(a.Address); (err != nil || !owns(s, addr)) && !slices.Contains(reported, a.Address) {
			problems++
			d.found.warn("node-ip", subject, fmt.Sprintf("%s %s is not an address of server %s", a.Type, a.Address, s.Name),
				"check the kubelet's --node-ip and that the Node is the server's")
		}
	}
	if problems == 0 {
		d.found.ok("node", subject, fmt.Sprintf("server %s (ID %d); its addresses are the server's", s.Name, s.ID))
	}
}

// reported are the addresses the CCM gives the Node, from the CCM's own
// code (ccm.NodeAddresses), but for the hostname.
func (d *doctor) reported(s *hcloud.Server, n *corev1.Node) []string {
	cfg := d.cfg
	cfg.NetworkID = d.networkID
	var out []string
	for _, a := range ccm.NodeAddresses(s, n, cfg) {
		if a.Type != corev1.NodeHostName {
			out = append(out, a.Address)
		}
	}
	return out
}

// owns reports whether ip is one of s's addresses: public, in its IPv6
// /64, or private (alias IPs too) in any network.
func owns(s *hcloud.Server, ip netip.Addr) bool {
	if eq(s.PublicNet.IPv4.IP, ip) {
		return true
	}
	if n := s.PublicNet.IPv6.Network; n != nil && n.Contains(net.IP(ip.AsSlice())) {
		return true
	}
	return privateNetwork(s, ip) != 0
}

// privateNetwork is the ID of the network in which ip is s's, or 0.
func privateNetwork(s *hcloud.Server, ip netip.Addr) int64 {
	for _, pn := range s.PrivateNet {
		if pn.Network != nil && (eq(pn.IP, ip) || slices.ContainsFunc(pn.Aliases, func(a net.IP) bool { return eq(a, ip) })) {
			return pn.Network.ID
		}
	}
	return 0
}

func eq(a net.IP, b netip.Addr) bool {
	x, ok := netip.AddrFromSlice(a)
	return ok && b.IsValid() && x.Unmap() == b.Unmap()
}

// checkInit explains a Node that still has the uninitialized taint, and a
// Node that never had it: its kubelet runs without --cloud-provider=external.
func (d *doctor) checkInit(n *corev1.Node) {
	subject := "node/" + n.Name
	tainted := slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == cloudproviderapi.TaintExternalCloudProvider })
	switch {
	case tainted:
		age := d.now.Sub(n.CreationTimestamp.Time).Round(time.Second)
		switch why := d.blocked[n.Name]; {
		case why != "":
			d.found.fail("taint", subject, "still uninitialized: "+why, "fix the finding above; the CCM then initialises the Node at its next try")
		case d.ccmIssue != "":
			d.found.fail("taint", subject, "still uninitialized: "+d.ccmIssue, "fix the ccm findings above")
		case d.cloud == nil:
			d.found.warn("taint", subject, "still uninitialized; the cloud could not be read to tell why", "fix the token findings above")
		case age < initGrace:
			d.found.warn("taint", subject, fmt.Sprintf("still uninitialized, registered %s ago", age), "wait a minute; if it stays, read the CCM's logs")
		default:
			d.found.fail("taint", subject, fmt.Sprintf("still uninitialized after %s, though its server matches", age), "read the CCM's logs for this Node")
		}
	case n.Spec.ProviderID == "":
		d.found.fail("kubelet", subject, "neither the uninitialized taint nor a provider ID: the kubelet runs without --cloud-provider=external, so the CCM never initialised the Node",
			"start the kubelet with --cloud-provider=external, then delete the Node so that it registers again")
	}
}
