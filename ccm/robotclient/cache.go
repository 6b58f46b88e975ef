package robotclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Fetcher is what Cache needs of the webservice; *Client is one.
type Fetcher interface {
	Servers(ctx context.Context) ([]Server, error)
	Reset(ctx context.Context, number int64) (Reset, error)
}

// CacheOptions say how old answers may be and how long to hold back.
type CacheOptions struct {
	// MaxAge is how old the listing may be (ROBOT_CACHE_TIMEOUT, 5 min).
	MaxAge time.Duration
	// ResetMaxAge is how old a server's reset state may be when deciding
	// whether it is off (1 min).
	ResetMaxAge time.Duration
	// RateLimitWait is how long no request is sent after the webservice
	// answered RATE_LIMIT_EXCEEDED (ROBOT_RATE_LIMIT_WAIT_TIME; 5 min
	// when zero).
	RateLimitWait time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// unauthorizedWait is how long no request is sent after a failed login:
// three failures block the CCM's IP, and every other tool behind it, for
// ten minutes.
const unauthorizedWait = 10 * time.Minute

// ErrHeldBack is returned instead of a request while the webservice has
// said no (rate limit, bad credentials).
var ErrHeldBack = errors.New("robot webservice: not asked again yet")

// Cache answers the CCM's questions about dedicated servers with as few
// requests as possible: one listing shared by every controller and caller
// (concurrent misses wait for the same request), reset states kept for
// ResetMaxAge, and nothing sent while the webservice has refused.
type Cache struct {
	fetch Fetcher
	opts  CacheOptions
	group singleflight.Group

	mu       sync.Mutex
	servers  map[int64]Server
	listedAt time.Time // of the last successful listing; zero: none yet
	resets   map[int64]resetEntry
	held     map[string]hold // by family: "server", "reset"
	counts   map[Count]uint64
}

// Count is a kind of outcome of the cache's calls: Family "server" (the
// listing) or "reset"; Result "ok", "rate_limited", "unauthorized",
// "error", or "held_back" for a call answered without a request while the
// webservice's refusal holds.
type Count struct{ Family, Result string }

type resetEntry struct {
	reset Reset
	err   error // the webservice's refusal, kept as long as an answer
	at    time.Time
}

type hold struct {
	until time.Time
	err   error
}

// NewCache returns a cache in front of f.
func NewCache(f Fetcher, o CacheOptions) *Cache {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 5 * time.Minute
	}
	if o.ResetMaxAge <= 0 {
		o.ResetMaxAge = time.Minute
	}
	if o.RateLimitWait <= 0 {
		o.RateLimitWait = 5 * time.Minute
	}
	return &Cache{fetch: f, opts: o, resets: map[int64]resetEntry{}, held: map[string]hold{}, counts: map[Count]uint64{}}
}

// Lookup finds a server by number. found is false only when a listing no
// older than MaxAge lacks it. When no such listing can be had, a server of
// an older one is still found (it existed; a Node is never deleted on a
// failure), and a missing one is the error saying why.
func (c *Cache) Lookup(ctx context.Context, number int64) (s Server, found bool, err error) {
	servers, fresh, err := c.listing(ctx)
	s, found = servers[number]
	if found {
		return s, true, nil
	}
	if !fresh {
		return Server{}, false, err
	}
	return Server{}, false, nil
}

// LookupName finds a server by name, as Lookup does by number. Two
// servers of one name are an error: a Node could be either.
func (c *Cache) LookupName(ctx context.Context, name string) (Server, bool, error) {
	servers, fresh, err := c.listing(ctx)
	var match []Server
	for _, s := range servers {
		if s.Name == name {
			match = append(match, s)
		}
	}
	switch {
	case len(match) > 1:
		return Server{}, false, fmt.Errorf("robot webservice: %d dedicated servers are named %q (numbers %d and %d); rename one", len(match), name,
			min(match[0].Number, match[1].Number), max(match[0].Number, match[1].Number))
	case len(match) == 1:
		return match[0], true, nil
	case !fresh:
		return Server{}, false, err
	}
	return Server{}, false, nil
}

// Servers are the servers of the last listing no older than MaxAge.
func (c *Cache) Servers(ctx context.Context) ([]Server, error) {
	servers, fresh, err := c.listing(ctx)
	if !fresh {
		return nil, err
	}
	out := make([]Server, 0, len(servers))
	for _, s := range servers {
		out = append(out, s)
	}
	return out, nil
}

