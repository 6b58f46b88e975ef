package fakecloud

import (
	"log/slog"
	"sync"
	"time"

	"github.com/miekg/dns"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dnsserve"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// DNSLagPessimistic is how far behind the API the nameserver's answers
// may be under pessimistic realism: Hetzner publishes a zone to its
// nameservers after the change (a zone's status is "updating"
// meanwhile), and a client that reads a record back over DNS at once
// must wait for it. Optimistic realism answers what the API wrote at once.
const DNSLagPessimistic = 2 * time.Second

// DNSServer is fakecloud's authoritative nameserver (ListenDNS).
type DNSServer struct{ srv *dnsserve.Server }

// Addr is the address it answers on, over UDP and TCP.
func (d *DNSServer) Addr() string { return d.srv.Addr() }

// Close stops it; the port is free once Close returns.
func (d *DNSServer) Close() error { return d.srv.Close() }

// Answered counts the answers given, by response code (NOERROR,
// NXDOMAIN, REFUSED…).
func (d *DNSServer) Answered() map[string]uint64 { return d.srv.Stats() }

// ListenDNS serves the primary zones of every project authoritatively
// over UDP and TCP on addr (port 0 picks one free port for both), as
// Hetzner's nameservers do: a record written through the API resolves
// at once, and the SOA serial moves with each change. A name in zones
// of two projects is answered from the default project's, then in the
// order of Projects. Under pessimistic realism the answers may lag the
// API by up to DNSLagPessimistic.
func (s *Server) ListenDNS(addr string) (*DNSServer, error) {
	src := s.dnsSource()
	if s.opts.Realism.Mode == RealismPessimistic {
		src = lagging(src, s.opts.Now, DNSLagPessimistic)
	}
	log := s.opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv, err := dnsserve.Listen(addr, src, dnsserve.WithLogger(log))
	if err != nil {
		return nil, err
	}
	return &DNSServer{srv: srv}, nil
}

// dnsSource finds a name's zone across the projects, each read under its
// world's lock.
func (s *Server) dnsSource() dnsserve.Source {
	return func(name string) (dnsserve.Zone, bool) {
		var best dnsserve.Zone
		for _, p := range s.Projects() {
			proj, _ := s.Project(p)
			var origin, version string
			var rrs []dns.RR
			var ok bool
			proj.world.Read(func(tx *world.Tx) { origin, rrs, version, ok = tx.ZoneAnswers(name) })
			if ok && len(origin) > len(best.Origin) {
				best = dnsserve.Zone{Origin: origin, Records: rrs, Version: p + "/" + version}
			}
		}
		return best, best.Origin != ""
	}
}

// lagging answers from what src answered up to lag ago: a name's zone is
// read again once its copy is older than lag.
func lagging(src dnsserve.Source, now func() time.Time, lag time.Duration) dnsserve.Source {
	type copyOf struct {
		zone  dnsserve.Zone
		ok    bool
		taken time.Time
	}
	var mu sync.Mutex
	cache := map[string]copyOf{}
	return func(name string) (dnsserve.Zone, bool) {
		mu.Lock()
		defer mu.Unlock()
		t := now()
		if c, hit := cache[name]; hit && t.Sub(c.taken) < lag {
			return c.zone, c.ok
		}
		if len(cache) > 10000 {
			clear(cache) // bounded: a scan of made-up names cannot grow it
		}
		z, ok := src(name)
		cache[name] = copyOf{zone: z, ok: ok, taken: t}
		return z, ok
	}
}
