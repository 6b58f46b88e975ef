package world

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// A reverse DNS entry belongs to the address, whichever object shows it.
// An address a primary IP holds keeps its entries on the primary IP: the
// server or load balancer it is assigned to reads them there, and its
// change_dns_ptr writes them there (the spec: a server's change_dns_ptr
// "changes the hostname ... belonging to the primary IPs (IPv4 and IPv6)
// of this Server"). The entries stay with the primary IP when it is
// unassigned, moves, or its holder is deleted, and go with it when it is
// deleted. A load balancer's own addresses and a floating IP's keep their
// entries on themselves; a floating IP's are not its server's (the spec:
// "Floating IPs assigned to the Server are not affected by this"). The
// server's or load balancer's stored copy is kept in step, but what the
// API shows is always read from the primary IP.

// ptrRequest reads a change_dns_ptr request: the address, and the name,
// empty for null (reset to the default, or remove).
func ptrRequest(ip string, name *string) (netip.Addr, string, *apierr.Error) {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return netip.Addr{}, "", apierr.InvalidField("ip", "%q is not an IP address", ip)
	}
	if name == nil {
		return a, "", nil
	}
	return a, *name, nil
}

// DefaultPTR is the reverse DNS name the API gives a fresh IPv4 address.
func DefaultPTR(a netip.Addr) string {
	parts := strings.Split(a.String(), ".")
	slices.Reverse(parts)
	return "static." + strings.Join(parts, ".") + ".clients.your-server.de"
}

// defaultIPv6PTR is the name fakecloud gives a load balancer's IPv6.
func defaultIPv6PTR(ip string) string { return "static." + ip + ".clients.your-server.de" }

// addressPIP is the primary IP with the ID a server's or load balancer's
// public address names, or nil for an address of its own.
func (w *project) addressPIP(id int64) *schema.PrimaryIP {
	if id == 0 {
		return nil
	}
	p, _ := w.PrimaryIPs.Get(id)
	return p
}

// pipPTR is the primary IP's name for the address, "" for none.
func pipPTR(p *schema.PrimaryIP, ip string) string {
	for _, d := range p.DNSPtr {
		if d.IP == ip {
			return d.DNSPtr
		}
	}
	return ""
}

// pipIPv6PTRs are a primary IP's entries as a server's IPv6 shows them.
func pipIPv6PTRs(p *schema.PrimaryIP) []schema.ServerPublicNetIPv6DNSPtr {
	out := make([]schema.ServerPublicNetIPv6DNSPtr, 0, len(p.DNSPtr))
	for _, d := range p.DNSPtr {
		out = append(out, schema.ServerPublicNetIPv6DNSPtr{IP: d.IP, DNSPtr: d.DNSPtr})
	}
	return out
}

// setPIPPTR names the primary IP's address a ptr: an IPv4 has one entry,
// reset to the default by an empty name; an IPv6 network has one per
// address, removed by an empty name. The server or load balancer it is
// assigned to shows the same.
func (w *project) setPIPPTR(p *schema.PrimaryIP, a netip.Addr, ptr string) {
	if p.Type == "ipv4" {
		if ptr == "" {
			ptr = DefaultPTR(a)
		}
		p.DNSPtr = []schema.PrimaryIPDNSPTR{{IP: a.String(), DNSPtr: ptr}}
	} else {
		p.DNSPtr = slices.DeleteFunc(p.DNSPtr, func(d schema.PrimaryIPDNSPTR) bool { return d.IP == a.String() })
		if ptr != "" {
			p.DNSPtr = append(p.DNSPtr, schema.PrimaryIPDNSPTR{IP: a.String(), DNSPtr: ptr})
		}
	}
	w.showPIPPTRs(p)
}

