package inventory

import (
	"context"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"k8s.io/klog/v2"
)

// WithFeed turns change detection on: entries stay fresh while the
// actions show no change to them and the last full listing is younger
// than listingPeriod, at most listingMaxAge.
func (inv *Inventory) WithFeed(f *Feed, listingMaxAge time.Duration) *Inventory {
	inv.feed, inv.listingMaxAge = f, listingMaxAge
	return inv
}

// listingPeriod bounds the age of the last full listing while the feed
// vouches for entries, and so how late a change that leaves no action (a
// rename) shows: 6 minutes a page of servers, from 15 minutes up to
// listingMaxAge, so listings cost about 10 requests an hour until the
// ceiling (15 minutes up to 100 servers, 60 from 500; at 1,000, 20 pages
// an hour). The caller holds mu.
func (inv *Inventory) listingPeriod() time.Duration {
	return listingPeriodFor(inv.pages(), inv.listingMaxAge)
}

func listingPeriodFor(pages int, maxAge time.Duration) time.Duration {
	return min(maxAge, max(listingPeriodMin, time.Duration(pages)*listingPeriodPerPage))
}

// feedStreams is how many requests a poll of the feed costs.
const feedStreams = 2

// StalenessBounds says how late a change to a server shows in the
// inventory's answers about a project of n servers: one that leaves an
// action (power, type, IPs, deletion) within withAction, one that leaves
// none (a rename) within withoutAction. The change feed, when
// actionsEnabled, is used from 3 pages of servers; below, every answer is
// at most inventoryMaxAge old.
func StalenessBounds(n int, actionsEnabled bool, inventoryMaxAge, listingMaxAge time.Duration) (withAction, withoutAction time.Duration, feed bool) {
	pages := max(1, (n+49)/50)
	if !actionsEnabled || pages <= feedStreams {
		return inventoryMaxAge, inventoryMaxAge, false
	}
	return inventoryMaxAge, listingPeriodFor(pages, listingMaxAge), true
}

const (
	listingPeriodMin     = 15 * time.Minute
	listingPeriodPerPage = 6 * time.Minute
)

// feedUsable tells whether the feed may vouch for entries: there is one,
// a listing costs more requests than a poll (up to 100 servers, a listing
// is as cheap and sees every change), and the last listing is recent
// enough to cover the changes that leave no action. The caller holds mu.
func (inv *Inventory) feedUsable(now time.Time) bool {
	return inv.feed != nil && inv.pages() > feedStreams && !inv.ListedAt.IsZero() && now.Sub(inv.ListedAt) <= inv.listingPeriod()
}

// PollFeed reads the actions since the last poll (coalesced with
// concurrent polls) and marks the servers they touched as changed, so
// their next lookup fetches them. A primary IP the inventory cannot place
// is read; when more changed than a listing has pages, or the feed may
// have missed actions, it lists everything instead. If that fails, the
// feed vouches for nothing until a listing succeeds.
func (inv *Inventory) PollFeed(ctx context.Context) error { return inv.pollFeed(ctx, inv.client) }

// pollFeed is PollFeed through a client.
func (inv *Inventory) pollFeed(ctx context.Context, c *hcloud.Client) error {
	_, err, _ := inv.flight.Do("feed", func() (any, error) {
		start := inv.Now()
		inv.mu.Lock()
		pages := inv.pages()
		listedBefore := !inv.ListedAt.IsZero()
		inv.mu.Unlock()
		first := !inv.feed.started
		ch, err := inv.feed.poll(ctx, c, pages)
		if err != nil {
			return nil, err
		}
		if first && listedBefore {
			// A feed first read after a listing (the servers outgrew
			// what a listing costs) knows nothing of the changes
			// between the two: a listing after it does.
			ch.gap = true
		}
		inv.Stats.add(&inv.Stats.feedPolls)
		if ch.gap {
			inv.Stats.add(&inv.Stats.feedGaps)
			klog.InfoS("The actions listing may have lost actions since the last read; listing every server", "actions", "GET /servers/actions")
		}
		inv.mu.Lock()
		unknown := inv.markChanged(ch, start)
		inv.mu.Unlock()
		if err := inv.place(ctx, c, unknown, ch.overflow || ch.gap, start); err != nil {
			inv.mu.Lock()
			inv.ListedAt = time.Time{}
			inv.mu.Unlock()
			return nil, err
		}
		inv.mu.Lock()
		inv.feedAt = start
		inv.mu.Unlock()
		return nil, nil
	})
	return err
}

// markChanged marks the servers a poll found, directly or by a primary IP
// they hold, as changed; it returns the primary IPs no entry holds. The
// caller holds mu.
func (inv *Inventory) markChanged(ch feedChanges, start time.Time) []int64 {
	var unknown []int64
	for _, id := range ch.servers {
		inv.byID[id].changed(start)
	}
	for _, id := range ch.primaryIPs {
		if e := inv.byPrimaryIP[id]; e != nil {
			e.changed(start)
		} else {
			unknown = append(unknown, id)
		}
	}
	return unknown
}

// place finds the servers now holding primary IPs the inventory did not
// know, by reading them (up to 3) or by one listing; list forces the
// listing.
func (inv *Inventory) place(ctx context.Context, c *hcloud.Client, pips []int64, list bool, start time.Time) error {
	if list || len(pips) > 3 {
		return inv.refresh(ctx, c)
	}
	for _, id := range pips {
		p, _, err := c.PrimaryIP.GetByID(ctx, id)
		if err != nil {
			return err
		}
		if p == nil || p.AssigneeID == 0 || p.AssigneeType != "server" {
			continue // unassigned, or a load balancer's (IDs of kinds may coincide)
		}
		inv.mu.Lock()
		inv.byID[p.AssigneeID].changed(start)
		inv.mu.Unlock()
	}
	return nil
}

// Staleness is the age of the oldest server entry the inventory holds:
// with the feed usable, the oldest it may answer from without a request.
// bound is how old that may grow: the listing period with the feed, else
// zero (entries answer only within their callers' max age).
func (inv *Inventory) Staleness() (age, bound time.Duration) {
	now := inv.Now()
	inv.mu.Lock()
	defer inv.mu.Unlock()
	oldest := now
	for _, e := range inv.byID {
		if e.server != nil && !e.seen.IsZero() && e.seen.Before(oldest) {
			oldest = e.seen
		}
	}
	if inv.feed != nil {
		bound = inv.listingPeriod()
	}
	return now.Sub(oldest), bound
}

// changed marks an entry (nil: none) seen before start as changed, so its
// next lookup reads it; the caller holds mu.
func (e *entry) changed(start time.Time) {
	if e != nil && e.seen.Before(start) {
		e.seen = time.Time{}
	}
}
