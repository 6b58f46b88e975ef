package loadbalancer

import (
	"errors"
	"fmt"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/internal/actionwatch"
)

// A sync that finds its load balancer busy with an earlier action hands
// the rest of its changes off and returns: the controller's worker is not
// parked on the action, and syncs of many load balancers share each poll.
// When the action ends the Manager applies the Service's newest desired
// state again (resume); what then fails is a Warning event and is tried
// again with back-off, since the controller counts the sync as done.

// handOff leaves the rest of uid's sync to the end of the action running
// on lbID; false if it has already ended, so the sync goes on itself.
func (l *Manager) handOff(uid string, lbID int64) bool {
	l.mu.Lock()
	l.waiting[lbID] = uid
	l.mu.Unlock()
	if l.actions.Hurry(lbID) {
		return true
	}
	l.mu.Lock()
	if l.waiting[lbID] == uid {
		delete(l.waiting, lbID)
	}
	l.mu.Unlock()
	return false
}

// actionEnded is told of each action the tracker saw finish. A failed one
// was undone by the API: the Service is applied again, soon after the
// first failure and then with back-off, so that an action that keeps
// failing costs a few requests an hour.
func (l *Manager) actionEnded(lbID int64, uid string, a *hcloud.Action) {
	failed := a.Status == hcloud.ActionStatusError
	l.mu.Lock()
	w, waiting := l.waiting[lbID]
	delete(l.waiting, lbID)
	if waiting {
		uid = w
	}
	delete(l.warned, uid)
	last, known := l.last[uid]
	var delay time.Duration
	if failed {
		delay = backoff(l.retryUnit, l.failures[uid])
		l.failures[uid]++
	} else {
		delete(l.failures, uid)
	}
	l.mu.Unlock()
	if !known {
		return
	}
	if failed {
		l.store.invalidate(uid)
		l.event(last.svc, corev1.EventTypeWarning, eventLBActionFailed,
			fmt.Sprintf("%v; applying the Service again in %s", actionwatch.Error(a), delay))
	}
	if waiting || failed {
		l.resume(uid, delay, 0)
	}
}

// pollFailed tells each Service whose sync waits for an action, once
// until that action's end is seen, that the API does not say when it ends:
// the sync counted as done, so without this Warning event an outage would
// leave the Service silently unchanged.
func (l *Manager) pollFailed(err error) {
	l.mu.Lock()
	var tell []*corev1.Service
	for lbID, uid := range l.waiting {
		if last, ok := l.last[uid]; ok && !l.warned[uid] {
			l.warned[uid] = true
			tell = append(tell, last.svc)
			klog.V(2).InfoS("Waiting for an action the API does not report on", "loadBalancer", lbID, "service", klog.KObj(last.svc))
		}
	}
	l.mu.Unlock()
	for _, svc := range tell {
		l.event(svc, corev1.EventTypeWarning, eventLBSyncFailed,
			fmt.Sprintf("The rest of the sync waits for the load balancer's running action, and reading its actions failed: %v; trying again", err))
	}
}

// backoff is the wait before applying a Service again after n failures
// in a row: nothing at first, then unit doubling up to 200 units (16
// minutes for the default 5 s), as the service controller backs off.
func backoff(unit time.Duration, n int) time.Duration {
	if n == 0 {
		return 0
	}
	return min(unit<<min(n-1, 8), 200*unit)
}

// resume applies uid's newest desired state after delay, unless the
// Service was deleted meanwhile; with gen set, only if no newer sync came
// from the controller, which then owns what is left. A Service has at
// most one resume pending: a later call replaces it, so failures that
// reach this from two sides (a failed action and the failed sync waiting
// on it) do not multiply the retries.
func (l *Manager) resume(uid string, delay time.Duration, gen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.pending[uid]; t != nil {
		t.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(delay, func() {
		l.mu.Lock()
		if l.pending[uid] == t {
			delete(l.pending, uid)
		}
		l.mu.Unlock()
		l.resumeNow(uid, gen)
	})
	l.pending[uid] = t
}

// resumeNow is resume's sync; what fails is tried again with back-off.
func (l *Manager) resumeNow(uid string, gen uint64) {
	defer l.store.lock(uid)()
	l.mu.Lock()
	last, ok := l.last[uid]
	ctx := l.ctx
	l.mu.Unlock()
	if !ok || ctx.Err() != nil || (gen != 0 && last.gen != gen) {
		return
	}
	_, err := l.syncLocked(ctx, last.svc, last.nodes, false)
	if err == nil {
		return
	}
	l.mu.Lock()
	l.failures[uid]++
	tries := l.failures[uid]
	delay := backoff(l.retryUnit, tries)
	l.mu.Unlock()
	var re *api.RetryError
	if errors.As(err, &re) {
		// Busy: another's action locks the load balancer. Not a failure
		// to report at first, but retried no faster than one; still busy
		// at the next try, it is a Warning event, since the Service's
		// change waits on something the CCM does not control.
		if tries >= 2 {
			l.event(last.svc, corev1.EventTypeWarning, eventLBSyncFailed,
				fmt.Sprintf("The load balancer is still busy after %d tries: %v; trying again in %s", tries, err, max(re.RetryAfter(), delay)))
		}
		l.resume(uid, max(re.RetryAfter(), delay), last.gen)
		return
	}
	klog.ErrorS(err, "Applying a Service's load balancer changes", "service", klog.KObj(last.svc), "retryIn", delay)
	l.event(last.svc, corev1.EventTypeWarning, eventLBSyncFailed,
		fmt.Sprintf("Applying the rest of the load balancer's changes: %v; trying again in %s", err, delay))
	l.resume(uid, delay, last.gen)
}
