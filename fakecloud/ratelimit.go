package fakecloud

import (
	"math"
	"sync"
	"time"
)

// rateLimiter is the API's token bucket: limit requests, refilled at a steady
// rate, shared by every token of the project.
type rateLimiter struct {
	mu     sync.Mutex
	limit  int
	refill float64 // requests per second
	tokens float64
	last   time.Time
	now    func() time.Time
}

func newRateLimiter(limit int, refill float64, now func() time.Time) *rateLimiter {
	return &rateLimiter{limit: limit, refill: refill, tokens: float64(limit), last: now(), now: now}
}

// rateState is what the RateLimit-* headers report after a request.
type rateState struct {
	allowed   bool
	limit     int
	remaining int
	reset     int64 // unix time when the bucket is full again
}

// take spends one request if the bucket has one.
func (l *rateLimiter) take() rateState {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.fill(now)
	allowed := l.tokens >= 1
	if allowed {
		l.tokens--
	}
	return l.state(now, allowed)
}

func (l *rateLimiter) fill(now time.Time) {
	if el := now.Sub(l.last).Seconds(); el > 0 {
		l.tokens = math.Min(float64(l.limit), l.tokens+el*l.refill)
	}
	l.last = now
}

func (l *rateLimiter) state(now time.Time, allowed bool) rateState {
	missing := float64(l.limit) - l.tokens
	reset := now.Unix()
	if missing > 0 && l.refill > 0 {
		reset = now.Add(time.Duration(missing / l.refill * float64(time.Second))).Unix()
	}
	return rateState{allowed: allowed, limit: l.limit, remaining: int(math.Floor(l.tokens)), reset: reset}
}

// set replaces the remaining budget and refill rate; a negative argument
// keeps the current value.
func (l *rateLimiter) set(remaining int, refill float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fill(l.now())
	if remaining >= 0 {
		l.tokens = float64(min(remaining, l.limit))
	}
	if refill >= 0 {
		l.refill = refill
	}
}

// peek reports the budget without spending a request.
func (l *rateLimiter) peek() rateState {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.fill(now)
	return l.state(now, true)
}
