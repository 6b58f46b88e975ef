// Package fakecloudtest is the test kit for programs tested against
// fakecloud, and the one this repository's tests use: a fakecloud served
// on loopback for a test's life, an hcloud-go client of it that neither
// sleeps between polls nor backs off its retries, a clock a test moves by
// hand, and a bounded wait for a condition (Eventually, Wait).
package fakecloudtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// Serve serves h (a *fakecloud.Server, or anything in front of one) on
// loopback until the test ends, and returns its base URL; the API is
// under URL+"/v1". When the test ends, h is closed first if it has a
// Close method (a fakecloud's ends the requests its faults hold), then
// the listener.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	if c, ok := h.(interface{ Close() }); ok {
		t.Cleanup(c.Close)
	}
	return srv.URL
}

// Client is an hcloud-go client of the fakecloud at baseURL, with token:
// it polls running actions every millisecond and retries at once, five
// times at most, so a test waits only for what fakecloud's clock says.
// opts come after these, so they override them.
func Client(baseURL, token string, opts ...hcloud.ClientOption) *hcloud.Client {
	return hcloud.NewClient(append([]hcloud.ClientOption{
		hcloud.WithEndpoint(baseURL + "/v1"),
		hcloud.WithToken(token),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(time.Millisecond)}),
		hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(0), MaxRetries: 5}),
	}, opts...)...)
}

// Clock is a clock a test moves by hand, safe to read from other
// goroutines: its Now is what fakecloud.Options.Now (or the program under
// test) reads.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock is a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Eventually checks cond until it holds, and fails the test naming
// what it waited for when it still does not after limit.
func Eventually(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := Wait(limit, cond); err != nil {
		t.Fatalf("%v waiting for %s", err, what)
	}
}

// Wait checks cond until it holds, first every 10 ms, then less often,
// up to every 200 ms (a condition that asks a cluster is not asked a
// hundred times a second), and gives up after limit.
func Wait(limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	pause := 10 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", limit)
		}
		time.Sleep(pause)
		pause = min(2*pause, 200*time.Millisecond)
	}
	return nil
}
