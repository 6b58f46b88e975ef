package robotclient

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// fetcher is a webservice whose answers and request counts the test sets.
type fetcher struct {
	mu       sync.Mutex
	servers  []Server
	err      error
	resets   map[int64]string
	listings int
	resetN   int
	slow     chan struct{} // when set, a listing waits for it
}

func (f *fetcher) Servers(context.Context) ([]Server, error) {
	if f.slow != nil {
		<-f.slow
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listings++
	return append([]Server(nil), f.servers...), f.err
}

func (f *fetcher) Reset(_ context.Context, n int64) (Reset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resetN++
	return Reset{ServerNumber: n, OperatingStatus: f.resets[n]}, f.err
}

func newTestCache(f *fetcher) (*Cache, *fakecloudtest.Clock) {
	clk := fakecloudtest.NewClock(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	return NewCache(f, CacheOptions{MaxAge: 5 * time.Minute, RateLimitWait: 10 * time.Minute, Now: clk.Now}), clk
}

// Every caller shares one listing while it is young, also callers that
// ask while it is under way; an older one is listed again.
func TestCacheSharesOneListing(t *testing.T) {
	f := &fetcher{servers: []Server{{Number: 1, Name: "ded-1"}}, slow: make(chan struct{})}
	c, clk := newTestCache(f)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s, found, err := c.Lookup(t.Context(), 1); !found || err != nil || s.Name != "ded-1" {
				t.Errorf("Lookup = %+v %v %v", s, found, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(f.slow)
	wg.Wait()
	clk.Advance(4 * time.Minute)
	_, _, _ = c.Lookup(t.Context(), 1)
	if f.listings != 1 {
		t.Fatalf("%d listings for 21 lookups within 5 min, want 1", f.listings)
	}
	clk.Advance(2 * time.Minute)
	_, _, _ = c.Lookup(t.Context(), 1)
	if f.listings != 2 || c.Requests() != 2 {
		t.Fatalf("%d listings (%d requests) once the listing is 6 min old, want 2", f.listings, c.Requests())
	}
}

// A server missing from a young listing is gone; when the listing cannot
// be renewed, a missing server is an error, never "gone", and a listed one
// is still described from the old listing.
func TestCacheNeverCallsAServerGoneOnAFailure(t *testing.T) {
	f := &fetcher{servers: []Server{{Number: 1, Name: "ded-1"}}}
	c, clk := newTestCache(f)
	if _, found, err := c.Lookup(t.Context(), 2); found || err != nil {
		t.Fatalf("Lookup(2) = %v %v from a fresh listing, want not found", found, err)
	}
	clk.Advance(6 * time.Minute)
	f.err = &Error{Status: 500, Code: "INTERNAL_ERROR"}
	if _, found, err := c.Lookup(t.Context(), 2); found || err == nil {
		t.Fatalf("Lookup(2) = %v %v while the listing fails, want an error", found, err)
	}
	if s, found, _ := c.Lookup(t.Context(), 1); !found || s.Name != "ded-1" {
		t.Fatalf("Lookup(1) = %+v %v while the listing fails, want the old listing's", s, found)
	}
	if _, err := c.Servers(t.Context()); err == nil {
		t.Fatal("Servers answered from a listing 6 min old")
	}
}

// After RATE_LIMIT_EXCEEDED no request of that kind is sent for the wait;
// reset states are still read. After a failed login nothing is sent for
// ten minutes.
func TestCacheHoldsBack(t *testing.T) {
	f := &fetcher{err: &Error{Status: 403, Code: CodeRateLimitExceeded, MaxRequest: 200, Interval: 3600}}
	c, clk := newTestCache(f)
	for range 5 {
		_, _, _ = c.Lookup(t.Context(), 1)
		clk.Advance(time.Minute)
	}
	if f.listings != 1 {
		t.Fatalf("%d listings in the 5 min after the rate limit, want 1", f.listings)
	}
	if got := c.Counts(); got[Count{"server", "rate_limited"}] != 1 || got[Count{"server", "held_back"}] != 4 {
		t.Errorf("counts %v, want 1 rate_limited and 4 held_back listings", got)
	}
	if _, _, err := c.Lookup(t.Context(), 1); !errors.Is(err, ErrHeldBack) {
		t.Fatalf("Lookup during the wait = %v, want ErrHeldBack", err)
	}
	f.err = nil
	if _, err := c.PoweredOff(t.Context(), 1); err != nil || f.resetN != 1 {
		t.Fatalf("PoweredOff during the listing's wait = %v (%d resets), want it asked", err, f.resetN)
	}
	clk.Advance(5 * time.Minute)
	if _, _, err := c.Lookup(t.Context(), 1); err != nil || f.listings != 2 {
		t.Fatalf("Lookup after the wait = %v (%d listings)", err, f.listings)
	}

	f.err = &Error{Status: 401, Code: CodeUnauthorized}
	clk.Advance(6 * time.Minute)
	_, _, _ = c.Lookup(t.Context(), 1)
	clk.Advance(9 * time.Minute)
	_, _, _ = c.Lookup(t.Context(), 1)
	_, _ = c.PoweredOff(t.Context(), 7)
	if f.listings != 3 || f.resetN != 1 {
		t.Fatalf("%d listings, %d resets within 10 min of a failed login, want 3 and 1", f.listings, f.resetN)
	}
}

// A reset state is read once per ResetMaxAge; "shut off" means off.
func TestCachePoweredOff(t *testing.T) {
	f := &fetcher{resets: map[int64]string{1: "shut off", 2: "running", 3: "not supported"}}
	c, clk := newTestCache(f)
	for n, want := range map[int64]bool{1: true, 2: false, 3: false} {
		if off, err := c.PoweredOff(t.Context(), n); off != want || err != nil {
			t.Errorf("PoweredOff(%d) = %v %v, want %v", n, off, err, want)
		}
	}
	f.resets[2] = "shut off"
	clk.Advance(30 * time.Second)
	if off, _ := c.PoweredOff(t.Context(), 2); off || f.resetN != 3 {
		t.Fatalf("PoweredOff(2) = %v after 30 s (%d requests), want the cached answer", off, f.resetN)
	}
	clk.Advance(31 * time.Second)
	if off, _ := c.PoweredOff(t.Context(), 2); !off || f.resetN != 4 {
		t.Fatalf("PoweredOff(2) = %v after 61 s (%d requests), want asked again", off, f.resetN)
	}
}

// A name is found as a number is; two servers of one name are an error.
func TestCacheLookupName(t *testing.T) {
	f := &fetcher{servers: []Server{{Number: 1, Name: "ded-1"}, {Number: 2, Name: "twin"}, {Number: 3, Name: "twin"}}}
	c, _ := newTestCache(f)
	if s, found, err := c.LookupName(t.Context(), "ded-1"); !found || err != nil || s.Number != 1 {
		t.Errorf("LookupName(ded-1) = %+v %v %v", s, found, err)
	}
	if _, found, err := c.LookupName(t.Context(), "nope"); found || err != nil {
		t.Errorf("LookupName(nope) = %v %v, want not found", found, err)
	}
	if _, _, err := c.LookupName(t.Context(), "twin"); err == nil {
		t.Error("LookupName(twin) found one of two servers of that name")
	}
}

// A server without reset counts as on, and neither that answer nor a
// failure is asked for again within ResetMaxAge: the lifecycle controller
// asks every few seconds about a NotReady Node.
func TestCachePoweredOffKeepsRefusals(t *testing.T) {
	f := &fetcher{err: &Error{Status: 404, Code: CodeResetNotAvailable}}
	c, clk := newTestCache(f)
	for range 3 {
		if off, err := c.PoweredOff(t.Context(), 1); off || err != nil {
			t.Fatalf("PoweredOff without reset = %v, %v; want on", off, err)
		}
	}
	f.err = &Error{Status: 500, Code: "INTERNAL_ERROR"}
	clk.Advance(61 * time.Second)
	for range 3 {
		if _, err := c.PoweredOff(t.Context(), 1); err == nil {
			t.Fatal("PoweredOff answered while the webservice fails")
		}
	}
	if f.resetN != 2 {
		t.Errorf("%d reset reads, want 2 (one per minute)", f.resetN)
	}
}
