package loadbalancer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"k8s.io/cloud-provider/api"
)

// actionTracker follows the last action the CCM started on each load
// balancer. A sync does not wait for its final action: the next change to
// the same load balancer waits for it (the API locks the load balancer
// meanwhile), and a background poll finishes the rest, one request for
// all of them.
type actionTracker struct {
	client *hcloud.Client
	onFail func(uid string, a *hcloud.Action) // a failed action: its change was undone

	mu      sync.Mutex
	running map[int64]trackedAction  // by load balancer ID
	failed  map[int64]*hcloud.Action // the last failed action, for the settle waiting on it
	pollMu  sync.Mutex
	polled  time.Time // when the last poll started
}

type trackedAction struct {
	uid    string
	action *hcloud.Action
	since  time.Time // when the CCM started it
}

func newActionTracker(client *hcloud.Client) *actionTracker {
	return &actionTracker{client: client, running: map[int64]trackedAction{}, failed: map[int64]*hcloud.Action{}}
}

// started records a's load balancer as busy until a finishes.
func (t *actionTracker) started(uid string, lbID int64, a *hcloud.Action) {
	if a == nil || a.Status != hcloud.ActionStatusRunning {
		return
	}
	t.mu.Lock()
	t.running[lbID] = trackedAction{uid: uid, action: a, since: time.Now()}
	delete(t.failed, lbID)
	t.mu.Unlock()
}

// count is how many actions the tracker waits to see finish.
func (t *actionTracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.running)
}

// pending is the action the CCM last started on lbID, while it runs.
func (t *actionTracker) pending(lbID int64) *hcloud.Action {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running[lbID].action
}

// settle waits up to wait for the action running on lbID. An action that
// takes longer is an api.RetryError, so no worker is parked on it; one
// that failed is an error. Polls are shared: each waiter polls on the
// schedule of pollAt, so syncs waiting on actions started together cost
// one request per step, not one each.
func (t *actionTracker) settle(ctx context.Context, lbID int64, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	var after time.Time // the last poll this waiter relied on
	for {
		t.mu.Lock()
		ta, running := t.running[lbID]
		t.mu.Unlock()
		if !running {
			return nil
		}
		due := pollAt(ta.since, after)
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
		if err := t.pollSince(ctx, due, 0); err != nil {
			return err
		}
		after = due
		if f := t.failedAction(lbID); f != nil && f.ID == ta.action.ID {
			return actionError(f)
		}
	}
}

// pollAt is when a waiter on an action the CCM started at since polls
// next, after its poll at after: at ages of 100, 300 and 700 ms, then
// every second (most actions end within a second or two), on a 100 ms
// grid, so that waiters on actions started together ask in one poll.
func pollAt(since, after time.Time) time.Time {
	next := since.Add(100 * time.Millisecond)
	for step := 200 * time.Millisecond; !next.After(after); step = min(2*step, time.Second) {
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

// forget drops what is known of a deleted load balancer's actions.
func (t *actionTracker) forget(lbID int64) {
	t.mu.Lock()
	delete(t.running, lbID)
	delete(t.failed, lbID)
	t.mu.Unlock()
}

// failedAction is the last action on lbID that failed, if any.
func (t *actionTracker) failedAction(lbID int64) *hcloud.Action {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed[lbID]
}

// pollSince reads every running action at least minAge old, in one
// request per 50, unless a poll started at or after since has already
// done so. Finished actions
// are forgotten; failed ones are kept for settle and told to onFail.
func (t *actionTracker) pollSince(ctx context.Context, since time.Time, minAge time.Duration) error {
	t.pollMu.Lock()
	defer t.pollMu.Unlock()
	if !t.polled.Before(since) {
		return nil
	}
	started := time.Now()
	t.mu.Lock()
	byAction := map[int64]int64{}
	for lbID, ta := range t.running {
		if started.Sub(ta.since) >= minAge {
			byAction[ta.action.ID] = lbID
		}
	}
	t.mu.Unlock()
	covered := minAge == 0 // a poll that skipped young actions does not stand in for one
	if len(byAction) == 0 {
		if covered {
			t.polled = started
		}
		return nil
	}
	ids := slices.Sorted(maps.Keys(byAction))
	actions, err := t.client.Action.AllWithOpts(ctx, hcloud.ActionListOpts{ID: ids})
	if err != nil {
		return err
	}
	if covered {
		t.polled = started
	}
	t.mu.Lock()
	var report []trackedAction
	for _, a := range actions {
		lbID := byAction[a.ID]
		ta, ok := t.running[lbID]
		if !ok || ta.action.ID != a.ID || a.Status == hcloud.ActionStatusRunning {
			continue
		}
		delete(t.running, lbID)
		if a.Status == hcloud.ActionStatusError {
			t.failed[lbID] = a
			report = append(report, trackedAction{uid: ta.uid, action: a})
		}
	}
	t.mu.Unlock()
	for _, r := range report {
		if t.onFail != nil {
			t.onFail(r.uid, r.action)
		}
	}
	return nil
}

// run polls every interval, for the actions at least that old, until ctx
// ends: few actions finish sooner, so younger ones are not asked about.
func (t *actionTracker) run(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_ = t.pollSince(ctx, time.Now(), interval) // errors: the next tick or settle tries again
		}
	}
}

func actionError(a *hcloud.Action) error {
	return fmt.Errorf("action %d (%s) failed: %s: %s", a.ID, a.Command, a.ErrorCode, a.ErrorMessage)
}
