package loadbalancer

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
)

// Target health reaches Kubernetes from the listing of the labelled load
// balancers the syncs already use (lbStore): every read of it carries each
// target's health per port, so the health costs no request of its own.
// Between syncs the listing is read again once per health interval while
// a load balancer Service exists (one request per 50 load balancers); a
// sync's listing younger than that serves the health too, and the health
// loop's serves the syncs.

// Event reasons of target health.
const (
	eventTargetsUnhealthy = "LoadBalancerTargetsUnhealthy"
	eventTargetsHealthy   = "LoadBalancerTargetsHealthy"
)

// patchTimeout bounds one write of a Service's condition.
const patchTimeout = 10 * time.Second

// healthState is the last health read of each Service's load balancer
// and the condition last written, by Service UID: only Services the
// Manager serves, dropped when the Service goes, so the metrics' labels
// stay bounded.
type healthState struct {
	mu    sync.Mutex
	byUID map[string]*serviceHealth
}

type serviceHealth struct {
	namespace, name string
	health          Health
	cond            *metav1.Condition // last written; nil: none yet
	unhealthy       []string          // the unhealthy targets when it was written
	unwritten       bool              // cond is not yet in the Service's status
	read            bool              // health was read
	traffic         traffic           // the traffic figures last read (traffic.go)
}

func newHealthState() *healthState { return &healthState{byUID: map[string]*serviceHealth{}} }

func (s *healthState) drop(uid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byUID, uid)
}

// keepOnly drops every Service but those in uids.
func (s *healthState) keepOnly(uids map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for uid := range s.byUID {
		if !uids[uid] {
			delete(s.byUID, uid)
		}
	}
}

// HealthOptions say how target health reaches Kubernetes.
type HealthOptions struct {
	// Services writes each Service's condition (the status subresource);
	// nil: metrics and events only.
	Services typedcorev1.ServicesGetter
	// Interval is how often the health is read; 0 turns it off.
	Interval time.Duration
}

// StartHealth reads the load balancers' target health every interval
// until ctx ends, and reports it on each Service: its condition, an
// event when it turns unhealthy and back, and the metrics.
func (l *Manager) StartHealth(ctx context.Context, o HealthOptions) {
	if o.Interval <= 0 {
		return
	}
	l.mu.Lock()
	l.healthOpts = o
	l.mu.Unlock()
	go func() {
		t := time.NewTicker(o.Interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := l.readHealth(ctx); err != nil && ctx.Err() == nil {
					klog.ErrorS(err, "Reading the load balancers' target health; trying again at the next interval")
				}
			}
		}
	}()
}

// readHealth reads every served Service's load balancer's target health
// from a listing no older than nine tenths of the interval (the ticker
// comes a little before a full interval has passed since the last
// listing began), and reports it.
func (l *Manager) readHealth(ctx context.Context) error {
	l.mu.Lock()
	served := make(map[string]lastSync, len(l.last))
	for uid, s := range l.last {
		served[uid] = s
	}
	interval := l.healthOpts.Interval
	l.mu.Unlock()
	uids := map[string]bool{}
	for uid := range served {
		uids[uid] = true
	}
	l.health.keepOnly(uids)
	if len(served) == 0 {
		return nil // nothing to read: no request
	}
	if err := l.store.ensureListedWithin(ctx, interval-interval/10); err != nil {
		return err
	}
	for uid, s := range served {
		unlock := l.store.lock(uid)
		lb := l.store.current(uid)
		var h Health
		if lb != nil {
			h = ReadHealth(lb, s.nodes) // under the lock: a sync changes lb in place
		}
		unlock()
		if lb == nil {
			l.health.drop(uid) // no load balancer (yet), or an externally managed one
			continue
		}
		l.reportHealth(ctx, uid, s.svc, h)
	}
	return nil
}

// reportHealth writes the Service's condition when it changed, with a
// Warning event when a target turned unhealthy and a Normal one when all
// are healthy again.
func (l *Manager) reportHealth(ctx context.Context, uid string, svc *corev1.Service, h Health) {
	status, reason, msg := h.Condition()
	unhealthy := h.UnhealthyNodes()
	l.health.mu.Lock()
	sh := l.health.byUID[uid]
	if sh == nil {
		sh = &serviceHealth{namespace: svc.Namespace, name: svc.Name}
		if c := findCondition(svc.Status.Conditions); c != nil {
			sh.cond = c // written before, by this process or another
		}
		l.health.byUID[uid] = sh
	}
	sh.health, sh.read = h, true
	prev, prevUnhealthy := sh.cond, sh.unhealthy
	same := prev != nil && prev.Status == status && prev.Reason == reason && prev.Message == msg
	if same && !sh.unwritten {
		l.health.mu.Unlock()
		return
	}
	cond := metav1.Condition{Type: ConditionTargetsHealthy, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: svc.Generation, LastTransitionTime: metav1.NewTime(l.now())}
	if prev != nil && prev.Status == status {
		cond.LastTransitionTime = prev.LastTransitionTime
	}
	sh.cond, sh.unhealthy, sh.unwritten = &cond, unhealthy, true
	l.health.mu.Unlock()

	if !same {
		wasFalse := prev != nil && prev.Status == metav1.ConditionFalse &&
			(prev.Reason == ReasonSomeTargetsUnhealthy || prev.Reason == ReasonNoHealthyTarget)
		switch {
		case len(unhealthy) > 0 && (!wasFalse || slices.ContainsFunc(unhealthy, func(n string) bool { return !slices.Contains(prevUnhealthy, n) })):
			l.event(svc, corev1.EventTypeWarning, eventTargetsUnhealthy, "Load balancer targets unhealthy: "+msg)
		case status == metav1.ConditionTrue && wasFalse:
			l.event(svc, corev1.EventTypeNormal, eventTargetsHealthy, "Load balancer targets healthy again: "+msg)
		}
	}
	if err := l.writeCondition(ctx, svc, cond); err != nil {
		klog.ErrorS(err, "Writing the Service's target health condition; trying again at the next read", "service", klog.KObj(svc))
		return
	}
	l.health.mu.Lock()
	if sh.cond != nil && *sh.cond == cond {
		sh.unwritten = false
	}
	l.health.mu.Unlock()
}

// writeCondition patches the condition into the Service's status
// subresource. A strategic merge patch merges conditions by type, so the
// service controller's status.loadBalancer and other conditions stay.
func (l *Manager) writeCondition(ctx context.Context, svc *corev1.Service, cond metav1.Condition) error {
	l.mu.Lock()
	services := l.healthOpts.Services
	l.mu.Unlock()
	if services == nil {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []metav1.Condition{cond}}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, patchTimeout)
	defer cancel()
	_, err = services.Services(svc.Namespace).Patch(ctx, svc.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("patching the status of Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

func findCondition(conds []metav1.Condition) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == ConditionTargetsHealthy {
			c := conds[i]
			return &c
		}
	}
	return nil
}
