package fakecloud

import (
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Rejected requests (answered 4xx: a bad token, a made-up route, invalid
// input) are logged at most rejectLogBurst per client in each
// rejectLogWindow; once a window is over, one line per client says how
// many of its rejected requests were not logged. Clients beyond
// rejectLogClients in one window share one allowance, so neither the log
// nor the limiter's memory grows with what anyone sends. The journal and
// the counters still record every request.
const (
	rejectLogBurst   = 20
	rejectLogWindow  = time.Second
	rejectLogClients = 1024
	otherClients     = "other clients"
)

// rejectLog counts, per client, the rejected requests of the current
// window it logged and those it left out.
type rejectLog struct {
	mu      sync.Mutex
	window  time.Duration
	start   time.Time
	clients map[string]*rejected
}

type rejected struct{ logged, left int }

// unlogged is how many rejected requests of a client a window left out.
type unlogged struct {
	client string
	count  int
	window time.Duration
}

func newRejectLog() *rejectLog {
	return &rejectLog{window: rejectLogWindow, clients: map[string]*rejected{}}
}

// allow says whether to log a client's rejected request; with it come the
// counts of what the window before left out, once it is over.
func (l *rejectLog) allow(client string, now time.Time) (bool, []unlogged) {
	l.mu.Lock()
	defer l.mu.Unlock()
	left := l.roll(now)
	c := l.clients[client]
	if c == nil {
		if len(l.clients) >= rejectLogClients {
			client = otherClients
		}
		if c = l.clients[client]; c == nil {
			c = &rejected{}
			l.clients[client] = c
		}
	}
	if c.logged < rejectLogBurst {
		c.logged++
		return true, left
	}
	c.left++
	return false, left
}

// flush returns what the window before left out, once it is over; any
// request calls it, so the counts come out while anyone is served.
func (l *rejectLog) flush(now time.Time) []unlogged {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.roll(now)
}

// roll starts a new window when the current one is over, returning what
// the old one left out, by client.
func (l *rejectLog) roll(now time.Time) []unlogged {
	if now.Sub(l.start) < l.window {
		return nil
	}
	var out []unlogged
	for client, c := range l.clients {
		if c.left > 0 {
			out = append(out, unlogged{client, c.left, l.window})
		}
	}
	slices.SortFunc(out, func(a, b unlogged) int { return strings.Compare(a.client, b.client) })
	l.start, l.clients = now, map[string]*rejected{}
	return out
}

// clientOf is the address a request came from, without its port.
func clientOf(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
