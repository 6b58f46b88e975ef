// Package actionwatch follows the last action the CCM started on each
// load balancer and tells when it ends, with one shared poll for all of
// them, so a sync never waits on an action with a worker parked.
package actionwatch

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"
)

// Watch follows the last action the CCM started on each load
// balancer. Syncs do not wait for actions: the API locks a load balancer
// while its action runs, so a sync with more to send hands the rest off
// (hurry) and the tracker's poll tells the Manager when the action ends.
// One poll asks about every tracked action at once.
type Watch struct {
	client *hcloud.Client
	// OnEnd is told of each action seen finished, successful or failed.
	OnEnd func(lbID int64, uid string, a *hcloud.Action)
	// OnPollFailed is told when a background poll fails.
	OnPollFailed func(err error)
	// Every is how long an action runs before the background poll asks
	// about it, hurried how long one a sync waits on does (500 ms, as
	// hcloud-go's WaitFor polls); then again as next says.
	Every, Hurried time.Duration

	mu      sync.Mutex
	running map[int64]trackedAction  // by load balancer ID
	failed  map[int64]*hcloud.Action // the last failed action, for settle
	wake    chan struct{}            // the schedule changed: run looks again
	pollMu  sync.Mutex
	polled  time.Time // when the last successful poll started
}

type trackedAction struct {
	uid    string
	action *hcloud.Action
	since  time.Time // when the CCM started it
	due    time.Time // when the background poll next asks about it
	hurry  bool      // a sync waits for its end
}

func New(client *hcloud.Client) *Watch {
	return &Watch{client: client, Every: 3 * time.Second, Hurried: 500 * time.Millisecond,
		running: map[int64]trackedAction{}, failed: map[int64]*hcloud.Action{}, wake: make(chan struct{}, 1)}
}

// Started records a's load balancer as busy until a finishes.
func (t *Watch) Started(uid string, lbID int64, a *hcloud.Action) {
	if a == nil || a.Status != hcloud.ActionStatusRunning {
		return
	}
	now := time.Now()
	t.mu.Lock()
	t.running[lbID] = trackedAction{uid: uid, action: a, since: now, due: now.Add(t.Every)}
	delete(t.failed, lbID)
	t.mu.Unlock()
	t.Poke()
}

// Poke has Run look at the schedule again.
func (t *Watch) Poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Count is how many actions the tracker waits to see finish.
func (t *Watch) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.running)
}

// Busy reports whether an action the CCM started on lbID may still run.
func (t *Watch) Busy(lbID int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.running[lbID]
	return ok
}

// Hurry asks the background poll about lbID's action once it is
// t.Hurried old, then as next says; false if none runs.
func (t *Watch) Hurry(lbID int64) bool {
	t.mu.Lock()
	ta, ok := t.running[lbID]
	if ok && !ta.hurry {
		ta.hurry = true
		ta.due = ceilGrid(earliest(ta.due, ta.since.Add(t.Hurried)))
		t.running[lbID] = ta
	}
	t.mu.Unlock()
	if ok {
		t.Poke()
	}
	return ok
}

// Settle waits up to wait for the action running on lbID. An action that
// takes longer is an api.RetryError, so no worker is parked on it; one
// that failed is an error. Polls are shared: each waiter polls on the
// schedule of PollAt, so syncs waiting on actions started together cost
// one request per step, not one each.
func (t *Watch) Settle(ctx context.Context, lbID int64, wait time.Duration) error {
	return t.SettleOn(ctx, lbID, wait, PollAt)
}

// SettleOn is Settle with a schedule of polls.
func (t *Watch) SettleOn(ctx context.Context, lbID int64, wait time.Duration, schedule func(since, after time.Time) time.Time) error {
	deadline := time.Now().Add(wait)
	var after time.Time // the last poll this waiter relied on
	for {
		t.mu.Lock()
		ta, running := t.running[lbID]
		t.mu.Unlock()
		if !running {
			return nil
		}
		due := schedule(ta.since, after)
		if due.After(deadline) {
			return api.NewRetryError(fmt.Sprintf("action %d (%s) on load balancer %d is still running", ta.action.ID, ta.action.Command, lbID), time.Second)
		}
		if d := time.Until(due); d > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
			}
		}
		if err := t.pollSince(ctx, due); err != nil {
			return err
		}
		after = due
		if f := t.FailedAction(lbID); f != nil && f.ID == ta.action.ID {
			return Error(f)
		}
	}
}

// PollAt is when a waiter on an action the CCM started at since polls
// next, after its poll at after: at ages of 100, 300 and 700 ms, then
// every second (most actions end within a second or two), on a 100 ms
// grid, so that waiters on actions started together ask in one poll.
func PollAt(since, after time.Time) time.Time {
	next := since.Add(100 * time.Millisecond)
	for step := 200 * time.Millisecond; !next.After(after); step = min(2*step, time.Second) {
		next = next.Add(step)
	}
	return ceilGrid(next)
}

// LazyPollAt is PollAt for a waiter that is in no hurry (a delete): at
// ages of 1, 2 and 4 s, then every 5 s, so the usual action of about a
// second costs one poll.
func LazyPollAt(since, after time.Time) time.Time {
	next := since.Add(time.Second)
	for step := time.Second; !next.After(after); step = min(2*step, 5*time.Second) {
		next = next.Add(step)
	}
	return ceilGrid(next)
}

