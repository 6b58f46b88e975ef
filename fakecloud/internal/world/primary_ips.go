package world

import (
	"net/netip"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// Unassigned is the assignee_type of a primary IP no one holds, since
// 2026-08-01 (changelog 2026-04-27 "Primary IPs will return unassigned").
const Unassigned = "unassigned"

// ViewPrimaryIP is the primary IP as the API shows it. A state file from
// before the change may hold "server" for an unassigned one.
func ViewPrimaryIP(p *schema.PrimaryIP) schema.PrimaryIP {
	v := *p
	if v.AssigneeID == nil {
		v.AssigneeType = Unassigned
	}
	v.Labels = CopyLabels(p.Labels)
	v.DNSPtr = append([]schema.PrimaryIPDNSPTR{}, p.DNSPtr...)
	return v
}

// PrimaryIPHas reports whether GET /primary_ips?ip= finds a primary IP
// whose ip is stored: the address as written, or for an IPv6 primary IP
// its network as written or its network's address alone
// ("2001:db8:0:27::" for "2001:db8:0:27::/64"), which is what hcloud-go
// and the Terraform provider ask for (the provider's data source test
// finds it so live). An address inside the network is not its address.
func PrimaryIPHas(stored, query string) bool {
	if stored == query {
		return true
	}
	p, err := netip.ParsePrefix(stored)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(query)
	return err == nil && a == p.Addr()
}

// PrimaryIPsLocation is where a server on the given primary IPs goes when
// the request names no location: theirs.
func PrimaryIPsLocation(given [2]*schema.PrimaryIP) string {
	for _, p := range given {
		if p != nil {
			return p.Location.Name
		}
	}
	return ""
}

// CheckPrimaryIPsLocation refuses primary IPs of another location than the
// server's.
func CheckPrimaryIPsLocation(given [2]*schema.PrimaryIP, loc string) *apierr.Error {
	for _, p := range given {
		if p != nil && p.Location.Name != loc {
			return apierr.Errorf("primary_ip_datacenter_mismatch", "primary IP %d is in %s, not in %s", p.ID, p.Location.Name, loc)
		}
	}
	return nil
}

// LBIPv6 is a load balancer's IPv6 in a /64 (of the primary IP with the
// ID, or 0 for one of its own): the network's first host address.
func LBIPv6(id int64, network string) schema.LoadBalancerPublicNetIPv6 {
	ip6 := netip.MustParsePrefix(network).Addr().Next()
	return schema.LoadBalancerPublicNetIPv6{ID: id, IP: ip6.String(), DNSPtr: defaultIPv6PTR(ip6.String())}
}
