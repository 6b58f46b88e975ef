package world

import (
	"fmt"
	"net/netip"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// serverTargetAddr checks the server.ip a server target asks for, as the
// add_target description has it: the server's primary IPv4, or an IPv6
// host address within the server's /64, only for a public target.
// Anything else is ip_not_assigned_to_server; a private address or a
// private target is a field error. The address is returned written plain.
func (w *project) serverTargetAddr(s *StoredServer, ip string, private bool, f *apierr.Fields, prefix string) (string, *apierr.Error) {
	a, err := netip.ParseAddr(ip)
	switch {
	case err != nil || a.Zone() != "" || a.Is4In6():
		f.Add(prefix+"server.ip", "%q is not an IP address written plain", ip)
		return "", nil
	case private:
		f.Add(prefix+"server.ip", "is only valid for public targets, not with use_private_ip")
		return "", nil
	case a.IsPrivate() || !a.IsGlobalUnicast():
		f.Add(prefix+"server.ip", "%s is not a public address", a)
		return "", nil
	case a.Is4():
		if s.PublicNet.IPv4.IP != a.String() {
			return "", apierr.Errorf("ip_not_assigned_to_server", "IP %s is not the primary IPv4 of server %d", a, s.ID)
		}
		return a.String(), nil
	}
	net, perr := netip.ParsePrefix(s.PublicNet.IPv6.IP)
	// The /64's own first address is its subnet-router anycast address, no
	// host's: the unhelpful reading of "host address".
	if perr != nil || !net.Contains(a) || a == net.Masked().Addr() || !netaddr.HostAddr(a) {
		return "", apierr.Errorf("ip_not_assigned_to_server", "IP %s is neither the primary IPv4 of server %d nor a host address in its IPv6 subnet", a, s.ID)
	}
	return a.String(), nil
}

// serverTargetIPv6 is the IPv6 address a server target was added with,
// "" for one on the primary IPv4 (or the private IP): a server is a
// target once on each, so the address is part of what names the target.
func serverTargetIPv6(t *TargetServer) string {
	if t == nil {
		return ""
	}
	if a, err := netip.ParseAddr(t.IP); err == nil && a.Is6() {
		return a.String()
	}
	return ""
}

// serverTargetKey names a server target in health and traffic keys.
func serverTargetKey(t *TargetServer) string {
	if v6 := serverTargetIPv6(t); v6 != "" {
		return fmt.Sprintf("server:%d@%s", t.ID, v6)
	}
	return fmt.Sprintf("server:%d", t.ID)
}
