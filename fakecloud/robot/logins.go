package robot

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// The webservice documentation: three failed logins block the client's
// IP address for ten minutes. It does not say over how long the failures
// are counted; fakecloud counts those of the last ten minutes.
const (
	maxFailedLogins = 3
	failureWindow   = 10 * time.Minute
	blockTime       = 10 * time.Minute
)

// logins remembers failed logins per client IP and the IPs they block.
type logins struct {
	mu       sync.Mutex
	now      func() time.Time
	failures map[string][]time.Time // IP -> failed logins, oldest first
	blocked  map[string]time.Time   // IP -> blocked until
}

// blockedUntil reports whether ip is blocked, and until when.
func (l *logins) blockedUntil(ip string) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.blocked[ip]
	if ok && !l.now().Before(until) {
		delete(l.blocked, ip)
		return time.Time{}, false
	}
	return until, ok
}

// maxTrackedClients bounds the clients remembered: past it, expired
// entries are dropped, and while it is still full a new client's failure
// is not remembered (clients with that many addresses defeat a block by
// address anyway).
const maxTrackedClients = 1 << 16

// fail counts a failed login from ip; the third within the window blocks it.
func (l *logins) fail(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if _, known := l.failures[ip]; !known && len(l.failures)+len(l.blocked) >= maxTrackedClients {
		l.forgetExpired(now)
		if len(l.failures)+len(l.blocked) >= maxTrackedClients {
			return
		}
	}
	recent := slices.DeleteFunc(l.failures[ip], func(t time.Time) bool { return now.Sub(t) >= failureWindow })
	recent = append(recent, now)
	if len(recent) >= maxFailedLogins {
		l.blocked[ip] = now.Add(blockTime)
		recent = nil
	}
	if len(recent) == 0 {
		delete(l.failures, ip)
	} else {
		l.failures[ip] = recent
	}
}

// forgetExpired drops the failures past the window and the blocks past
// their end.
func (l *logins) forgetExpired(now time.Time) {
	for ip, ts := range l.failures {
		if len(ts) == 0 || now.Sub(ts[len(ts)-1]) >= failureWindow {
			delete(l.failures, ip)
		}
	}
	for ip, until := range l.blocked {
		if !now.Before(until) {
			delete(l.blocked, ip)
		}
	}
}

// Block is a client IP the webservice refuses, and until when.
type Block struct {
	IP    string    `json:"ip"`
	Until time.Time `json:"until"`
}

func (l *logins) blocks() []Block {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	out := []Block{}
	for ip, until := range l.blocked {
		if now.Before(until) {
			out = append(out, Block{IP: ip, Until: until})
		}
	}
	slices.SortFunc(out, func(a, b Block) int { return cmp.Compare(a.IP, b.IP) })
	return out
}

func (l *logins) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures, l.blocked = map[string][]time.Time{}, map[string]time.Time{}
}
