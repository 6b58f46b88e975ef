package world

import (
	"net/netip"
	"strconv"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
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

// AssigneeLB is a primary IP's assignee_type while a load balancer holds it.
const AssigneeLB = "load_balancer"

// NewPrimaryIP records the primary IP a new server gets.
func (w *project) NewPrimaryIP(kind, ip string, loc schema.Location, serverID int64, now time.Time) *schema.PrimaryIP {
	id := w.NewID("primary_ip")
	p := &schema.PrimaryIP{ID: id, IP: ip, Type: kind, Name: "primary_ip-" + strconv.Itoa(int(id)), Labels: map[string]string{},
		AssigneeID: &serverID, AssigneeType: "server", AutoDelete: true, Created: now, Location: loc,
		DNSPtr: []schema.PrimaryIPDNSPTR{}}
	if a, err := netip.ParseAddr(ip); err == nil && a.Is4() {
		p.DNSPtr = []schema.PrimaryIPDNSPTR{{IP: ip, DNSPtr: DefaultPTR(a)}}
	}
	w.PrimaryIPs.Put(id, p)
	return p
}

// AssignPrimaryIP gives p to s.
func (w *project) AssignPrimaryIP(p *schema.PrimaryIP, s *StoredServer) {
	id := s.ID
	p.AssigneeID, p.AssigneeType = &id, "server"
	if p.Type == "ipv4" {
		s.PublicNet.IPv4 = schema.ServerPublicNetIPv4{ID: p.ID, IP: p.IP, DNSPtr: pipPTR(p, p.IP)}
	} else {
		s.PublicNet.IPv6 = schema.ServerPublicNetIPv6{ID: p.ID, IP: p.IP, DNSPtr: pipIPv6PTRs(p)}
	}
}

// PublicTarget reports whether a load balancer targets the server by its
// public address.
func (w *project) PublicTarget(id int64) bool {
	for _, lb := range w.LoadBalancers.All() {
		for _, t := range lb.Targets {
			if t.Type == "server" && t.Server != nil && t.Server.ID == id && !t.Private() {
				return true
			}
		}
	}
	return false
}

// HoldLBPrimaryIPs gives a new load balancer its primary IPs' addresses
// and marks them as its own.
func (w *project) HoldLBPrimaryIPs(lb *StoredLoadBalancer, given [2]*schema.PrimaryIP) {
	for _, p := range given {
		if p == nil {
			continue
		}
		id := lb.ID
		p.AssigneeID, p.AssigneeType = &id, AssigneeLB
		if p.Type == "ipv4" {
			lb.PublicNet.IPv4 = schema.LoadBalancerPublicNetIPv4{ID: p.ID, IP: p.IP, DNSPtr: pipPTR(p, p.IP)}
			continue
		}
		// The load balancer's one IPv6 address gets the name it would
		// have on a network of its own, unless the primary IP names it.
		lb.PublicNet.IPv6 = LBIPv6(p.ID, p.IP)
		if pipPTR(p, lb.PublicNet.IPv6.IP) == "" {
			p.DNSPtr = append(p.DNSPtr, schema.PrimaryIPDNSPTR{IP: lb.PublicNet.IPv6.IP, DNSPtr: lb.PublicNet.IPv6.DNSPtr})
		}
		lb.PublicNet.IPv6.DNSPtr = pipPTR(p, lb.PublicNet.IPv6.IP)
	}
}
