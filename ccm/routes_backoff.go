package ccm

import (
	"fmt"
	"sync"
	"time"
)

// routeBackoff holds back the changes of a route (by destination CIDR)
// that failed in a row: another's action locking the network, an action
// that keeps failing, an API outage. The route controller tries every
// reconcile period, and on a Conflict five times more within a second;
// without it, a network locked for an hour would cost 10 requests a
// period for each route it waits on.
type routeBackoff struct {
	mu sync.Mutex
	m  map[string]routeFailures
}

type routeFailures struct {
	n     int       // failures in a row
	until time.Time // no request for the route before then
	last  error
}

const (
	routeBackoffFirst = time.Second
	routeBackoffMax   = 5 * time.Minute
)

// check returns an error, without a request, while dest is held back.
func (b *routeBackoff) check(dest string, now time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.m[dest]
	if !ok || !now.Before(f.until) {
		return nil
	}
	return fmt.Errorf("route %s: its last %d changes failed (last: %v); the next try is in %s", dest, f.n, f.last, f.until.Sub(now).Round(time.Second))
}

// failed holds dest back, for a second after the first failure, then
// twice as long after each, up to five minutes.
func (b *routeBackoff) failed(dest string, err error, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]routeFailures{}
	}
	f := b.m[dest]
	f.n++
	f.until, f.last = now.Add(min(routeBackoffFirst<<min(f.n-1, 16), routeBackoffMax)), err
	b.m[dest] = f
}

// succeeded forgets dest's failures.
func (b *routeBackoff) succeeded(dest string) {
	b.mu.Lock()
	delete(b.m, dest)
	b.mu.Unlock()
}
