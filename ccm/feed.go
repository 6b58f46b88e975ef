package ccm

import (
	"context"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// feed follows GET /servers/actions, newest first. Every change to a
// server that moves its addresses, type, power state or existence leaves
// an action there (create, delete, power, rebuild, type change, network
// attach and detach, IPs), so one small request tells which servers
// changed since the last look. A primary IP can change hands only while
// its server is off, and powering the server on leaves an action, so the
// primary IPs' own actions add nothing for a running node. Changes that
// leave no action, such as a rename, are caught by the inventory's slow
// safety-net listing.
type feed struct {
	list func(context.Context, hcloud.ActionListOpts) ([]*hcloud.Action, *hcloud.Response, error)

	started bool
	cursor  int64          // every action with a higher ID is new
	running map[int64]bool // actions seen running: their end changes the server again
}

// feedPage is the page size of a poll: one page holds every change of a
// quiet period.
const feedPage = 50

func newFeed(client *hcloud.Client) *feed {
	return &feed{list: client.Server.Action.List, running: map[int64]bool{}}
}

// feedChanges is what a poll found: the servers whose actions started or
// ended since the last poll, or, when more changed than maxPages pages of
// actions hold, overflow (list everything instead).
type feedChanges struct {
	servers  []int64
	overflow bool
}

// poll reads the actions since the last poll. The first poll only sets the
// cursor, and follows the newest page's running actions: changes before
// it are the caller's listing's business, but a running action changes its
// server again when it ends. The caller serialises polls.
func (f *feed) poll(ctx context.Context, maxPages int) (feedChanges, error) {
	var ch feedChanges
	if !f.started {
		acts, _, err := f.list(ctx, hcloud.ActionListOpts{Sort: []string{"id:desc"}, ListOpts: hcloud.ListOpts{Page: 1, PerPage: feedPage}})
		if err != nil {
			return ch, fmt.Errorf("server actions: %w", err)
		}
		for _, a := range acts {
			f.cursor = max(f.cursor, a.ID)
			if a.Status == hcloud.ActionStatusRunning {
				f.running[a.ID] = true
			}
		}
		f.started = true
		return ch, nil
	}
	// Nothing is committed to the feed until every read succeeded: a
	// failed poll leaves the cursor where it was, so its changes are read
	// again by the next.
	newest := f.cursor
	seen := map[int64]bool{}
	started, ended := []int64{}, []int64{}
	for page := 1; ; page++ {
		if page > maxPages {
			// Too much changed to follow action by action.
			f.cursor, f.running, ch.overflow = newest, map[int64]bool{}, true
			return ch, nil
		}
		acts, resp, err := f.list(ctx, hcloud.ActionListOpts{Sort: []string{"id:desc"}, ListOpts: hcloud.ListOpts{Page: page, PerPage: feedPage}})
		if err != nil {
			return feedChanges{}, fmt.Errorf("server actions: %w", err)
		}
		reachedCursor := false
		for _, a := range acts {
			seen[a.ID] = true
			newest = max(newest, a.ID)
			switch {
			case a.ID > f.cursor:
				ch.add(a)
				if a.Status == hcloud.ActionStatusRunning {
					started = append(started, a.ID)
				}
			case f.running[a.ID] && a.Status != hcloud.ActionStatusRunning:
				ch.add(a)
				ended = append(ended, a.ID)
				reachedCursor = true
			default:
				reachedCursor = true
			}
		}
		if reachedCursor || resp == nil || resp.Meta.Pagination == nil || resp.Meta.Pagination.NextPage == 0 {
			break
		}
	}
	// Actions still running at the last poll that this one did not reach.
	var ids []int64
	for id := range f.running {
		if !seen[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		ids = ids[:min(len(ids), feedPage)] // the rest at the next poll
		acts, _, err := f.list(ctx, hcloud.ActionListOpts{ID: ids, ListOpts: hcloud.ListOpts{Page: 1, PerPage: feedPage}})
		if err != nil {
			return feedChanges{}, fmt.Errorf("server actions: %w", err)
		}
		found := map[int64]bool{}
		for _, a := range acts {
			found[a.ID] = true
			if a.Status != hcloud.ActionStatusRunning {
				ch.add(a)
				ended = append(ended, a.ID)
			}
		}
		for _, id := range ids {
			if !found[id] {
				ended = append(ended, id) // gone from the listing: nothing left to see end
			}
		}
	}
	f.cursor = newest
	for _, id := range started {
		f.running[id] = true
	}
	for _, id := range ended {
		delete(f.running, id)
	}
	return ch, nil
}

func (ch *feedChanges) add(a *hcloud.Action) {
	for _, r := range a.Resources {
		if r != nil && r.Type == hcloud.ActionResourceTypeServer {
			ch.servers = append(ch.servers, r.ID)
		}
	}
}
