// Package ratelimit is the API's token bucket: a number of requests,
// refilled at a steady rate, shared by every token of a project.
package ratelimit

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Bucket holds up to limit requests and gets refill of them back every
// second. It is safe for concurrent use.
type Bucket struct {
	mu     sync.Mutex
	limit  int
	refill float64 // requests per second
	tokens float64
	last   time.Time
	now    func() time.Time
}

// New returns a full bucket that reads the time from now.
func New(limit int, refill float64, now func() time.Time) *Bucket {
	return &Bucket{limit: limit, refill: refill, tokens: float64(limit), last: now(), now: now}
}

// State is the budget after a request, as the RateLimit-* headers report it.
type State struct {
	Allowed   bool    // the request may be served
	Limit     int     // the bucket's size
	Remaining int     // whole requests left
	Reset     int64   // unix time when the bucket is full again
	Refill    float64 // requests added back per second
}

// Take spends one request if the bucket has one.
func (b *Bucket) Take() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.fill(now)
	allowed := b.tokens >= 1
	if allowed {
		b.tokens--
	}
	return b.state(now, allowed)
}

// Peek reports the budget without spending a request.
func (b *Bucket) Peek() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.fill(now)
	return b.state(now, true)
}

// Set replaces the remaining budget and the refill rate; a negative
// argument keeps the current value.
func (b *Bucket) Set(remaining int, refill float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fill(b.now())
	if remaining >= 0 {
		b.tokens = float64(min(remaining, b.limit))
	}
	if refill >= 0 {
		b.refill = refill
	}
}

func (b *Bucket) fill(now time.Time) {
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(float64(b.limit), b.tokens+el*b.refill)
	}
	b.last = now
}

// maxReset bounds how far ahead RateLimit-Reset lies: 100 years.
const maxReset = 100 * 365 * 24 * 3600

func (b *Bucket) state(now time.Time, allowed bool) State {
	missing := float64(b.limit) - b.tokens
	reset := now.Unix()
	if missing > 0 && b.refill > 0 {
		// In whole seconds, so a tiny refill rate cannot overflow a
		// time.Duration into the past; at most maxReset ahead.
		reset += int64(math.Ceil(math.Min(missing/b.refill, maxReset)))
	}
	return State{Allowed: allowed, Limit: b.limit, Remaining: int(math.Floor(b.tokens)), Reset: reset, Refill: b.refill}
}

// MaxRefill is the fastest refill accepted: a million requests a second,
// far beyond any client, and small enough that the arithmetic is exact.
const MaxRefill = 1e6

// CheckRefill refuses a refill rate that is not a finite number from 0 to
// MaxRefill requests per second (NaN would starve the bucket for good).
func CheckRefill(refill float64) error {
	if !(refill >= 0 && refill <= MaxRefill) {
		return fmt.Errorf("refill: %v is not a number of requests per second from 0 to %g", refill, float64(MaxRefill))
	}
	return nil
}
