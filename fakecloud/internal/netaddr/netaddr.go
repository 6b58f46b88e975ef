// Package netaddr holds the address rules of Hetzner Cloud networks as
// fakecloud applies them: fakecloud's public ranges, RFC 1918 and network
// prefixes, host addresses, and what a subnet or a route may be. It knows
// nothing of the world.
package netaddr

import (
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// Public addresses come from documentation and benchmark ranges, so they can
// never be mistaken for, or route to, a real host.
var (
	PublicIPv4Range = netip.MustParsePrefix("198.18.0.0/15")
	PublicIPv6Base  = netip.MustParseAddr("2001:db8::")
	// PublicIPv6Cloud holds every IPv6 network fakecloud hands to servers
	// and load balancers (2001:db8::/32, the documentation prefix).
	PublicIPv6Cloud = netip.PrefixFrom(PublicIPv6Base, 32)
)

// ReservedGateway is the public interface's gateway; the API refuses it in routes.
var ReservedGateway = netip.MustParseAddr("172.31.1.1")

// LastAddr is the broadcast address of a prefix.
func LastAddr(p netip.Prefix) netip.Addr {
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

// Overlaps reports whether two prefixes share an address.
func Overlaps(a, b netip.Prefix) bool {
	return a.Overlaps(b)
}

// Within reports whether inner lies completely inside outer.
func Within(inner, outer netip.Prefix) bool {
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Masked().Addr())
}

var privateRanges = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
}

// RFC1918 reports whether p lies inside one of the private IPv4 ranges.
func RFC1918(p netip.Prefix) bool {
	for _, r := range privateRanges {
		if Within(p, r) {
			return true
		}
	}
	return false
}

// ParseIPv4Net reads an IPv4 network in CIDR notation whose host bits are
// zero: "10.0.1.0/24", not "10.0.1.5/24". Every ip_range and destination
// in the API's documentation is a network address, and the API refuses
// others with invalid_input rather than masking them.
func ParseIPv4Net(s string) (netip.Prefix, string) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil || !p.Addr().Is4():
		return netip.Prefix{}, quote(s) + " is not an IPv4 prefix in CIDR notation"
	case p != p.Masked():
		return netip.Prefix{}, quote(s) + " has host bits set; its network address is " + p.Masked().String()
	}
	return p, ""
}

// HostAddr reports whether a host can have the address: global unicast,
// and neither an IPv6 unique local address nor one of the IPv4 blocks
// that IsGlobalUnicast lets through. Load balancer ip targets and the
// public addresses events give servers must be one.
func HostAddr(a netip.Addr) bool {
	return a.IsGlobalUnicast() && !(a.Is6() && a.IsPrivate()) && !(a.Is4() && ReservedIPv4(a))
}

