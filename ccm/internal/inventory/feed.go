package inventory

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// Feed tells which servers changed since its last poll from the actions
// the API lists: GET /servers/actions, and GET /primary_ips/actions for a
// primary IP moved between servers, which may name the primary IP alone.
//
// It relies on no order of action IDs (the API documents none). Each
// stream is read newest first by started time, ties by ID, down to a
// horizon: feedOverlap before the API's clock at the previous poll. An
// action in that window whose ID was not seen in it before is new, so an
// action listed up to feedOverlap late is still seen. If an action the
// last poll saw in the window is missing, or the last poll is older than
// feedMaxGap, actions may have left the listing unseen: the poll reports
// a gap and the caller lists every server. Changes that leave no action
// (a rename, a shutdown from inside) are the inventory's listing's to see.
type Feed struct {
	client  *hcloud.Client // polls through it unless told another (an urgent ask's)
	streams []*actionStream
	started bool
	lastAt  time.Time // the API's clock at the last successful poll
}

// actionStream follows one action listing.
type actionStream struct {
	name    string
	of      func(*hcloud.Client) actionLister  // its listing of a client
	list    actionLister                       // ... of the client of the poll under way
	horizon time.Time                          // every action started at or after it is in seen
	seen    map[int64]time.Time                // ID -> started, in the window
	running map[int64][]*hcloud.ActionResource // actions seen running: their end changes the server again
}

const (
	// feedPage is the page size of a poll: one page holds every change of
	// a quiet period.
	feedPage = 50
	// feedOverlap is how far before the last poll each poll reads back:
	// it covers the API's clock against the actions' started times
	// (whole seconds) and actions listed late.
	feedOverlap = 2 * time.Minute
	// feedMaxGap is how long finished actions are assumed to stay listed:
	// a poll longer than this after the last one reports a gap.
	feedMaxGap = 20 * time.Minute
	// feedRunningPages bounds the running actions a poll that did not read
	// its whole window starts to follow (1,000; a mass creation at most).
	feedRunningPages = 20
)

func NewFeed(client *hcloud.Client) *Feed {
	return &Feed{client: client, streams: []*actionStream{
		newActionStream("server actions", func(c *hcloud.Client) actionLister { return c.Server.Action.List }),
		newActionStream("primary IP actions", func(c *hcloud.Client) actionLister { return c.PrimaryIP.Action.List }),
	}}
}

// actionLister is one action listing of a client.
type actionLister func(context.Context, hcloud.ActionListOpts) ([]*hcloud.Action, *hcloud.Response, error)

func newActionStream(name string, of func(*hcloud.Client) actionLister) *actionStream {
	return &actionStream{name: name, of: of, seen: map[int64]time.Time{}, running: map[int64][]*hcloud.ActionResource{}}
}

// feedChanges is what a poll found: the servers and primary IPs whose
// actions started or ended since the last poll, or that everything must
// be listed instead: more changed than maxPages pages hold (overflow), or
// actions may have been missed (gap).
type feedChanges struct {
	servers, primaryIPs []int64
	overflow, gap       bool
}

// poll reads the actions since the last poll. The first poll reads one
// page, sets the horizon and follows running actions: changes before it
// are the caller's listing's business, as are those an overflowing poll
// did not read. Nothing is committed until every read
// succeeded, so a failed poll's changes are read again by the next. The
// caller serialises polls. It reads through c, or the feed's client when
// c is nil.
func (f *Feed) poll(ctx context.Context, c *hcloud.Client, maxPages int) (feedChanges, error) {
	if c == nil {
		c = f.client
	}
	var ch feedChanges
	var commits []func()
	var at time.Time
	for _, s := range f.streams {
		s.list = s.of(c)
		commit, now, err := s.poll(ctx, maxPages, !f.started, &ch)
		if err != nil {
			return feedChanges{}, err
		}
		commits = append(commits, commit)
		at = later(at, now)
	}
	if f.started && !f.lastAt.IsZero() && at.Sub(f.lastAt) > feedMaxGap {
		ch.gap = true
	}
	for _, commit := range commits {
		commit()
	}
	f.started, f.lastAt = true, at
	return ch, nil
}

