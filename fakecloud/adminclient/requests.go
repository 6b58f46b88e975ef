package adminclient

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// RateLimit is the API's rate limit. The fields are in the order
// fakecloud writes them.
type RateLimit struct {
	Enabled   bool    `json:"enabled"`
	Limit     int     `json:"limit"`     // the bucket's size in requests
	Refill    float64 `json:"refill"`    // requests added back per second
	Remaining int     `json:"remaining"` // requests left in the bucket
}

// RateLimit reads the rate limit.
func (c *Client) RateLimit(ctx context.Context) (RateLimit, error) {
	var rl RateLimit
	err := c.do(ctx, http.MethodGet, "/rate-limit", nil, &rl)
	return rl, err
}

// SetRateLimit sets the remaining budget, the refill rate or both, and
// returns the rate limit that results.
func (c *Client) SetRateLimit(ctx context.Context, set fakecloud.RateLimitSet) (RateLimit, error) {
	var rl RateLimit
	err := c.do(ctx, http.MethodPut, "/rate-limit", set, &rl)
	return rl, err
}

// Journal returns the recent API requests the filter selects, oldest
// first.
func (c *Client) Journal(ctx context.Context, f fakecloud.JournalFilter) ([]fakecloud.JournalEntry, error) {
	q := url.Values{"since": {strconv.FormatUint(f.Since, 10)}}
	for name, v := range map[string]string{"method": f.Method, "template": f.Template, "path": f.Path} {
		if v != "" {
			q.Set(name, v)
		}
	}
	for name, n := range map[string]int{"status": f.Status, "limit": f.Limit} {
		if n != 0 {
			q.Set(name, strconv.Itoa(n))
		}
	}
	return keyed[[]fakecloud.JournalEntry](ctx, c, http.MethodGet, "/journal?"+q.Encode(), "entries", nil)
}

// ClearJournal empties the journal.
func (c *Client) ClearJournal(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, "/journal", nil, nil)
}

// Counters returns the request counts by method, route and status.
func (c *Client) Counters(ctx context.Context) ([]fakecloud.Counter, error) {
	return keyed[[]fakecloud.Counter](ctx, c, http.MethodGet, "/counters", "counters", nil)
}

// ResetCounters sets the request counters to zero.
func (c *Client) ResetCounters(ctx context.Context) error {
	return c.do(ctx, http.MethodDelete, "/counters", nil, nil)
}
