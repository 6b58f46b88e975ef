package inventory

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestBudgetPacesBackgroundWorkAndKeepsTheReserve: with 210 requests left
// and a reserve of 200, background requests stop at the reserve and wait
// for the refill, while urgent ones go on.
func TestBudgetPacesBackgroundWorkAndKeepsTheReserve(t *testing.T) {
	clk := fakecloudtest.NewClock(time.Now())
	c := cloudtest.Start(t, 1, fakecloud.Options{RateLimit: 3600, Now: clk.Now})
	if err := c.FC.SetRateLimit(210, -1); err != nil {
		t.Fatal(err)
	}
	b := NewBudget(200)
	b.now = clk.Now
	var slept time.Duration
	b.sleep = func(_ context.Context, d time.Duration) error { slept += d; clk.Advance(d); return nil }
	client := fakecloudtest.Client(c.URL, fakecloud.DefaultToken, hcloud.WithHTTPClient(&http.Client{Transport: b.Transport(http.DefaultTransport)}))
	for i := range 20 {
		if _, _, err := client.Location.GetByID(t.Context(), 1); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	// The first answer tells the budget: 209 left. Nine more go at once;
	// the other ten each wait about a second for one request to refill.
	if slept < 9*time.Second || slept > 11*time.Second {
		t.Errorf("background requests waited %s in all, want about 10 s", slept)
	}
	remaining, _, _ := b.Snapshot()
	if remaining < 199 {
		t.Errorf("background work ate into the reserve: %.1f left", remaining)
	}
	slept = 0
	urgent := fakecloudtest.Client(c.URL, fakecloud.DefaultToken, hcloud.WithHTTPClient(&http.Client{Transport: b.UrgentTransport(http.DefaultTransport)}))
	for range 5 {
		if _, _, err := urgent.Location.GetByID(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
	}
	if slept != 0 {
		t.Errorf("urgent requests waited %s", slept)
	}
}

func TestBudgetWaitEndsWithTheContext(t *testing.T) {
	b := NewBudget(10)
	b.known, b.limit, b.remaining, b.refill, b.seen = true, 3600, 0, 1, time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := b.wait(ctx, false); err == nil {
		t.Error("wait returned without budget or a cancelled context")
	}
}

// TestUrgentAsksUseTheUrgentClient: an urgent ask (node initialisation)
// reads through the urgent client, which may use the budget's reserve;
// every other ask through the background client.
func TestUrgentAsksUseTheUrgentClient(t *testing.T) {
	c := cloudtest.Start(t, 2, fakecloud.Options{})
	var background, urgent atomic.Int32
	counted := func(n *atomic.Int32) hcloud.ClientOption {
		return hcloud.WithHTTPClient(&http.Client{Transport: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			n.Add(1)
			return http.DefaultTransport.RoundTrip(r)
		})})
	}
	inv := NewInventory(fakecloudtest.Client(c.URL, fakecloud.DefaultToken, counted(&background)), nil).
		WithUrgentClient(fakecloudtest.Client(c.URL, fakecloud.DefaultToken, counted(&urgent)))
	if s, err := inv.ByServerName(t.Context(), "node-0000", Within(time.Minute).Urgently()); err != nil || s == nil {
		t.Fatalf("urgent ask: %v %v", s, err)
	}
	if background.Load() != 0 || urgent.Load() != 1 {
		t.Errorf("urgent ask: %d background and %d urgent requests, want 0 and 1", background.Load(), urgent.Load())
	}
	if _, err := inv.ByServerName(t.Context(), "node-0001", Within(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if background.Load() != 1 || urgent.Load() != 1 {
		t.Errorf("background ask: %d background and %d urgent requests, want 1 and 1", background.Load(), urgent.Load())
	}
}
