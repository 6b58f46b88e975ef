package world

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
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
func (w *State) newIPv6Net() string {
	w.pubIPv6++
	b := netaddr.PublicIPv6Base.As16()
	binary.BigEndian.PutUint64(b[:8], binary.BigEndian.Uint64(b[:8])+w.pubIPv6)
	return netip.PrefixFrom(netip.AddrFrom16(b), 64).String()
}
