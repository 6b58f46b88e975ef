package robot

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"
)

// limiter counts each webservice user's requests per endpoint in a
// sliding window: a request counts for one interval after it was made, and
// a request that would be the (limit+1)th within the window is refused.
// The documentation says "per hour" without saying how the hour is
// measured; a sliding window never lets a burst through at an hour's
// turn, which a fixed one would.
type limiter struct {
	mu       sync.Mutex
	now      func() time.Time
	interval time.Duration
	scale    float64                  // limits are multiplied by it
	used     map[usageKey][]time.Time // counted requests, oldest first
}

type usageKey struct{ user, endpoint string }

// limit is an endpoint's documented limit per hour, scaled.
func (l *limiter) limit(perHour int) int {
	return max(1, int(math.Ceil(float64(perHour)*l.scale)))
}

// take counts a request of user to an endpoint, or reports that the
// limit is reached. Refused requests are not counted.
func (l *limiter) take(user, endpoint string, perHour int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := usageKey{user, endpoint}
	now := l.now()
	times := l.used[key]
	first := slices.IndexFunc(times, func(t time.Time) bool { return now.Sub(t) < l.interval })
	if first < 0 {
		times = times[:0]
	} else {
		times = times[first:]
	}
	if len(times) >= l.limit(perHour) {
		l.used[key] = times
		return false
	}
	l.used[key] = append(times, now)
	return true
}

// Usage is how much of an endpoint's limit a user has spent.
type Usage struct {
	User     string `json:"user"`
	Endpoint string `json:"endpoint"` // e.g. "GET /server/{server-number}"
	Used     int    `json:"used"`
	Limit    int    `json:"limit"`
	Interval int    `json:"interval"` // seconds
}

func (l *limiter) usage(limits map[string]int) []Usage {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	out := []Usage{}
	for key, times := range l.used {
		n := 0
		for _, t := range times {
			if now.Sub(t) < l.interval {
				n++
			}
		}
		if n > 0 {
			out = append(out, Usage{User: key.user, Endpoint: key.endpoint, Used: n, Limit: l.limit(limits[key.endpoint]), Interval: int(l.interval.Seconds())})
		}
	}
	slices.SortFunc(out, func(a, b Usage) int { return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.Endpoint, b.Endpoint)) })
	return out
}

func (l *limiter) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.used = map[usageKey][]time.Time{}
}
