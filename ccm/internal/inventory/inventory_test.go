package inventory

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestInventorySweeps: a sweep over every node's server costs one read
// and one listing the first time, nothing while fresh, and one listing once stale.
func TestInventorySweeps(t *testing.T) {
	c := cloudtest.Start(t, 120, fakecloud.Options{}) // 3 pages of 50
	clk := fakecloudtest.NewClock(time.Unix(1e9, 0))
	inv := NewInventory(c.Client, clk.Now)
	sweep := func() {
		t.Helper()
		for i := range 120 {
			s, err := inv.ByServerName(t.Context(), fmt.Sprintf("node-%04d", i), Within(5*time.Minute))
			if err != nil || s == nil {
				t.Fatalf("node-%04d: %v %v", i, s, err)
			}
		}
	}
	sweep()
	if got := c.Requests(); got != 4 {
		t.Errorf("first sweep: %d requests, want 4: one read by name, then one listing of 3 pages", got)
	}
	c.FC.ResetCounters()
	clk.Advance(time.Minute)
	sweep()
	if got := c.Requests(); got != 0 {
		t.Errorf("sweep within max age: %d requests, want 0", got)
	}
	clk.Advance(5 * time.Minute)
	sweep()
	if got := c.Requests(); got != 3 {
		t.Errorf("sweep after max age: %d requests, want one listing of 3 pages", got)
	}
}

// TestInventoryLifecycleChecks: one node checked every 5 s for an hour at
// a 1-minute freshness costs one request every 65 s.
func TestInventoryLifecycleChecks(t *testing.T) {
	c := cloudtest.Start(t, 120, fakecloud.Options{})
	clk := fakecloudtest.NewClock(time.Unix(1e9, 0))
	inv := NewInventory(c.Client, clk.Now)
	if err := inv.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	s, _ := inv.ByServerName(t.Context(), "node-0007", Within(time.Minute))
	c.FC.ResetCounters()
	for range 720 {
		clk.Advance(5 * time.Second)
		if _, err := inv.ByServerID(t.Context(), s.ID, Within(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	// A read at t is fresh through t+1m, so the check 65 s after it reads
	// again: 3,600 s / 65 s.
	if got := c.Requests(); got != 55 {
		t.Errorf("%d requests in an hour, want 55", got)
	}
}

// TestInventoryJoinBurst: 100 servers the inventory has never seen, looked
// up at once, cost one read by name and one listing of two pages (3
// requests); the bound allows a second listing (5). Without the
// inventory it would be 100.
func TestInventoryJoinBurst(t *testing.T) {
	c := cloudtest.Start(t, 100, fakecloud.Options{})
	inv := NewInventory(c.Client, nil)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			if s, err := inv.ByServerName(t.Context(), fmt.Sprintf("node-%04d", i), Within(5*time.Minute)); err != nil || s == nil {
				t.Errorf("node-%04d: %v %v", i, s, err)
			}
		})
	}
	wg.Wait()
	if got := c.Requests(); got > 5 {
		t.Errorf("%d requests for 100 joining nodes, want a read and a listing or two (at most 5)", got)
	}
	t.Logf("100 joining nodes cost %d requests", c.Requests())
}

// TestInventoryGoneOnlyWhenConfirmed: nil only for a server the API says is
// gone; errors stay errors.
func TestInventoryGoneOnlyWhenConfirmed(t *testing.T) {
	c := cloudtest.Start(t, 3, fakecloud.Options{})
	clk := fakecloudtest.NewClock(time.Unix(1e9, 0))
	inv := NewInventory(c.Client, clk.Now)
	s, err := inv.ByServerName(t.Context(), "node-0001", Within(time.Minute))
	if err != nil || s == nil {
		t.Fatal(s, err)
	}
	if _, err := c.FC.AddFault(fakecloud.Rule{Path: "/**", Status: 500}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	if got, err := inv.ByServerID(t.Context(), s.ID, Within(time.Minute)); err == nil || got != nil {
		t.Fatalf("during an outage: %v %v, want an error", got, err)
	}
	c.FC.ClearFaults()
	if err := c.FC.Apply(fakecloud.Event{Type: "delete_server", Server: s.ID}); err != nil {
		t.Fatal(err)
	}
	if got, err := inv.ByServerID(t.Context(), s.ID, Within(time.Minute)); err != nil || got != nil {
		t.Fatalf("after deletion: %v %v, want nil, nil", got, err)
	}
}

// TestStalenessBounds: the figures docs/explanation/api-economy.md and ccm doctor state, by the
// project's size: the feed from 3 pages of servers, its listing every 6
// minutes a page from 15 minutes up to HCLOUD_INVENTORY_LISTING_MAX_AGE.
func TestStalenessBounds(t *testing.T) {
	for _, tt := range []struct {
		servers       int
		with, without time.Duration
		feed          bool
	}{
		{10, 5 * time.Minute, 5 * time.Minute, false},
		{100, 5 * time.Minute, 5 * time.Minute, false},
		{101, 5 * time.Minute, 18 * time.Minute, true},
		{400, 5 * time.Minute, 48 * time.Minute, true},
		{1000, 5 * time.Minute, time.Hour, true},
	} {
		with, without, feed := StalenessBounds(tt.servers, true, 5*time.Minute, time.Hour)
		if with != tt.with || without != tt.without || feed != tt.feed {
			t.Errorf("%d servers: %s, %s, feed %v; want %s, %s, %v", tt.servers, with, without, feed, tt.with, tt.without, tt.feed)
		}
	}
	if _, without, feed := StalenessBounds(1000, false, 5*time.Minute, time.Hour); feed || without != 5*time.Minute {
		t.Errorf("without the actions: %s, feed %v", without, feed)
	}
}
