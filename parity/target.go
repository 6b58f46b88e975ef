package parity

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// LiveEndpoint is the Hetzner Cloud API.
const LiveEndpoint = "https://api.hetzner.cloud/v1"

// Target is where a scenario runs. The live API and fakecloud differ only
// in the fields below; every scenario, wait and check runs the same code
// against both.
type Target struct {
	Source    string // SourceLive or SourceFakecloud: the snapshot's source
	Setup     string // how the target was set up, for the snapshot
	Endpoint  string
	Token     string
	Transport http.RoundTripper // nil: http.DefaultTransport
	Clock     Clock
	Timing    Timing
	// RateLimited opens a target whose request budget is all but spent,
	// for the rate limit step; nil on the live API, where the kit never
	// provokes one.
	RateLimited func() (*Target, error)
	// Close releases the target (stops an in-process fakecloud).
	Close func()
}

// Timing bounds the kit's waits. Every wait polls, sleeping on the
// target's Clock, at most a bounded number of times.
type Timing struct {
	Poll       time.Duration // between two looks at something running
	ActionWait time.Duration // the longest an action may run (a type change takes minutes live)
	Shutdown   time.Duration // how long a server may take to go off after an ACPI shutdown
	FeedWait   time.Duration // check 3 looks for delete_server again after this
}

// LiveTiming is the live API's: a type change takes a few minutes, an
// ACPI shutdown up to a minute once the OS is up.
var LiveTiming = Timing{Poll: time.Second, ActionWait: 10 * time.Minute, Shutdown: 3 * time.Minute, FeedWait: time.Minute}

// Clock is the target's time: the kit sleeps on it between polls.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// Live is the live API (or any endpoint given) with a token, on the wall
// clock.
func Live(endpoint, token string) *Target {
	return &Target{Source: SourceLive, Endpoint: endpoint, Token: token, Clock: wallClock{}, Timing: LiveTiming, Close: func() {}}
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// FixedClock stands still until the kit sleeps on it; a sleep moves it at
// once. fakecloud runs on it, so its actions finish when the kit's polls
// have waited long enough, and never because the machine was slow.
type FixedClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFixedClock returns a clock standing at t.
func NewFixedClock(t time.Time) *FixedClock { return &FixedClock{now: t} }

// Now returns the clock's time.
func (c *FixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock by d.
func (c *FixedClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return nil
}

// The in-process fakecloud's setup: fixed, so a run is repeatable.
const (
	FakecloudIDSeed         = 1
	FakecloudActionDuration = 2 * time.Second // actions answer running, as live ones do
)

// FakecloudEpoch is where the fixed clock starts.
var FakecloudEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Fakecloud starts a fresh fakecloud in process, on a fixed clock, and
// returns it as a target with the fakecloud itself, for tests that look
// at its world.
func Fakecloud() (*Target, *fakecloud.Server) {
	return fakecloudTarget(fakecloud.Options{})
}

func fakecloudTarget(opts fakecloud.Options) (*Target, *fakecloud.Server) {
	clock := NewFixedClock(FakecloudEpoch)
	opts.IDSeed, opts.ActionDuration, opts.Now = FakecloudIDSeed, FakecloudActionDuration, clock.Now
	fc := fakecloud.New(opts)
	srv := httptest.NewServer(fc)
	t := &Target{
		Source:   SourceFakecloud,
		Setup:    fmt.Sprintf("fakecloud in process: IDSeed %d, ActionDuration %s, a fixed clock from %s that moves only when the kit waits", FakecloudIDSeed, FakecloudActionDuration, FakecloudEpoch.Format(time.RFC3339)),
		Endpoint: srv.URL + "/v1",
		Token:    fakecloud.DefaultToken,
		Clock:    clock,
		Timing:   Timing{Poll: time.Second, ActionWait: 10 * time.Minute, Shutdown: 3 * time.Minute},
		Close: func() {
			fc.Close()
			srv.Close()
		},
	}
	t.RateLimited = func() (*Target, error) {
		// A budget of one request that never refills on the fixed clock.
		lt, _ := fakecloudTarget(fakecloud.Options{RateLimit: 1})
		return lt, nil
	}
	return t, fc
}

// client is an hcloud-go client of the target through transport. It
// never retries, so each exchange is one request and a mistake's answer
// reaches the scenario as the API gave it.
func (t *Target) client(transport http.RoundTripper) *hcloud.Client {
	return hcloud.NewClient(
		hcloud.WithEndpoint(t.Endpoint),
		hcloud.WithToken(t.Token),
		hcloud.WithApplication("hcloud-ccm-parity", "1"),
		hcloud.WithHTTPClient(&http.Client{Transport: transport, Timeout: time.Minute}),
		hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(0), MaxRetries: 0}),
	)
}

func (t *Target) transport() http.RoundTripper {
	if t.Transport == nil {
		return http.DefaultTransport
	}
	return t.Transport
}

// OpenFakecloud opens a fresh in-process fakecloud, for Config.Open.
func OpenFakecloud() (*Target, error) {
	t, _ := Fakecloud()
	return t, nil
}
