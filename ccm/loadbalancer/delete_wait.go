package loadbalancer

import (
	"context"
	"fmt"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/internal/actionwatch"
)

// Since 2026-10-05 the API answers DELETE /load_balancers/{id} with an
// action, and a Primary IP the load balancer held is free only once it
// ends (the official CCM v1.39.0 waits for it). A Service's deletion
// waits for that action, up to actionWait a try, keeping the Service's
// finalizer meanwhile, so that a Service created again right after
// finds its Primary IP free; after deleteWaitMax it goes all the same.

// deletion is a load balancer the API accepted to delete.
type deletion struct {
	lbID, action int64
	name         string
	since        time.Time
}

// deleteWaitMax bounds how long a Service's deletion waits, over all its
// tries, for the API to finish deleting its load balancer.
const deleteWaitMax = 5 * time.Minute

// deleted records that the API accepted to delete lb, with action a: the
// Manager forgets the Service's load balancer, and its deletion waits for
// a. An action that failed at once is the deletion's error.
func (l *Manager) deleted(uid string, lb *hcloud.LoadBalancer, a *hcloud.Action) error {
	l.forget(uid, lb)
	l.actions.Forget(lb.ID)
	if a == nil {
		return nil
	}
	if a.Status == hcloud.ActionStatusError {
		return fmt.Errorf("deleting load balancer %s: %w", lb.Name, actionwatch.Error(a))
	}
	l.mu.Lock()
	l.deleting[uid] = deletion{lbID: lb.ID, action: a.ID, name: lb.Name, since: l.now()}
	l.mu.Unlock()
	l.actions.Started(uid, lb.ID, a)
	return nil
}

// stillDeleting reports whether the Service's load balancer was deleted
// and its delete action not yet seen to end.
func (l *Manager) stillDeleting(uid string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.deleting[uid]
	return ok
}

// awaitDeleted waits up to actionWait for the delete action of the
// Service's load balancer, if one was sent: still running, it is an
// api.RetryError and the Service keeps its finalizer; failed, an error,
// and the next try deletes the load balancer again. After deleteWaitMax
// the Service goes with a Warning event.
func (l *Manager) awaitDeleted(ctx context.Context, svc *corev1.Service) error {
	uid := string(svc.UID)
	l.mu.Lock()
	d, ok := l.deleting[uid]
	l.mu.Unlock()
	if !ok {
		return nil
	}
	err := l.actions.SettleOn(ctx, d.lbID, l.actionWait, actionwatch.LazyPollAt)
	if f := l.actions.FailedAction(d.lbID); f != nil && f.ID == d.action {
		l.stopAwaiting(uid, d)
		return fmt.Errorf("deleting load balancer %s: %w", d.name, actionwatch.Error(f))
	}
	if err != nil {
		if ctx.Err() != nil || l.now().Sub(d.since) < deleteWaitMax {
			return err
		}
		l.event(svc, corev1.EventTypeWarning, eventLBDeleteUnconfirmed, fmt.Sprintf(
			"The API has not said that load balancer %s (ID %d) is deleted %s after its deletion (action %d: %v); the Service goes, and a Primary IP the load balancer held may stay busy until the API is done",
			d.name, d.lbID, deleteWaitMax, d.action, err))
	}
	l.stopAwaiting(uid, d)
	return nil
}

// recreated forgets the awaited deletion of a Service that has a load
// balancer again (its type changed back, say): its next deletion is of
// the new one.
func (l *Manager) recreated(uid string) {
	l.mu.Lock()
	d, ok := l.deleting[uid]
	l.mu.Unlock()
	if ok {
		l.stopAwaiting(uid, d)
	}
}

func (l *Manager) stopAwaiting(uid string, d deletion) {
	l.mu.Lock()
	delete(l.deleting, uid)
	l.mu.Unlock()
	l.actions.Forget(d.lbID)
}
