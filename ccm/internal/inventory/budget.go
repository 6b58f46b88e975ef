package inventory

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Budget paces API requests by the RateLimit headers the API sends, so
// the CCM slows its background work before the project's shared budget
// runs out, and keeps a reserve for initialising nodes.
type Budget struct {
	reserve int
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error

	mu        sync.Mutex
	known     bool
	limit     int
	remaining float64
	refill    float64 // requests per second
	seen      time.Time
	slept     time.Duration // total time background requests waited
}

func NewBudget(reserve int) *Budget {
	return &Budget{reserve: reserve, now: time.Now, sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// available is the budget now, from the last answer plus what refilled since.
func (b *Budget) available(now time.Time) float64 {
	return min(float64(b.limit), b.remaining+b.refill*now.Sub(b.seen).Seconds())
}

// wait blocks until the request may go: urgent ones while any budget is
// left, background ones while more than the reserve is.
func (b *Budget) wait(ctx context.Context, urgent bool) error {
	floor := float64(b.reserve)
	if urgent {
		floor = 0
	}
	for {
		b.mu.Lock()
		if !b.known || b.refill <= 0 {
			b.mu.Unlock()
			return nil
		}
		now := b.now()
		avail := b.available(now)
		if avail >= floor+1 {
			b.remaining, b.seen = avail-1, now
			b.mu.Unlock()
			return nil
		}
		d := min(max(time.Duration((floor+1-avail)/b.refill*float64(time.Second)), 10*time.Millisecond), 30*time.Second)
		b.slept += d
		b.mu.Unlock()
		if err := b.sleep(ctx, d); err != nil {
			return err
		}
	}
}

// RateLimit reads an answer's RateLimit-Limit and RateLimit-Remaining
// headers; ok is false unless both are numbers.
func RateLimit(h http.Header) (limit, remaining int, ok bool) {
	limit, err1 := strconv.Atoi(h.Get("RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("RateLimit-Remaining"))
	return limit, remaining, err1 == nil && err2 == nil
}

// observe takes the budget from an answer's RateLimit headers.
func (b *Budget) observe(h http.Header) {
	limit, remaining, ok := RateLimit(h)
	if !ok || limit <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.known, b.limit, b.remaining, b.seen = true, limit, float64(remaining), b.now()
	b.refill = float64(limit) / 3600
	if reset, err := strconv.ParseInt(h.Get("RateLimit-Reset"), 10, 64); err == nil {
		if secs := time.Unix(reset, 0).Sub(b.now()).Seconds(); secs > 1 && remaining < limit {
			b.refill = float64(limit-remaining) / secs
		}
	}
}

// Snapshot reports the last known budget for metrics.
func (b *Budget) Snapshot() (remaining float64, limit int, known bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.known {
		return 0, 0, false
	}
	return b.available(b.now()), b.limit, true
}

// Waited is how long requests have waited for the budget in all.
func (b *Budget) Waited() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.slept
}

// Transport paces every request of an http.RoundTripper as background
// work, which leaves the reserve alone.
func (b *Budget) Transport(next http.RoundTripper) http.RoundTripper { return b.transport(next, false) }

// UrgentTransport paces every request of an http.RoundTripper as node
// initialisation, which may use the reserve: the inventory's urgent
// client goes through it.
func (b *Budget) UrgentTransport(next http.RoundTripper) http.RoundTripper {
	return b.transport(next, true)
}

func (b *Budget) transport(next http.RoundTripper, urgent bool) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		if err := b.wait(r.Context(), urgent); err != nil {
			return nil, err
		}
		resp, err := next.RoundTrip(r)
		if resp != nil {
			b.observe(resp.Header)
		}
		return resp, err
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
