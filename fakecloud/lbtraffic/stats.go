package lbtraffic

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// historyLen bounds each load balancer's history: an hour of samples at
// one a second.
const historyLen = 3600

// lbStats counts what one load balancer carries.
type lbStats struct {
	conns, reqs, in, out atomic.Uint64
	open                 atomic.Int64
	since                time.Time // its first sample; under smu
}

// history is a load balancer's samples, a ring of at most historyLen.
type history struct {
	samples []trafficspec.Counters
	next    int
}

// statsOf is a load balancer's counters, made on first use.
func (p *Plane) statsOf(lb int64) *lbStats {
	p.smu.Lock()
	defer p.smu.Unlock()
	s, ok := p.stats[lb]
	if !ok {
		s = &lbStats{}
		p.stats[lb] = s
	}
	return s
}

// forgetGone drops the counters and history of load balancers no longer
// served.
func (p *Plane) forgetGone(lbs []LoadBalancer) {
	served := map[int64]bool{}
	for _, lb := range lbs {
		served[lb.ID] = true
	}
	p.smu.Lock()
	defer p.smu.Unlock()
	for id := range p.stats {
		if !served[id] {
			delete(p.stats, id)
			delete(p.history, id)
		}
	}
}

// Sample records every load balancer's counters at a time; a sample at the
// time of the last one replaces it.
func (p *Plane) Sample(at time.Time) {
	p.smu.Lock()
	defer p.smu.Unlock()
	for lb, s := range p.stats {
		if s.since.IsZero() {
			s.since = at
		}
		c := trafficspec.Counters{At: at, Connections: s.conns.Load(), Requests: s.reqs.Load(), BytesIn: s.in.Load(), BytesOut: s.out.Load(),
			Open: s.open.Load(), Since: s.since}
		h := p.history[lb]
		if h == nil {
			h = &history{}
			p.history[lb] = h
		}
		if n := len(h.samples); n > 0 {
			last := (h.next + historyLen - 1) % historyLen
			if n < historyLen {
				last = n - 1
			}
			if h.samples[last].At.Equal(at) {
				h.samples[last] = c
				continue
			}
		}
		if len(h.samples) < historyLen {
			h.samples = append(h.samples, c)
			continue
		}
		h.samples[h.next] = c
		h.next = (h.next + 1) % historyLen
	}
}

// History is a load balancer's samples, oldest first.
func (p *Plane) History(lb int64) []trafficspec.Counters {
	p.smu.Lock()
	defer p.smu.Unlock()
	h := p.history[lb]
	if h == nil {
		return nil
	}
	if len(h.samples) < historyLen {
		return append([]trafficspec.Counters(nil), h.samples...)
	}
	return append(append([]trafficspec.Counters(nil), h.samples[h.next:]...), h.samples[:h.next]...)
}

// countingListener counts a load balancer's connections and bytes.
type countingListener struct {
	net.Listener
	stats *lbStats
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.stats.conns.Add(1)
	l.stats.open.Add(1)
	return &countingConn{Conn: c, stats: l.stats}, nil
}

// countingConn counts a client connection's bytes, and its end.
type countingConn struct {
	net.Conn
	stats *lbStats
	once  sync.Once
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.stats.in.Add(uint64(n))
	return n, err
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.stats.out.Add(uint64(n))
	return n, err
}

func (c *countingConn) Close() error {
	c.once.Do(func() { c.stats.open.Add(-1) })
	return c.Conn.Close()
}

// CloseWrite half-closes the connection, as a TCP service passes a
// client's end of stream on.
func (c *countingConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}
