package model

import "net/netip"

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
