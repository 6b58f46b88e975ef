// Package lbtraffic is fakecloud's data plane: it makes simulated load
// balancers carry traffic as Hetzner's do. Each service listens on its load
// balancer's address and forwards to the targets that pass their health
// checks: TCP as a stream, with a PROXY protocol v1 header when asked; HTTP
// and HTTPS through a reverse proxy that sets X-Forwarded-For and
// X-Forwarded-Proto, with sticky sessions and the HTTP to HTTPS redirect.
package lbtraffic

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"sync"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// The data plane's input: what each load balancer should serve. The
// types live in internal/trafficspec, so the world can describe traffic
// without importing networking.
type (
	LoadBalancer = trafficspec.LoadBalancer
	Target       = trafficspec.Target
	Service      = trafficspec.Service
	HealthCheck  = trafficspec.HealthCheck
	TLSPair      = trafficspec.TLSPair
)

// Health statuses, as the API names them.
const (
	Healthy   = "healthy"
	Unhealthy = "unhealthy"
	Unknown   = "unknown"
)

// Options configure a Plane. The zero value dials and listens for real.
type Options struct {
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	Listen func(network, addr string) (net.Listener, error)
	Logger *slog.Logger
}

// Plane serves the load balancers last given to Sync.
type Plane struct {
	opts Options

	mu        sync.Mutex
	listeners map[netip.AddrPort]*listener
	checks    map[checkKey]*checker
	closed    bool

	hmu    sync.RWMutex
	health map[healthKey]trafficspec.Health

	smu     sync.Mutex
	stats   map[int64]*lbStats
	history map[int64]*history
}

type healthKey struct {
	lb     int64
	port   int
	target string
}

// New returns a Plane serving nothing yet.
func New(opts Options) *Plane {
	if opts.Dial == nil {
		d := &net.Dialer{}
		opts.Dial = d.DialContext
	}
	if opts.Listen == nil {
		opts.Listen = net.Listen
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Plane{opts: opts, listeners: map[netip.AddrPort]*listener{}, checks: map[checkKey]*checker{}, health: map[healthKey]trafficspec.Health{},
		stats: map[int64]*lbStats{}, history: map[int64]*history{}}
}

// Sync makes the Plane serve exactly lbs: new listeners open, changed ones
// take their new configuration at once, removed ones close with their
// connections. Health checks start and stop with their targets.
func (p *Plane) Sync(lbs []LoadBalancer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.syncListeners(lbs)
	p.syncChecks(lbs)
	p.forgetGone(lbs)
}

// Health is the checked status of a target for a service, and whether it
// has been checked at all.
func (p *Plane) Health(lb int64, listenPort int, target string) (string, bool) {
	h, ok := p.Checked(lb, listenPort, target)
	return h.Status, ok
}

// Checked is a target's checked health for a service, with why it is
// unhealthy; false before its first check.
func (p *Plane) Checked(lb int64, listenPort int, target string) (trafficspec.Health, bool) {
	p.hmu.RLock()
	defer p.hmu.RUnlock()
	h, ok := p.health[healthKey{lb, listenPort, target}]
	return h, ok
}

func (p *Plane) setHealth(k healthKey, h trafficspec.Health) {
	p.hmu.Lock()
	defer p.hmu.Unlock()
	if p.health[k].Status != h.Status {
		p.opts.Logger.Info("load balancer target health", "load_balancer", k.lb, "listen_port", k.port, "target", k.target, "status", h.Status, "detail", h.Detail)
	}
	p.health[k] = h
}

// effective is the status traffic follows: a forced one, else the checked one.
func (p *Plane) effective(lb int64, svc *Service, target string) string {
	if st, ok := svc.Forced[target]; ok {
		return st
	}
	st, ok := p.Health(lb, svc.ListenPort, target)
	if !ok {
		return Unknown
	}
	return st
}

// Close stops every listener, connection and check.
func (p *Plane) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.syncListeners(nil)
	p.syncChecks(nil)
}
