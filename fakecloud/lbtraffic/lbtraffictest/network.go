// Package lbtraffictest stands in for the network between a load balancer
// and its targets, for tests of fakecloud's data plane.
package lbtraffictest

import (
	"context"
	"net"
	"sync"
	"syscall"
)

// Network answers a dial of a target's address (such as a private IP and
// node port) by dialling what was routed to it; other addresses refuse.
type Network struct {
	mu sync.Mutex
	to map[string]string
}

// Route makes dials of addr reach real.
func (n *Network) Route(addr, real string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.to == nil {
		n.to = map[string]string{}
	}
	n.to[addr] = real
}

// Unroute makes dials of addr refused again.
func (n *Network) Unroute(addr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.to, addr)
}

// Dial has the signature of net.Dialer.DialContext.
func (n *Network) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	real, ok := n.to[addr]
	n.mu.Unlock()
	if !ok {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, real)
}