// showPIPPTRs copies a primary IP's entries onto the stored server or
// load balancer it is assigned to.
func (w *project) showPIPPTRs(p *schema.PrimaryIP) {
	if p.AssigneeID == nil {
		return
	}
	switch p.AssigneeType {
	case "server":
		s, ok := w.Servers.Get(*p.AssigneeID)
		if !ok {
			return
		}
		if p.Type == "ipv4" && s.PublicNet.IPv4.ID == p.ID {
			s.PublicNet.IPv4.DNSPtr = pipPTR(p, p.IP)
		} else if p.Type == "ipv6" && s.PublicNet.IPv6.ID == p.ID {
			s.PublicNet.IPv6.DNSPtr = pipIPv6PTRs(p)
		}
	case AssigneeLB:
		lb, ok := w.LoadBalancers.Get(*p.AssigneeID)
		if !ok {
			return
		}
		if lb.PublicNet.IPv4.ID == p.ID {
			lb.PublicNet.IPv4.DNSPtr = pipPTR(p, lb.PublicNet.IPv4.IP)
		}
		if lb.PublicNet.IPv6.ID == p.ID {
			lb.PublicNet.IPv6.DNSPtr = pipPTR(p, lb.PublicNet.IPv6.IP)
		}
	}
}

// ptrTouch is the primary IP, if any, whose entries a change_dns_ptr on
// the address of primary IP id writes, and the touch that undoes it: the
// action shares the primary IP as it shares its own resource (a
// change_dns_ptr locks neither).
func (w *project) ptrTouch(id int64) (*schema.PrimaryIP, []touch) {
	if p := w.addressPIP(id); p != nil {
		return p, []touch{{ref: Ref{Type: "primary_ip", ID: p.ID}, sets: [][]string{member("dns_ptr")}}}
	}
	return nil, nil
}

// pipAssigneeRef is the server or load balancer a primary IP is assigned
// to, if it exists.
func (w *project) pipAssigneeRef(p *schema.PrimaryIP) []Ref {
	if p.AssigneeID == nil {
		return nil
	}
	switch p.AssigneeType {
	case "server":
		if _, ok := w.Servers.Get(*p.AssigneeID); ok {
			return []Ref{{Type: "server", ID: *p.AssigneeID}}
		}
	case AssigneeLB:
		if _, ok := w.LoadBalancers.Get(*p.AssigneeID); ok {
			return []Ref{{Type: "load_balancer", ID: *p.AssigneeID}}
		}
	}
	return nil
}

// SetServerIPv6PTR names a of a server's IPv6 network ptr; empty removes
// its name. Only for a server whose network is no primary IP's.
func SetServerIPv6PTR(s *StoredServer, a netip.Addr, ptr string) {
	s.PublicNet.IPv6.DNSPtr = slices.DeleteFunc(s.PublicNet.IPv6.DNSPtr, func(d schema.ServerPublicNetIPv6DNSPtr) bool { return d.IP == a.String() })
	if ptr != "" {
		s.PublicNet.IPv6.DNSPtr = append(s.PublicNet.IPv6.DNSPtr, schema.ServerPublicNetIPv6DNSPtr{IP: a.String(), DNSPtr: ptr})
	}
}

// viewServerPTRs fills a server's shown names from the primary IPs its
// addresses come from.
func (w *project) viewServerPTRs(v *serverPublicNet) {
	if v.IPv4 != nil {
		if p := w.addressPIP(v.IPv4.ID); p != nil {
			v.IPv4.DNSPtr = pipPTR(p, v.IPv4.IP)
		}
	}
	if v.IPv6 != nil {
		if p := w.addressPIP(v.IPv6.ID); p != nil {
			v.IPv6.DNSPtr = pipIPv6PTRs(p)
		}
	}
}

// lbPTR is the name a load balancer shows for its address: its primary
// IP's entry, or its own.
func (w *project) lbPTR(id int64, ip, own string) string {
	if p := w.addressPIP(id); p != nil {
		return pipPTR(p, ip)
	}
	return own
}
