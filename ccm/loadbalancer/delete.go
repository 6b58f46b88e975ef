package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/internal/actionwatch"
)

// EnsureLoadBalancerDeleted deletes only the Service's own load balancer
// (the one the CCM keeps for it, else one found by its label), never one
// found by name, and never a protected one. One the Service asks to
// retain, and a protected one, are released instead; an externally
// managed one is not touched.
func (l *Manager) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *corev1.Service) error {
	uid := string(svc.UID)
	defer l.store.lock(uid)()
	if asked(svc, annotation.ExternallyManaged) {
		l.forget(uid, nil)
		return nil
	}
	// The load balancer the CCM keeps for the Service needs no request to
	// find (deleting it by ID is safe: gone already answers not found);
	// without one, the label listing makes sure none is left behind. One
	// deleted by an earlier try needs its action awaited only.
	lb := l.store.known(uid)
	if lb == nil && !l.stillDeleting(uid) {
		var err error
		if lb, err = l.byLabel(ctx, uid); err != nil {
			return err
		}
	}
	retain := asked(svc, annotation.RetainOnDelete)
	protected := lb != nil && lb.Protection.Delete && !retain
	switch {
	case retain && lb != nil:
		if err := l.release(ctx, lb); err != nil {
			return err
		}
		l.retained(svc, lb)
	case !protected && lb != nil:
		err := l.delete(ctx, uid, lb)
		switch {
		case errors.Is(err, errProtected):
			protected = true
		case err != nil:
			return err
		}
	}
	kept := retain && lb != nil || protected
	if protected {
		// Released as a retained one is, so a Service of its name
		// recreated under a new UID adopts it.
		if err := l.release(ctx, lb); err != nil {
			if passing(err) {
				return err
			}
			klog.ErrorS(err, "The protected load balancer keeps the CCM's labels", "service", klog.KObj(svc))
		}
	}
	if err := l.awaitDeleted(ctx, svc); err != nil {
		return err
	}
	if protected {
		l.event(svc, corev1.EventTypeWarning, eventLBProtected, fmt.Sprintf(
			"Load balancer %s (ID %d) has delete protection and is kept, without the CCM's labels: delete it yourself once you no longer need it, "+
				"or a Service with the annotation %s: %s adopts it", lb.Name, lb.ID, annotation.Name, lb.Name))
	}
	l.forget(uid, lb)
	o, err := annotation.Parse(svc, l.defaults)
	if err != nil {
		return nil
	}
	// Certificates uploaded from Secrets no other Service names go with
	// the load balancer; a kept one still serves them.
	if _, dropped := l.moveSecrets(uid, secretKeys(svc, o), nil); len(dropped) > 0 && !kept {
		if err := l.certs.cleanOldSecretCerts(ctx, dropped, true); err != nil && passing(err) {
			return err
		}
	}
	l.certs.forgetGone(uid)
	if !o.WantsManaged() {
		return nil
	}
	if kept || retain {
		err = l.releaseManagedCert(ctx, svc)
	} else {
		err = l.deleteManagedCert(ctx, svc)
	}
	if err != nil {
		if passing(err) {
			// The Service keeps its finalizer, and the controller tries
			// again with back-off: the load balancer is done with already,
			// so the next try costs the label listing and the change.
			return err
		}
		// A refusal that lasts must not keep the Service from going.
		l.event(svc, corev1.EventTypeWarning, eventCertificateNotDeleted, err.Error()+"; change it in the Hetzner Console")
	}
	return nil
}

// forget drops what the Manager holds for the Service uid and its load
// balancer lb (nil: none).
func (l *Manager) forget(uid string, lb *hcloud.LoadBalancer) {
	l.store.put(uid, nil)
	l.health.drop(uid)
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.last, uid)
	delete(l.failures, uid)
	delete(l.warned, uid)
	if t := l.pending[uid]; t != nil {
		t.Stop()
		delete(l.pending, uid)
	}
	if lb != nil {
		delete(l.waiting, lb.ID)
	}
}

// asked reports whether svc sets the boolean annotation name: any value
// but false counts, so a mistyped value never deletes what was to stay.
func asked(svc *corev1.Service, name annotation.Key) bool {
	v, ok := svc.Annotations[string(name)]
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	return err != nil || b
}

// managedCertLeft reports whether a Service that no longer wants a load
// balancer (deleted, no longer of type LoadBalancer, or given to another
// class) still has the managed certificate the CCM created for it.
func (l *Manager) managedCertLeft(ctx context.Context, svc *corev1.Service) (bool, error) {
	if svc.DeletionTimestamp == nil && svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil {
		return false, nil
	}
	if o, err := annotation.Parse(svc, l.defaults); err != nil || !o.WantsManaged() {
		return false, nil
	}
	found, err := l.client.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{
		ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + string(svc.UID)}})
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(found, func(c *hcloud.Certificate) bool { return c.Type == hcloud.CertificateTypeManaged }), nil
}

// passing reports whether an error is one that passes on its own: no
// answer, or the API failing, limiting, or busy, rather than refusing.
func passing(err error) bool {
	var herr hcloud.Error
	if !errors.As(err, &herr) {
		return true
	}
	return hcloud.IsError(err, hcloud.ErrorCodeServerError, "unavailable", hcloud.ErrorCodeRateLimitExceeded,
		hcloud.ErrorCodeTimeout, hcloud.ErrorCodeConflict, hcloud.ErrorCodeLocked, hcloud.ErrorCodeBadGateway)
}

// errProtected is delete's answer for a load balancer the API refused to
// delete for its protection.
var errProtected = errors.New("load balancer has delete protection")

func (l *Manager) delete(ctx context.Context, uid string, lb *hcloud.LoadBalancer) error {
	if err := l.actions.SettleOn(ctx, lb.ID, l.actionWait, actionwatch.LazyPollAt); err != nil && isRetry(err) {
		return err
	}
	res, _, err := l.client.LoadBalancer.DeleteWithResult(ctx, lb)
	switch {
	case err == nil:
		return l.deleted(uid, lb, res.Action)
	case hcloud.IsError(err, hcloud.ErrorCodeNotFound):
		l.actions.Forget(lb.ID)
		return nil
	case busy(err):
		return retryBusy(lb, err)
	case hcloud.IsError(err, hcloud.ErrorCodeProtected):
		return errProtected // protected since it was read: kept
	}
	l.store.invalidate(uid)
	return fmt.Errorf("deleting load balancer %s: %w", lb.Name, err)
}

// deleteManagedCert removes the certificate the CCM created for svc.
func (l *Manager) deleteManagedCert(ctx context.Context, svc *corev1.Service) error {
	found, err := l.client.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{
		ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + string(svc.UID)}})
	if err != nil {
		return err
	}
	for _, c := range found {
		if c.Type != hcloud.CertificateTypeManaged {
			continue
		}
		if _, err := l.client.Certificate.Delete(ctx, c); err != nil && !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
			return fmt.Errorf("deleting managed certificate %s: %w", c.Name, err)
		}
	}
	l.certs.forget(string(svc.UID))
	return nil
}
