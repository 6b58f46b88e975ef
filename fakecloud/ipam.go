package fakecloud

import (
	"encoding/binary"
	"net/netip"
	"slices"
)

// Public addresses come from documentation and benchmark ranges, so they can
// never be mistaken for, or route to, a real host.
var (
	publicIPv4Range = netip.MustParsePrefix("198.18.0.0/15")
	publicIPv6Base  = netip.MustParseAddr("2001:db8::")
	// publicIPv6Cloud holds every IPv6 network fakecloud hands to servers
	// and load balancers (2001:db8::/32, the documentation prefix).
	publicIPv6Cloud = netip.PrefixFrom(publicIPv6Base, 32)
)

// ipPool hands out addresses of a prefix in order and reuses released ones.
type ipPool struct {
	prefix netip.Prefix
	next   netip.Addr
	free   []netip.Addr
}

func newIPPool(p netip.Prefix) ipPool {
	return ipPool{prefix: p, next: p.Addr().Next()}
}

func (p *ipPool) take() (netip.Addr, bool) {
	if n := len(p.free); n > 0 {
		a := p.free[n-1]
		p.free = p.free[:n-1]
		return a, true
	}
	if !p.prefix.Contains(p.next) || !p.prefix.Contains(p.next.Next()) {
		return netip.Addr{}, false
	}
	a := p.next
	p.next = p.next.Next()
	return a, true
}

// claim takes a released address out of the pool, reporting whether it
// was free.
func (p *ipPool) claim(a netip.Addr) bool {
	i := slices.Index(p.free, a)
	if i < 0 {
		return false
	}
	p.free = slices.Delete(p.free, i, i+1)
	return true
}

func (p *ipPool) release(s string) {
	if a, err := netip.ParseAddr(s); err == nil && p.prefix.Contains(a) {
		p.free = append(p.free, a)
	}
}

// newIPv6Net returns the next public /64, as "2001:db8:0:N::/64".
func (w *liveWorld) newIPv6Net() string {
	w.pubIPv6++
	b := publicIPv6Base.As16()
	binary.BigEndian.PutUint64(b[:8], binary.BigEndian.Uint64(b[:8])+w.pubIPv6)
	return netip.PrefixFrom(netip.AddrFrom16(b), 64).String()
}

// lastAddr is the broadcast address of a prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As16()
	bits := p.Bits()
	if p.Addr().Is4() {
		bits += 96
	}
	for i := bits; i < 128; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	a := netip.AddrFrom16(b)
	if p.Addr().Is4() {
		return a.Unmap()
	}
	return a
}

// overlaps reports whether two prefixes share an address.
func overlaps(a, b netip.Prefix) bool {
	return a.Overlaps(b)
}

// within reports whether inner lies completely inside outer.
func within(inner, outer netip.Prefix) bool {
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Masked().Addr())
}

var privateRanges = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
}

// rfc1918 reports whether p lies inside one of the private IPv4 ranges.
func rfc1918(p netip.Prefix) bool {
	for _, r := range privateRanges {
		if within(p, r) {
			return true
		}
	}
	return false
}

// parseIPv4Net reads an IPv4 network in CIDR notation whose host bits are
// zero: "10.0.1.0/24", not "10.0.1.5/24". Every ip_range and destination
// in the API's documentation is a network address, and the API refuses
// others with invalid_input rather than masking them; fakecloud once
// masked them quietly, so a client bug passed here and failed there.
func parseIPv4Net(s string) (netip.Prefix, string) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil || !p.Addr().Is4():
		return netip.Prefix{}, quote(s) + " is not an IPv4 prefix in CIDR notation"
	case p != p.Masked():
		return netip.Prefix{}, quote(s) + " has host bits set; its network address is " + p.Masked().String()
	}
	return p, ""
}

// hostAddr reports whether a host can have the address: global unicast,
// and neither an IPv6 unique local address nor one of the IPv4 blocks
// that IsGlobalUnicast lets through. Load balancer ip targets and the
// public addresses events give servers must be one.
func hostAddr(a netip.Addr) bool {
	return a.IsGlobalUnicast() && !(a.Is6() && a.IsPrivate()) && !(a.Is4() && reservedIPv4(a))
}

// reservedIPv4 reports addresses no host can have: this network
// (0.0.0.0/8), shared address space (100.64.0.0/10) and the class E block
// (240.0.0.0/4) that IsGlobalUnicast lets through (RFC 6890).
func reservedIPv4(a netip.Addr) bool {
	for _, p := range reservedIPv4Blocks {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

var reservedIPv4Blocks = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("240.0.0.0/4"),
}