// ceilGrid rounds t up to the next multiple of 100 ms.
func ceilGrid(t time.Time) time.Time {
	if g := t.Truncate(100 * time.Millisecond); g.Before(t) {
		return g.Add(100 * time.Millisecond)
	}
	return t
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// Forget drops what is known of a deleted load balancer's actions.
func (t *Watch) Forget(lbID int64) {
	t.mu.Lock()
	delete(t.running, lbID)
	delete(t.failed, lbID)
	t.mu.Unlock()
}

// FailedAction is the last action on lbID that failed, if any.
func (t *Watch) FailedAction(lbID int64) *hcloud.Action {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed[lbID]
}

// pollSince polls unless a poll started at or after since already did.
func (t *Watch) pollSince(ctx context.Context, since time.Time) error {
	t.pollMu.Lock()
	defer t.pollMu.Unlock()
	if !t.polled.Before(since) {
		return nil
	}
	return t.poll(ctx)
}

// idsPerPoll bounds the IDs in one request's URL (about 1.5 kB).
const idsPerPoll = 100

// poll asks about every tracked action at once, one request per
// idsPerPoll of them: which of those load balancer actions still run or
// failed, in order of ID. An action the answer leaves out succeeded. Only
// the first page is read: an action beyond its last ID is not known yet,
// and the next poll, when fewer run, reaches it. Called with pollMu held.
func (t *Watch) poll(ctx context.Context) error {
	started := time.Now()
	t.mu.Lock()
	byAction := map[int64]int64{}
	for lbID, ta := range t.running {
		byAction[ta.action.ID] = lbID
	}
	t.mu.Unlock()
	open := map[int64]*hcloud.Action{}
	known := map[int64]bool{}
	for ids := range slices.Chunk(slices.Sorted(maps.Keys(byAction)), idsPerPoll) {
		got, resp, err := t.client.LoadBalancer.Action.List(ctx, hcloud.ActionListOpts{ID: ids, Sort: []string{"id:asc"},
			Status:   []hcloud.ActionStatus{hcloud.ActionStatusRunning, hcloud.ActionStatusError},
			ListOpts: hcloud.ListOpts{Page: 1, PerPage: 50}})
		if err != nil {
			t.postpone(started)
			return err
		}
		for _, a := range got {
			open[a.ID] = a
		}
		for _, id := range ids {
			known[id] = !more(resp) || len(got) == 0 || id <= got[len(got)-1].ID
		}
	}
	t.polled = started
	type end struct {
		lbID int64
		uid  string
		a    *hcloud.Action
	}
	var ended []end
	t.mu.Lock()
	for id, lbID := range byAction {
		ta, ok := t.running[lbID]
		if !ok || ta.action.ID != id {
			continue
		}
		a, isOpen := open[id]
		if !known[id] || (isOpen && a.Status != hcloud.ActionStatusError) { // still running, or beyond the page
			ta.due = t.next(ta, started)
			t.running[lbID] = ta
			continue
		}
		if isOpen {
			t.failed[lbID] = a
		} else {
			a = &hcloud.Action{ID: id, Command: ta.action.Command, Status: hcloud.ActionStatusSuccess}
		}
		delete(t.running, lbID)
		ended = append(ended, end{lbID, ta.uid, a})
	}
	t.mu.Unlock()
	if t.OnEnd != nil {
		for _, e := range ended {
			t.OnEnd(e.lbID, e.uid, e.a)
		}
	}
	return nil
}

// more reports whether a listing has a page after this one.
func more(resp *hcloud.Response) bool {
	return resp != nil && resp.Meta.Pagination != nil && resp.Meta.Pagination.NextPage != 0
}

// maxPollInterval bounds how seldom a running action is asked about.
const maxPollInterval = 30 * time.Second

// next is when to ask again about an action still running at a poll:
// after t.Hurried or t.Every, or half its age once that is longer, up to
// maxPollInterval, so that an action that runs for minutes costs a few
// requests, not one every few seconds.
func (t *Watch) next(ta trackedAction, poll time.Time) time.Time {
	base := t.Every
	if ta.hurry {
		base = t.Hurried
	}
	step := min(max(base, poll.Sub(ta.since)/2), maxPollInterval)
	if ta.hurry {
		return ceilGrid(poll.Add(step))
	}
	return poll.Add(step)
}

// postpone moves every action's next poll after a failed one started at
// from, so that an outage is not polled in a tight loop.
func (t *Watch) postpone(from time.Time) {
	t.mu.Lock()
	for lbID, ta := range t.running {
		ta.due = from.Add(t.Every)
		t.running[lbID] = ta
	}
	t.mu.Unlock()
}

// due is when the next background poll is, if any action runs.
func (t *Watch) due() (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var first time.Time
	for _, ta := range t.running {
		if first.IsZero() || ta.due.Before(first) {
			first = ta.due
		}
	}
	return first, !first.IsZero()
}

// Run polls, until ctx ends, whenever a tracked action is due.
func (t *Watch) Run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		wait := time.Hour
		if due, ok := t.due(); ok {
			wait = max(time.Until(due), 0)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-t.wake:
			continue
		case <-timer.C:
		}
		if due, ok := t.due(); !ok || time.Now().Before(due) {
			continue
		}
		if err := t.pollSince(ctx, time.Now()); err != nil && ctx.Err() == nil {
			klog.V(2).InfoS("Polling load balancer actions failed; trying again later", "err", err)
			if t.OnPollFailed != nil {
				t.OnPollFailed(err)
			}
		}
	}
}

func Error(a *hcloud.Action) error {
	return fmt.Errorf("action %d (%s) failed: %s: %s", a.ID, a.Command, a.ErrorCode, a.ErrorMessage)
}
