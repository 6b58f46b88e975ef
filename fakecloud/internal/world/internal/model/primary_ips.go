package model

import (
	"net/netip"

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