// poll reads one stream; it returns what to commit and the API's clock.
func (s *actionStream) poll(ctx context.Context, maxPages int, first bool, ch *feedChanges) (func(), time.Time, error) {
	var apiNow time.Time
	seen := map[int64]time.Time{}
	running := maps.Clone(s.running)
	complete := false    // the read reached the horizon or the listing's end
	var oldest time.Time // the oldest started time read in the window
	for page := 1; ; page++ {
		if page > maxPages {
			ch.overflow = true
			break
		}
		acts, resp, err := s.list(ctx, hcloud.ActionListOpts{Sort: []string{"started:desc", "id:desc"},
			ListOpts: hcloud.ListOpts{Page: page, PerPage: feedPage}})
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("%s: %w", s.name, err)
		}
		if page == 1 {
			apiNow = responseDate(resp)
		}
		reached := false
		for _, a := range acts {
			apiNow = later(apiNow, a.Started)
			if a.Started.Before(s.horizon) {
				reached = true
				if res, ok := running[a.ID]; ok && a.Status != hcloud.ActionStatusRunning {
					ch.add(res)
					delete(running, a.ID)
				}
				continue
			}
			seen[a.ID] = a.Started
			if oldest.IsZero() || a.Started.Before(oldest) {
				oldest = a.Started
			}
			_, known := s.seen[a.ID]
			_, wasRunning := running[a.ID]
			if !first && (!known || (wasRunning && a.Status != hcloud.ActionStatusRunning)) {
				ch.add(a.Resources)
			}
			if a.Status == hcloud.ActionStatusRunning {
				running[a.ID] = a.Resources
			} else {
				delete(running, a.ID)
			}
		}
		if reached || lastPage(resp) {
			complete = true
			break
		}
		if first {
			break
		}
	}
	if !first && complete {
		for id := range s.seen {
			if _, ok := seen[id]; !ok {
				ch.gap = true // listed at the last poll, gone now
			}
		}
	}
	// Actions still running at the last poll that this read did not reach.
	if err := s.followRunning(ctx, seen, running, ch); err != nil {
		return nil, time.Time{}, err
	}
	if !complete {
		// The part not read may hold running actions, whose end the
		// caller's listing cannot see: follow them from now on.
		if err := s.trackRunning(ctx, running); err != nil {
			return nil, time.Time{}, err
		}
	}
	horizon := s.horizon
	if !apiNow.IsZero() {
		horizon = later(horizon, apiNow.Add(-feedOverlap))
	}
	if !complete && !oldest.IsZero() {
		// Only the newest part of the window was read (the first poll's
		// one page, or an overflow): the caller's listing covers what is
		// older, so the next poll reads down to the part that was read.
		horizon = later(horizon, oldest.Add(time.Second))
	}
	return func() {
		s.horizon, s.running, s.seen = horizon, running, map[int64]time.Time{}
		for id, started := range seen {
			if !started.Before(horizon) {
				s.seen[id] = started
			}
		}
	}, apiNow, nil
}

// trackRunning adds the running actions, up to feedRunningPages pages of
// them, to those the next polls follow.
func (s *actionStream) trackRunning(ctx context.Context, running map[int64][]*hcloud.ActionResource) error {
	for page := 1; page <= feedRunningPages; page++ {
		acts, resp, err := s.list(ctx, hcloud.ActionListOpts{Status: []hcloud.ActionStatus{hcloud.ActionStatusRunning},
			Sort: []string{"started:desc", "id:desc"}, ListOpts: hcloud.ListOpts{Page: page, PerPage: feedPage}})
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		for _, a := range acts {
			if _, ok := running[a.ID]; !ok {
				running[a.ID] = a.Resources
			}
		}
		if lastPage(resp) {
			return nil
		}
	}
	return nil
}

// followRunning asks by ID about running actions the read did not reach;
// one that ended, or left the listing, changed its resources.
func (s *actionStream) followRunning(ctx context.Context, seen map[int64]time.Time, running map[int64][]*hcloud.ActionResource, ch *feedChanges) error {
	var ids []int64
	for id := range running {
		if _, ok := seen[id]; !ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	for chunk := range slices.Chunk(ids, feedPage) {
		acts, _, err := s.list(ctx, hcloud.ActionListOpts{ID: chunk, ListOpts: hcloud.ListOpts{Page: 1, PerPage: feedPage}})
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		found := map[int64]bool{}
		for _, a := range acts {
			found[a.ID] = true
			if a.Status != hcloud.ActionStatusRunning {
				ch.add(a.Resources)
				delete(running, a.ID)
			}
		}
		for _, id := range chunk {
			if !found[id] {
				ch.add(running[id]) // gone from the listing: its end is unknown
				delete(running, id)
			}
		}
	}
	return nil
}

// add records an action's resources: its servers, or, when it names
// none, its primary IPs.
func (ch *feedChanges) add(res []*hcloud.ActionResource) {
	var pips []int64
	named := false
	for _, r := range res {
		switch {
		case r == nil:
		case r.Type == hcloud.ActionResourceTypeServer:
			ch.servers, named = append(ch.servers, r.ID), true
		case r.Type == hcloud.ActionResourceTypePrimaryIP:
			pips = append(pips, r.ID)
		}
	}
	if !named {
		ch.primaryIPs = append(ch.primaryIPs, pips...)
	}
}

// responseDate is the API's clock from a response's Date header, or zero.
func responseDate(resp *hcloud.Response) time.Time {
	if resp == nil || resp.Response == nil {
		return time.Time{}
	}
	t, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return time.Time{}
	}
	return t
}

func lastPage(resp *hcloud.Response) bool {
	return resp == nil || resp.Meta.Pagination == nil || resp.Meta.Pagination.NextPage == 0
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
