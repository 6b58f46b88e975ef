package loadbalancer

import (
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// actionFailed is told of an action that failed after its sync returned:
// the API undid the change, so the Service's latest sync is applied again,
// at most once a minute per Service; beyond that the controller's next
// sync repairs it.
func (l *Manager) actionFailed(uid string, a *hcloud.Action) {
	l.store.invalidate(uid)
	l.mu.Lock()
	last, ok := l.last[uid]
	ctx := l.ctx
	again := ok && time.Since(l.reapplied[uid]) >= time.Minute
	if again {
		l.reapplied[uid] = time.Now()
	}
	l.mu.Unlock()
	if !ok {
		return
	}
	msg := actionError(a).Error()
	if again {
		msg += "; applying the Service again"
	}
	l.event(last.svc, corev1.EventTypeWarning, eventLBActionFailed, msg)
	if !again {
		return
	}
	go func() {
		defer l.store.lock(uid)()
		l.mu.Lock()
		last, ok := l.last[uid] // the newest, read under the lock
		l.mu.Unlock()
		if !ok {
			return // deleted meanwhile
		}
		if _, err := l.syncLocked(ctx, last.svc, last.nodes, false); err != nil {
			klog.ErrorS(err, "Re-applying a Service after a failed action", "service", klog.KObj(last.svc))
		}
	}()
}
