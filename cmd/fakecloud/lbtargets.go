package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// targetMap is where the data plane reaches a target address instead
// (--lb-target-address FROM=TO): a server's private IP, which the host
// does not have, answered at a loopback address a test listens on.
type targetMap map[netip.Addr]netip.Addr

// parseTargetMap reads FROM=TO pairs of IP addresses.
func parseTargetMap(pairs []string) (targetMap, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := targetMap{}
	for _, p := range pairs {
		from, to, ok := strings.Cut(p, "=")
		a, errA := netip.ParseAddr(strings.TrimSpace(from))
		b, errB := netip.ParseAddr(strings.TrimSpace(to))
		if !ok || errA != nil || errB != nil {
			return nil, fmt.Errorf("--lb-target-address %q: want FROM=TO, two IP addresses such as 10.0.0.3=127.0.1.3", p)
		}
		m[a] = b
	}
	return m, nil
}

// dial reaches a mapped target at its address, every other one as given.
func (m targetMap) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if ap, err := netip.ParseAddrPort(addr); err == nil {
		if to, ok := m[ap.Addr()]; ok {
			addr = netip.AddrPortFrom(to, ap.Port()).String()
		}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
