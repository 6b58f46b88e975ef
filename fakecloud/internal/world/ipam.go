package world

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
)

// ipPool hands out addresses of a prefix in order and reuses released ones.
type ipPool struct {
	prefix netip.Prefix
	Next   netip.Addr
	Free   []netip.Addr
}

func newIPPool(p netip.Prefix) ipPool {
	return ipPool{prefix: p, Next: p.Addr().Next()}
}

func (p *ipPool) Take() (netip.Addr, bool) {
	if n := len(p.Free); n > 0 {
		a := p.Free[n-1]
		p.Free = p.Free[:n-1]
		return a, true
	}
	if !p.prefix.Contains(p.Next) || !p.prefix.Contains(p.Next.Next()) {
		return netip.Addr{}, false
	}
	a := p.Next
	p.Next = p.Next.Next()
	return a, true
}

// Claim takes a released address out of the pool, reporting whether it
// was free.
func (p *ipPool) Claim(a netip.Addr) bool {
	i := slices.Index(p.Free, a)
	if i < 0 {
		return false
	}
	p.Free = slices.Delete(p.Free, i, i+1)
	return true
}

func (p *ipPool) Release(s string) {
	if a, err := netip.ParseAddr(s); err == nil && p.prefix.Contains(a) {
		p.Free = append(p.Free, a)
	}
}

// newPublicAddress takes a public address of a family: an IPv4 address
// from the pool, or the next /64 for ipv6; resource_unavailable when no
// IPv4 is left.
func (w *project) newPublicAddress(family string) (string, *apierr.Error) {
	if family != "ipv4" {
		return w.NewIPv6Net(), nil
	}
	a, ok := w.PubIPv4.Take()
	if !ok {
		return "", apierr.Errorf(apierr.CodeResourceUnavailable, "no public IPv4 address is left")
	}
	return a.String(), nil
}

// NewIPv6Net returns the next public /64, as "2001:db8:0:N::/64".
func (w *project) NewIPv6Net() string {
	w.pubIPv6++
	b := netaddr.PublicIPv6Base.As16()
	binary.BigEndian.PutUint64(b[:8], binary.BigEndian.Uint64(b[:8])+w.pubIPv6)
	return netip.PrefixFrom(netip.AddrFrom16(b), 64).String()
}