// ReservedIPv4 reports addresses no host can have: this network
// (0.0.0.0/8), shared address space (100.64.0.0/10) and the class E block
// (240.0.0.0/4) that IsGlobalUnicast lets through (RFC 6890).
func ReservedIPv4(a netip.Addr) bool {
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

// CheckSubnet validates a subnet for a network whose zones zoneOK knows;
// it returns the subnet or a reason it is refused.
func CheckSubnet(zoneOK func(zone string) bool, n *schema.Network, ipRange netip.Prefix, req schema.NetworkActionAddSubnetRequest) (schema.NetworkSubnet, string) {
	if req.Type != "cloud" && req.Type != "server" && req.Type != "vswitch" {
		return schema.NetworkSubnet{}, "type must be one of cloud, server, vswitch"
	}
	if !zoneOK(req.NetworkZone) {
		return schema.NetworkSubnet{}, "network_zone " + quote(req.NetworkZone) + " is not one of eu-central, us-east, us-west, ap-southeast"
	}
	if req.Type == "vswitch" && req.VSwitchID == 0 {
		return schema.NetworkSubnet{}, "vswitch_id is required for a vswitch subnet"
	}
	var p netip.Prefix
	if req.IPRange == "" {
		var ok bool
		if p, ok = FreeSubnet(n, ipRange); !ok {
			return schema.NetworkSubnet{}, "no free /24 is left in " + ipRange.String()
		}
	} else {
		var msg string
		if p, msg = ParseIPv4Net(req.IPRange); msg != "" {
			return schema.NetworkSubnet{}, msg
		}
	}
	if !Within(p, ipRange) {
		return schema.NetworkSubnet{}, p.String() + " is not inside the network's ip_range " + ipRange.String()
	}
	for _, s := range n.Subnets {
		if o, err := netip.ParsePrefix(s.IPRange); err == nil && Overlaps(o, p) {
			return schema.NetworkSubnet{}, p.String() + " Overlaps the subnet " + s.IPRange
		}
	}
	for _, r := range n.Routes {
		if d, err := netip.ParsePrefix(r.Destination); err == nil && Overlaps(d, p) {
			return schema.NetworkSubnet{}, p.String() + " Overlaps the route destination " + r.Destination
		}
	}
	// The gateway is the network's first address; a server subnet's is its
	// own first address (the description of subnets[].gateway).
	gateway := ipRange.Addr().Next()
	if req.Type == "server" {
		gateway = p.Addr().Next()
	}
	return schema.NetworkSubnet{Type: req.Type, IPRange: p.String(), NetworkZone: req.NetworkZone,
		Gateway: gateway.String(), VSwitchID: req.VSwitchID}, ""
}

// FreeSubnet picks the first /24 of the range that no subnet uses.
func FreeSubnet(n *schema.Network, ipRange netip.Prefix) (netip.Prefix, bool) {
	bits := max(24, ipRange.Bits())
	for a := ipRange.Addr(); ipRange.Contains(a); {
		p := netip.PrefixFrom(a, bits)
		if !slices.ContainsFunc(n.Subnets, func(s schema.NetworkSubnet) bool {
			o, err := netip.ParsePrefix(s.IPRange)
			return err == nil && Overlaps(o, p)
		}) {
			return p, true
		}
		a = LastAddr(p).Next()
		if !a.IsValid() {
			break
		}
	}
	return netip.Prefix{}, false
}

// CheckRoute validates a route for a network, as the API documents it.
func CheckRoute(n *schema.Network, ipRange netip.Prefix, dest, gw string) (schema.NetworkRoute, string) {
	d, msg := ParseIPv4Net(dest)
	if msg != "" {
		return schema.NetworkRoute{}, msg
	}
	if d.Bits() != 0 && !RFC1918(d) {
		return schema.NetworkRoute{}, "destination " + d.String() + " must be inside RFC 1918 ranges or 0.0.0.0/0"
	}
	if d.Contains(ReservedGateway) {
		return schema.NetworkRoute{}, "destination " + d.String() + " must not contain 172.31.1.1"
	}
	for _, s := range n.Subnets {
		if o, err := netip.ParsePrefix(s.IPRange); err == nil && Overlaps(o, d) {
			return schema.NetworkRoute{}, "destination " + d.String() + " Overlaps the subnet " + s.IPRange
		}
	}
	for _, r := range n.Routes {
		if o, err := netip.ParsePrefix(r.Destination); err == nil && Overlaps(o, d) {
			return schema.NetworkRoute{}, "destination " + d.String() + " Overlaps the route destination " + r.Destination
		}
	}
	g, err := netip.ParseAddr(gw)
	switch {
	case err != nil || !g.Is4():
		return schema.NetworkRoute{}, "gateway " + quote(gw) + " is not an IPv4 address"
	case g == ReservedGateway:
		return schema.NetworkRoute{}, "gateway must not be 172.31.1.1"
	case !ipRange.Contains(g):
		return schema.NetworkRoute{}, "gateway " + g.String() + " is not inside the network's ip_range " + ipRange.String()
	case g == ipRange.Addr() || g == ipRange.Addr().Next():
		return schema.NetworkRoute{}, "gateway " + g.String() + " is the network's own gateway, its first address"
	}
	for _, s := range n.Subnets {
		if o, err := netip.ParsePrefix(s.IPRange); err == nil && s.Type == "vswitch" && o.Contains(g) {
			return schema.NetworkRoute{}, "gateway " + g.String() + " is behind a vSwitch"
		}
	}
	return schema.NetworkRoute{Destination: d.String(), Gateway: g.String()}, ""
}

func quote(s string) string { return "\"" + s + "\"" }

// NetworkRange checks a network's ip_range: an RFC 1918 prefix of /24 or
// larger; msg says why s is refused.
func NetworkRange(s string) (p netip.Prefix, msg string) {
	p, msg = ParseIPv4Net(s)
	switch {
	case s == "":
		return netip.Prefix{}, "is required"
	case msg != "":
		return netip.Prefix{}, msg
	case !RFC1918(p):
		return netip.Prefix{}, s + " is not inside a private range of RFC 1918"
	case p.Bits() > 24:
		return netip.Prefix{}, s + " is smaller than the minimum network size /24"
	}
	return p, ""
}

// SubnetOf finds the subnet of a network that holds ip, and its gateway.
func SubnetOf(n *schema.Network, ip string) (subnet, gateway string) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return "", ""
	}
	for _, sn := range n.Subnets {
		if p, err := netip.ParsePrefix(sn.IPRange); err == nil && p.Contains(addr) {
			return sn.IPRange, sn.Gateway
		}
	}
	return "", ""
}
