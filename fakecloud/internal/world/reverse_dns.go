package world

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

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

// SetServerIPv6PTR names a of a server's IPv6 network ptr; empty removes
// its name.
func SetServerIPv6PTR(s *StoredServer, a netip.Addr, ptr string) {
	s.PublicNet.IPv6.DNSPtr = slices.DeleteFunc(s.PublicNet.IPv6.DNSPtr, func(d schema.ServerPublicNetIPv6DNSPtr) bool { return d.IP == a.String() })
	if ptr != "" {
		s.PublicNet.IPv6.DNSPtr = append(s.PublicNet.IPv6.DNSPtr, schema.ServerPublicNetIPv6DNSPtr{IP: a.String(), DNSPtr: ptr})
	}
}

// SetPrimaryIPv6PTR names a of a primary IP's IPv6 network ptr; empty
// removes its name.
func SetPrimaryIPv6PTR(p *schema.PrimaryIP, a netip.Addr, ptr string) {
	p.DNSPtr = slices.DeleteFunc(p.DNSPtr, func(d schema.PrimaryIPDNSPTR) bool { return d.IP == a.String() })
	if ptr != "" {
		p.DNSPtr = append(p.DNSPtr, schema.PrimaryIPDNSPTR{IP: a.String(), DNSPtr: ptr})
	}
}
