package world

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// DropLocks ends the running actions and locks on a resource that is gone.
func (w *project) DropLocks(ref Ref) {
	delete(w.LockedBy, ref)
	delete(w.Locks, ref)
}

// LBTargets reports whether a target key names a target of the load
// balancer, directly or through a label selector.
func (w *project) LBTargets(lb *StoredLoadBalancer, key string) bool {
	for _, t := range lb.Targets {
		if TargetKey(t) == key {
			return true
		}
		if t.LabelSelector != nil {
			for _, s := range w.Selected(t.LabelSelector.Selector) {
				if fmt.Sprintf("server:%d", s.ID) == key {
					return true
				}
			}
		}
	}
	return false
}

// SetPublicIPv4 moves a server's public IPv4, and its primary IP, to a:
// a public unicast address that no other server, primary IP or load
// balancer holds. From fakecloud's own pool only a released address can
// be taken; one not yet handed out would later be handed out twice.
func (w *project) SetPublicIPv4(srv *StoredServer, a netip.Addr) error {
	old := srv.PublicNet.IPv4.IP
	switch {
	case old == "":
		return fmt.Errorf("server: server %d has no public IPv4 to change", srv.ID)
	case old == a.String():
		return nil // event.Check refused what is not public unicast
	}
	if holder := w.PublicIPv4Holder(a); holder != "" {
		return fmt.Errorf("ip: %s is held by %s", a, holder)
	}
	if netaddr.PublicIPv4Range.Contains(a) && !w.PubIPv4.Claim(a) {
		return fmt.Errorf("ip: %s is in fakecloud's address pool %s and not free; choose a released address or one outside the pool", a, netaddr.PublicIPv4Range)
	}
	w.PubIPv4.Release(old)
	srv.PublicNet.IPv4.IP = a.String()
	srv.PublicNet.IPv4.DNSPtr = DefaultPTR(a)
	refs, family := []Ref{{Type: "server", ID: srv.ID}}, ""
	if pip, ok := w.PrimaryIPs.Get(srv.PublicNet.IPv4.ID); ok {
		pip.IP = a.String()
		pip.DNSPtr = []schema.PrimaryIPDNSPTR{{IP: a.String(), DNSPtr: DefaultPTR(a)}}
		refs, family = w.PrimaryIPRefs(pip.ID, srv.ID), "primary_ip"
	}
	// A user unassigns the primary IP and assigns one with the new address.
	// The spec's descriptions of both actions name no resources; their
	// examples carry the server and the primary IP, so these do too, but
	// under pessimistic realism they name the primary IP alone. Both are
	// listed under /primary_ips/actions, where they start.
	w.RecordDoneUnder(family, "unassign_primary_ip", refs...)
	w.RecordDoneUnder(family, "assign_primary_ip", refs...)
	return nil
}

// SetPrivateIP moves a server's address in a network to a, which must be
// free and inside a subnet of the network in the server's zone, as for an
// address asked for when attaching.
func (w *project) SetPrivateIP(srv *StoredServer, netID int64, a netip.Addr) error {
	ref := Ref{Type: "server", ID: srv.ID}
	m, ok := w.MemberOf(netID, ref)
	if !ok {
		return fmt.Errorf("network: server %d is not attached to network %d", srv.ID, netID)
	}
	i := slices.IndexFunc(srv.PrivateNet, func(p schema.ServerPrivateNet) bool { return p.Network == netID })
	if i < 0 {
		return fmt.Errorf("network: server %d is still being attached to network %d", srv.ID, netID)
	}
	if m.IP == a {
		return nil
	}
	if w.CheckLock(Ref{Type: "network", ID: netID}) != nil {
		return fmt.Errorf("network: network %d is being changed by a running action; try again when it ends", netID)
	}
	n, _ := w.Networks.Get(netID)
	if _, aerr := w.AllocIP(n, srv.Location.NetworkZone, a.String(), ""); aerr != nil {
		return fmt.Errorf("ip: %s", aerr.Message)
	}
	pn := srv.PrivateNet[i]
	pn.IP = a.String()
	w.Detach(m, netID) // also drops the private_net entry
	m.IP = a
	w.Attach(netID, m)
	srv.PrivateNet = append(srv.PrivateNet, pn)
	// A user detaches the server and attaches it again with the new IP;
	// the spec's examples of both actions carry the server and the network.
	refs := []Ref{{Type: "server", ID: srv.ID}, {Type: "network", ID: netID}}
	w.RecordDone("detach_from_network", refs...)
	w.RecordDone("attach_to_network", refs...)
	return nil
}

// PrimaryIPRefs are the resources a primary IP action names: the server
// (which it locks) and the primary IP, as the spec's examples show.
func (w *project) PrimaryIPRefs(pip, server int64) []Ref {
	if w.Pessimistic() {
		return []Ref{{Type: "primary_ip", ID: pip}}
	}
	return []Ref{{Type: "server", ID: server}, {Type: "primary_ip", ID: pip}}
}
