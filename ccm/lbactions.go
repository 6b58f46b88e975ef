package ccm

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
	running map[int64]trackedAction // by load balancer ID
	pollMu  sync.Mutex
}

type trackedAction struct {
	uid    string
	action *hcloud.Action
}

func newActionTracker(client *hcloud.Client) *actionTracker {
	return &actionTracker{client: client, running: map[int64]trackedAction{}}
}

// started records a's load balancer as busy until a finishes.
func (t *actionTracker) started(uid string, lbID int64, a *hcloud.Action) {
	if a == nil || a.Status != hcloud.ActionStatusRunning {
		return
	}
	t.mu.Lock()
	t.running[lbID] = trackedAction{uid: uid, action: a}
	t.mu.Unlock()
}

func (t *actionTracker) pending(lbID int64) *hcloud.Action {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running[lbID].action
}

// settle waits up to wait for the action running on lbID. An action that
// takes longer is an api.RetryError, so no worker is parked on it; one
// that failed is an error.
func (t *actionTracker) settle(ctx context.Context, lbID int64, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	delay := 50 * time.Millisecond
	for {
		a := t.pending(lbID)
		if a == nil {
			return nil
		}
		failed, err := t.poll(ctx)
		if err != nil {
			return err
		}
		if f, ok := failed[lbID]; ok {
			return actionError(f)
		}
		if t.pending(lbID) == nil {
			return nil
		}
		if time.Now().Add(delay).After(deadline) {
			return api.NewRetryError(fmt.Sprintf("action %d (%s) on load balancer %d is still running", a.ID, a.Command, lbID), time.Second)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

// poll reads every running action in one request (a page per 50) and
// forgets the finished ones; it returns the failed ones by load balancer.
func (t *actionTracker) poll(ctx context.Context) (map[int64]*hcloud.Action, error) {
	t.pollMu.Lock()
	defer t.pollMu.Unlock()
	t.mu.Lock()
	byAction := map[int64]int64{}
	for lbID, ta := range t.running {
		byAction[ta.action.ID] = lbID
	}
	t.mu.Unlock()
	if len(byAction) == 0 {
		return nil, nil
	}
	ids := slices.Sorted(maps.Keys(byAction))
	actions, err := t.client.Action.AllWithOpts(ctx, hcloud.ActionListOpts{ID: ids})
	if err != nil {
		return nil, err
	}
	failed := map[int64]*hcloud.Action{}
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
			failed[lbID] = a
			report = append(report, trackedAction{uid: ta.uid, action: a})
		}
	}
	t.mu.Unlock()
	for _, r := range report {
		if t.onFail != nil {
			t.onFail(r.uid, r.action)
		}
	}
	return failed, nil
}

// run polls every interval while actions are running, until ctx ends.
func (t *actionTracker) run(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_, _ = t.poll(ctx) // errors: the next tick or settle tries again
		}
	}
}

func actionError(a *hcloud.Action) error {
	return fmt.Errorf("action %d (%s) failed: %s: %s", a.ID, a.Command, a.ErrorCode, a.ErrorMessage)
}
