package doctor

import (
	"net/http"
	"sync"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/inventory"
)

// counter is an http.RoundTripper that counts the requests sent through
// it and keeps the rate limit the last answer reported.
type counter struct {
	base http.RoundTripper

	mu               sync.Mutex
	requests         int
	limit, remaining int
	seen             bool // an answer carried RateLimit-* headers
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.requests++
	c.mu.Unlock()
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if limit, remaining, ok := inventory.RateLimit(resp.Header); ok {
		c.mu.Lock()
		c.limit, c.remaining, c.seen = limit, remaining, true
		c.mu.Unlock()
	}
	return resp, nil
}

// state is the request count and the last rate limit seen.
func (c *counter) state() (requests, limit, remaining int, seen bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests, c.limit, c.remaining, c.seen
}
