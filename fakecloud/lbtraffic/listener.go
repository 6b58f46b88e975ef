package lbtraffic

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// route is what a listener forwards to; Sync swaps it whole.
type route struct {
	lb        int64
	lbAddr    netip.Addr
	algorithm string
	svc       Service
	targets   []Target
	redirect  bool // port 80 of an https service with redirect_http
}

// listener is one bound address and port.
type listener struct {
	kind  string // tcp, http, https or redirect
	names string // https: the certificate's names; other names rebind
	route atomic.Pointer[route]
	ln    net.Listener
	srv   *http.Server // http, https and redirect
	rr    atomic.Uint64

	mu     sync.Mutex
	active map[string]int // target key → open connections or requests
	conns  map[net.Conn]struct{}
	closed bool
}

// want is a listener Sync asks for.
type want struct {
	kind  string
	names string
	route *route
}

// wanted lists the listeners lbs ask for, by address and port.
func wanted(lbs []LoadBalancer) map[netip.AddrPort]want {
	out := map[netip.AddrPort]want{}
	for _, lb := range lbs {
		for _, svc := range lb.Services {
			r := &route{lb: lb.ID, lbAddr: lb.Addr, algorithm: lb.Algorithm, svc: svc, targets: lb.Targets}
			ap := netip.AddrPortFrom(lb.Addr, uint16(svc.ListenPort))
			out[ap] = want{kind: svc.Protocol, names: tlsIdentity(svc), route: r}
		}
	}
	// redirect_http answers on port 80 unless a service listens there.
	for _, lb := range lbs {
		for _, svc := range lb.Services {
			ap := netip.AddrPortFrom(lb.Addr, 80)
			if _, taken := out[ap]; svc.Protocol == "https" && svc.RedirectHTTP && !taken {
				out[ap] = want{kind: "redirect", route: &route{lb: lb.ID, lbAddr: lb.Addr, svc: svc, redirect: true}}
			}
		}
	}
	return out
}

func (p *Plane) syncListeners(lbs []LoadBalancer) {
	want := wanted(lbs)
	for ap, l := range p.listeners {
		// Another load balancer at the same address and port gets a
		// listener of its own: a listener counts for one.
		if w, ok := want[ap]; !ok || w.kind != l.kind || w.names != l.names || w.route.lb != l.route.Load().lb {
			l.close()
			delete(p.listeners, ap)
		}
	}
	for ap, w := range want {
		if l, ok := p.listeners[ap]; ok {
			l.route.Store(w.route)
			continue
		}
		l, err := p.open(ap, w)
		if err != nil {
			p.opts.Logger.Warn("load balancer cannot listen", "load_balancer", w.route.lb, "addr", ap.String(), "err", err)
			continue
		}
		p.listeners[ap] = l
	}
}

// open binds a listener and starts serving it.
func (p *Plane) open(ap netip.AddrPort, w want) (*listener, error) {
	raw, err := p.opts.Listen("tcp", ap.String())
	if err != nil {
		return nil, err
	}
	ln := countingListener{Listener: raw, stats: p.statsOf(w.route.lb)}
	l := &listener{kind: w.kind, names: w.names, ln: ln, active: map[string]int{}, conns: map[net.Conn]struct{}{}}
	l.route.Store(w.route)
	switch w.kind {
	case "tcp":
		go p.serveTCP(l)
	default:
		l.srv = &http.Server{Handler: p.httpHandler(l), ReadHeaderTimeout: 10 * time.Second}
		if w.kind == "https" {
			cfg, err := tlsConfig(w.route.svc, w.route.lbAddr)
			if err != nil {
				ln.Close()
				return nil, err
			}
			l.srv.TLSConfig = cfg
			go func() { _ = l.srv.ServeTLS(ln, "", "") }()
		} else {
			go func() { _ = l.srv.Serve(ln) }()
		}
	}
	p.opts.Logger.Info("load balancer listening", "load_balancer", w.route.lb, "addr", ap.String(), "protocol", w.kind)
	return l, nil
}

// close stops accepting and ends every connection.
func (l *listener) close() {
	l.ln.Close()
	if l.srv != nil {
		l.srv.Close()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for c := range l.conns {
		c.Close()
	}
}

// track remembers a connection so close ends it; false if already closed.
func (l *listener) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.conns[c] = struct{}{}
	return true
}

func (l *listener) untrack(c net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, c)
}

// busy counts a target's open connections, for least_connections.
func (l *listener) busy(key string, d int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active[key] += d
}

// pick chooses a healthy target: the sticky one if it still is, else by
// the algorithm.
func (l *listener) pick(p *Plane, r *route, sticky string) (Target, bool) {
	ok := slices.DeleteFunc(slices.Clone(r.targets), func(t Target) bool { return p.effective(r.lb, &r.svc, t.Key) != Healthy })
	if len(ok) == 0 {
		return Target{}, false
	}
	if i := slices.IndexFunc(ok, func(t Target) bool { return t.Key == sticky }); sticky != "" && i >= 0 {
		return ok[i], true
	}
	if r.algorithm == "least_connections" {
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.MinFunc(ok, func(a, b Target) int { return l.active[a.Key] - l.active[b.Key] }), true
	}
	n := l.rr.Add(1) - 1
	return ok[n%uint64(len(ok))], true
}
