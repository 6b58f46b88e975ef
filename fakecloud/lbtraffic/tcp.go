package lbtraffic

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// dialTimeout bounds a connection to a target.
const dialTimeout = 5 * time.Second

func (p *Plane) serveTCP(l *listener) {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(l, c)
	}
}

// forward streams one client connection to a healthy target. With none,
// the connection is closed, as Hetzner does.
func (p *Plane) forward(l *listener, c net.Conn) {
	defer c.Close()
	if !l.track(c) {
		return
	}
	defer l.untrack(c)
	r := l.route.Load()
	t, ok := l.pick(p, r, "")
	if !ok {
		p.opts.Logger.Debug("no healthy target", "load_balancer", r.lb, "listen_port", r.svc.ListenPort)
		return
	}
	l.busy(t.Key, 1)
	defer l.busy(t.Key, -1)
	up, err := p.dialTarget(t.Addr, r.svc.DestinationPort, r.svc.ProxyProtocol, c.RemoteAddr(), c.LocalAddr())
	if err != nil {
		p.opts.Logger.Debug("target unreachable", "load_balancer", r.lb, "target", t.Key, "err", err)
		return
	}
	defer up.Close()
	if !l.track(up) {
		return
	}
	defer l.untrack(up)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		closeWrite(up)
		close(done)
	}()
	_, _ = io.Copy(c, up)
	closeWrite(c)
	<-done
}

// dialTarget connects to a target, writing the PROXY header first if asked.
func (p *Plane) dialTarget(addr netip.Addr, port int, proxy bool, client, local net.Addr) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	up, err := p.opts.Dial(ctx, "tcp", netip.AddrPortFrom(addr, uint16(port)).String())
	if err != nil {
		return nil, err
	}
	if proxy {
		if _, err := io.WriteString(up, proxyHeader(client, local)); err != nil {
			up.Close()
			return nil, err
		}
	}
	return up, nil
}

// proxyHeader is a PROXY protocol v1 line for a client connection.
func proxyHeader(client, local net.Addr) string {
	src, err1 := netip.ParseAddrPort(client.String())
	dst, err2 := netip.ParseAddrPort(local.String())
	s, d := src.Addr().Unmap(), dst.Addr().Unmap()
	if err1 != nil || err2 != nil || s.Is4() != d.Is4() {
		return "PROXY UNKNOWN\r\n"
	}
	family := "TCP4"
	if s.Is6() {
		family = "TCP6"
	}
	return fmt.Sprintf("PROXY %s %s %s %d %d\r\n", family, s, d, src.Port(), dst.Port())
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}
