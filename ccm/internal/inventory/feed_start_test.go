package inventory

import (
	"fmt"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestFeedStartsWhenTheServersOutgrowAListing: started with 60 servers,
// the inventory lists them in two pages and leaves the feed unread (a
// listing costs no more than a poll). Grown to 120, the feed's first
// read comes after a listing, so it cannot vouch for what changed
// between the two: it lists again, and a server powered off from inside
// (no action) in between is seen.
func TestFeedStartsWhenTheServersOutgrowAListing(t *testing.T) {
	c, clk := feedCloud(t, 60, fakecloud.Options{})
	inv := NewInventory(c.Client, clk.Now).WithFeed(NewFeed(c.Client), time.Hour)
	c.FC.ResetCounters()
	if err := inv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if lists, reads := c.FC.Requests("GET", "/servers"), actionReads(c); lists != 2 || reads != 0 {
		t.Fatalf("start at 60 servers: %d listing pages, %d action reads; want 2 and none", lists, reads)
	}
	for i := 60; i < 120; i++ {
		if _, _, err := c.Client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: fmt.Sprintf("node-%04d", i),
			ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}}); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(time.Minute)
	sweep(t, inv, 120) // the new names are unknown: a listing, of 3 pages now
	if err := c.FC.Apply(fakecloud.Event{Type: "power_off_server", ServerName: "node-0004"}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5*time.Minute + time.Second)
	got := sweep(t, inv, 120)
	if s := inv.Stats.Snapshot(); s.FeedPolls == 0 || s.FeedGaps != 1 {
		t.Errorf("stats %+v: want the feed read, its first read counted as a gap", s)
	}
	if got["node-0004"].Status != hcloud.ServerStatusOff {
		t.Errorf("node-0004 is %s after the feed's first read; want off, seen by the listing after it", got["node-0004"].Status)
	}
}
