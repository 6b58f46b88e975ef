package world

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world/internal/model"
)

// Since 2026-10-05 a load balancer can be created on primary IPs the user
// made (changelog "Load Balancers can use existing Primary IPs"): its
// public_net names them by ID, they must be unassigned, of their family
// and in its location, and it keeps them for its lifetime. Where the
// changelog is silent fakecloud takes the reading a client must survive:
// the primary IP's assignee_type is load_balancer, it cannot be unassigned
// while the load balancer lives, and when the load balancer is deleted it
// is deleted with it if auto_delete is set, else unassigned, as a
// server's are.

// assigneeLB is a primary IP's assignee_type while a load balancer holds it.
const assigneeLB = "load_balancer"

// lbPrimaryIPs resolves the primary IPs a new load balancer takes, with the
// server's checks: [0] the IPv4, [1] the IPv6.
func (w *ops) lbPrimaryIPs(f *apierr.Fields, pn *schema.LoadBalancerCreateRequestPublicNet, public bool) ([2]*schema.PrimaryIP, *apierr.Error) {
	if pn == nil {
		return [2]*schema.PrimaryIP{}, nil
	}
	if !public && (pn.IPv4 != 0 || pn.IPv6 != 0) {
		f.Add("public_net", "needs public_interface true")
		return [2]*schema.PrimaryIP{}, nil
	}
	return w.givenPrimaryIPs(f, &serverCreatePublicNet{IPv4ID: pn.IPv4, IPv6ID: pn.IPv6})
}

// holdLBPrimaryIPs gives a new load balancer its primary IPs' addresses
// and marks them as its own.
func (w *ops) holdLBPrimaryIPs(lb *StoredLoadBalancer, given [2]*schema.PrimaryIP) {
	for _, p := range given {
		if p == nil {
			continue
		}
		id := lb.ID
		p.AssigneeID, p.AssigneeType = &id, assigneeLB
		ptr := ""
		if len(p.DNSPtr) > 0 {
			ptr = p.DNSPtr[0].DNSPtr
		}
		if p.Type == "ipv4" {
			lb.PublicNet.IPv4 = schema.LoadBalancerPublicNetIPv4{ID: p.ID, IP: p.IP, DNSPtr: ptr}
			continue
		}
		lb.PublicNet.IPv6 = model.LBIPv6(p.ID, p.IP)
	}
}

// releaseLBPrimaryIPs lets a deleted load balancer's primary IPs go: deleted
// with it when auto_delete is set, else unassigned.
func (w *ops) releaseLBPrimaryIPs(lb *StoredLoadBalancer) {
	for _, p := range w.PrimaryIPs.All() {
		if p.AssigneeID == nil || *p.AssigneeID != lb.ID || p.AssigneeType != assigneeLB {
			continue
		}
		if !p.AutoDelete {
			p.AssigneeID, p.AssigneeType = nil, model.Unassigned
			continue
		}
		if p.Type == "ipv4" {
			w.PubIPv4.Release(p.IP)
		}
		w.PrimaryIPs.Del(p.ID)
	}
}