// PoweredOff says whether the server is off, by its reset state
// (operating_status "shut off"). A server without reset
// (RESET_NOT_AVAILABLE) counts as on, as a tower server's "not supported"
// does. An answer, and a failure, is kept for ResetMaxAge: the lifecycle
// controller asks about a NotReady Node every few seconds, and the
// webservice allows 500 reset reads an hour.
func (c *Cache) PoweredOff(ctx context.Context, number int64) (bool, error) {
	now := c.opts.Now()
	c.mu.Lock()
	e, ok := c.resets[number]
	c.mu.Unlock()
	if ok && now.Sub(e.at) <= c.opts.ResetMaxAge {
		return e.reset.OperatingStatus == "shut off", e.err
	}
	v, err, _ := c.group.Do(fmt.Sprintf("reset/%d", number), func() (any, error) {
		return c.call(ctx, "reset", func() (any, error) { return c.fetch.Reset(ctx, number) })
	})
	var r Reset
	switch {
	case IsCode(err, CodeResetNotAvailable):
		r, err = Reset{ServerNumber: number, OperatingStatus: "not available"}, nil
	case err == nil:
		r = v.(Reset)
	case errors.Is(err, ErrHeldBack) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return false, err // nothing was answered: nothing to keep
	}
	c.mu.Lock()
	c.resets[number] = resetEntry{reset: r, err: err, at: now}
	c.mu.Unlock()
	return r.OperatingStatus == "shut off", err
}

// Requests is how many requests the cache has sent: every call but those
// held back.
func (c *Cache) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.counts {
		if k.Result != "held_back" {
			n += int(v)
		}
	}
	return n
}

// Counts are the outcomes of the cache's calls so far, for metrics.
func (c *Cache) Counts() map[Count]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[Count]uint64, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// listing returns the last listing and whether it is no older than MaxAge,
// listing again when it is older; err says why a fresh one is missing.
func (c *Cache) listing(ctx context.Context) (map[int64]Server, bool, error) {
	c.mu.Lock()
	servers, at := c.servers, c.listedAt
	c.mu.Unlock()
	if !at.IsZero() && c.opts.Now().Sub(at) <= c.opts.MaxAge {
		return servers, true, nil
	}
	v, err, _ := c.group.Do("server", func() (any, error) {
		started := c.opts.Now()
		list, err := c.call(ctx, "server", func() (any, error) { return c.fetch.Servers(ctx) })
		if err != nil {
			return nil, err
		}
		m := map[int64]Server{}
		for _, s := range list.([]Server) {
			m[s.Number] = s
		}
		c.mu.Lock()
		c.servers, c.listedAt = m, started
		c.mu.Unlock()
		return m, nil
	})
	if err != nil {
		return servers, false, err
	}
	return v.(map[int64]Server), true, nil
}

// call sends one request of a family unless the webservice has refused
// that family (or the credentials) recently, and holds back after a
// refusal.
func (c *Cache) call(ctx context.Context, family string, do func() (any, error)) (any, error) {
	now := c.opts.Now()
	c.mu.Lock()
	for _, f := range []string{family, "login"} {
		if h, ok := c.held[f]; ok && now.Before(h.until) {
			c.counts[Count{family, "held_back"}]++
			c.mu.Unlock()
			return nil, fmt.Errorf("%w until %s: %v", ErrHeldBack, h.until.Format(time.RFC3339), h.err)
		}
	}
	c.mu.Unlock()
	v, err := do()
	result := "ok"
	switch {
	case IsCode(err, CodeRateLimitExceeded):
		result = "rate_limited"
		c.holdBack(family, now.Add(c.opts.RateLimitWait), err)
	case IsCode(err, CodeUnauthorized):
		result = "unauthorized"
		c.holdBack("login", now.Add(unauthorizedWait), err)
	case err != nil:
		result = "error"
	}
	c.mu.Lock()
	c.counts[Count{family, result}]++
	c.mu.Unlock()
	return v, err
}

func (c *Cache) holdBack(family string, until time.Time, err error) {
	c.mu.Lock()
	c.held[family] = hold{until: until, err: err}
	c.mu.Unlock()
}
