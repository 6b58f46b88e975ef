package ccm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"
)

// loadBalancers turns LoadBalancer Services into Hetzner load balancers:
// each sync computes the desired load balancer (desiredLB), compares it
// with the known one (lbPlan) and sends only the differences.
type loadBalancers struct {
	client      *hcloud.Client
	defaults    LoadBalancerDefaults
	networkID   int64
	networkZone string
	store       *lbStore
	actions     *actionTracker
	certs       *certs
	recorder    record.EventRecorder
	// actionWait bounds how long a sync waits for an earlier action on the
	// same load balancer before it returns an api.RetryError.
	actionWait time.Duration

	mu        sync.Mutex
	last      map[string]lastSync  // by Service UID: what to re-apply when an action fails
	reapplied map[string]time.Time // when it last was
	ctx       context.Context      // the provider's lifetime, for re-applying
}

type lastSync struct {
	svc   *corev1.Service
	nodes []*corev1.Node
}

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

func newLoadBalancers(client *hcloud.Client, cfg Config, networkZone string, now func() time.Time) *loadBalancers {
	l := &loadBalancers{client: client, defaults: cfg.LoadBalancers, networkID: cfg.NetworkID, networkZone: networkZone,
		store: newLBStore(client, now, cfg.InventoryMaxAge), actions: newActionTracker(client),
		certs: newCerts(client, now, cfg.InventoryMaxAge), actionWait: 5 * time.Second,
		last: map[string]lastSync{}, reapplied: map[string]time.Time{}, ctx: context.Background()}
	l.actions.onFail = l.actionFailed
	return l
}

// GetLoadBalancerName is the name annotation, else the official default.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *corev1.Service) string {
	if n := strings.TrimSpace(svc.Annotations[annotationPrefix+"name"]); n != "" {
		return n
	}
	return defaultLBName(svc)
}

// GetLoadBalancer finds the load balancer by its label. A miss is checked
// with the API, since the service controller deletes only what exists.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, svc *corev1.Service) (*corev1.LoadBalancerStatus, bool, error) {
	uid := string(svc.UID)
	defer l.store.lock(uid)()
	lb, err := l.store.get(ctx, uid)
	if err != nil {
		return nil, false, err
	}
	if lb == nil {
		if lb, err = l.byLabel(ctx, uid); err != nil || lb == nil {
			return nil, false, err
		}
		l.store.put(uid, lb)
	}
	o, _ := parseLBOptions(svc, l.defaults) // bad annotations: the status with what parsed
	return lbStatus(lb, o), true, nil
}

func (l *loadBalancers) byLabel(ctx context.Context, uid string) (*hcloud.LoadBalancer, error) {
	all, err := l.client.LoadBalancer.AllWithOpts(ctx, hcloud.LoadBalancerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + uid}})
	if err != nil || len(all) == 0 {
		return nil, err
	}
	if len(all) > 1 {
		return nil, fmt.Errorf("%d load balancers carry the label %s=%s; remove it from all but one", len(all), uidLabel, uid)
	}
	return all[0], nil
}

// EnsureLoadBalancer creates or updates the Service's load balancer.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, _ string, svc *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	return l.sync(ctx, svc, nodes, true)
}

// UpdateLoadBalancer updates the targets, and whatever else differs, of an
// existing load balancer; without one it does nothing, as upstream.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *corev1.Service, nodes []*corev1.Node) error {
	_, err := l.sync(ctx, svc, nodes, false)
	return err
}

func (l *loadBalancers) sync(ctx context.Context, svc *corev1.Service, nodes []*corev1.Node, create bool) (*corev1.LoadBalancerStatus, error) {
	uid := string(svc.UID)
	defer l.store.lock(uid)()
	l.mu.Lock()
	l.last[uid] = lastSync{svc: svc, nodes: nodes}
	l.mu.Unlock()
	return l.syncLocked(ctx, svc, nodes, create)
}

// syncLocked is a sync under the Service's lock.
func (l *loadBalancers) syncLocked(ctx context.Context, svc *corev1.Service, nodes []*corev1.Node, create bool) (*corev1.LoadBalancerStatus, error) {
	o, err := parseLBOptions(svc, l.defaults)
	if err != nil {
		return nil, l.badConfig(svc, err)
	}
	l.unsupported(svc)
	types, err := l.store.loadTypes(ctx)
	if err != nil {
		return nil, err
	}
	if types[o.Type] == nil {
		return nil, l.badConfig(svc, &annotationError{"type", o.Type, "one of " + strings.Join(slices.Sorted(maps.Keys(types)), ", ")})
	}
	certIDs, err := l.certs.resolve(ctx, svc, o)
	if err != nil {
		return nil, l.badConfig(svc, err)
	}
	want, notices, err := desiredLB(svc, o, nodes, lbEnv{NetworkID: l.networkID, NetworkZone: l.networkZone, CertIDs: certIDs})
	if err != nil {
		return nil, l.badConfig(svc, err)
	}
	lb, err := l.store.get(ctx, string(svc.UID))
	if err != nil {
		return nil, err
	}
	if lb == nil {
		if !create {
			l.notify(svc, notices)
			return nil, nil
		}
		if want.Location == "" && want.NetworkZone == "" {
			return nil, l.badConfig(svc, &annotationError{"location", "", "a location such as fsn1 (or network-zone, HCLOUD_LOAD_BALANCERS_LOCATION or HCLOUD_NETWORK)"})
		}
		l.notify(svc, append(notices, limitTargets(svc, &want, nil, types.maxTargets(want.Type))...))
		if lb, err = l.create(ctx, svc, want); err != nil {
			return nil, err
		}
	} else {
		l.notify(svc, append(notices, limitTargets(svc, &want, lb.Targets, types.maxTargets(typeAfter(want, lb, types)))...))
	}
	steps, notices := lbPlan(want, lb, types)
	l.notify(svc, notices)
	if err := l.apply(ctx, svc, lb, steps); err != nil {
		return nil, err
	}
	return lbStatus(lb, o), nil
}

// typeAfter is the type lb will have once want is applied: types only grow.
func typeAfter(want lbSpec, lb *hcloud.LoadBalancer, types lbTypes) string {
	if lb.LoadBalancerType == nil || (want.ChangeType && types.bigger(want.Type, lb.LoadBalancerType.Name)) {
		return want.Type
	}
	return lb.LoadBalancerType.Name
}

// unsupported reports annotations of the official CCM this one does not act on.
func (l *loadBalancers) unsupported(svc *corev1.Service) {
	for _, name := range []string{"public-net-ipv4", "public-net-ipv6"} {
		if v, ok := svc.Annotations[annotationPrefix+name]; ok {
			l.event(svc, corev1.EventTypeWarning, eventBadAnnotation, fmt.Sprintf(
				"annotation %s%s=%q is not supported by this CCM and is ignored: the load balancer gets its own addresses", annotationPrefix, name, v))
		}
	}
}

// create sends one POST with everything inline. A name that is taken is
// the load balancer to adopt; an answer that never came is looked for by
// label before the next attempt, so no duplicate is made.
func (l *loadBalancers) create(ctx context.Context, svc *corev1.Service, want lbSpec) (*hcloud.LoadBalancer, error) {
	opts := createOpts(want)
	res, _, err := l.client.LoadBalancer.Create(ctx, opts)
	if err != nil && len(opts.Targets) > 0 && targetError(err) {
		// A node the API will not take: create without targets, then add
		// them one by one, so the others are not held back.
		opts.Targets = nil
		res, _, err = l.client.LoadBalancer.Create(ctx, opts)
	}
	if err == nil {
		l.store.put(want.UID, res.LoadBalancer)
		l.actions.started(want.UID, res.LoadBalancer.ID, res.Action)
		l.event(svc, corev1.EventTypeNormal, "CreatedLoadBalancer", fmt.Sprintf("Created load balancer %s (ID %d)", want.Name, res.LoadBalancer.ID))
		return res.LoadBalancer, nil
	}
	if !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		l.store.invalidate(want.UID)
		return nil, fmt.Errorf("creating load balancer %s: %w", want.Name, err)
	}
	lb, _, gerr := l.client.LoadBalancer.GetByName(ctx, want.Name)
	if gerr != nil || lb == nil {
		return nil, fmt.Errorf("creating load balancer %s: %w", want.Name, errors.Join(err, gerr))
	}
	if owner := lb.Labels[uidLabel]; owner != "" && owner != want.UID {
		err := fmt.Errorf("load balancer %s belongs to the Service with UID %s; choose another name with the annotation %sname", want.Name, owner, annotationPrefix)
		l.event(svc, corev1.EventTypeWarning, "LoadBalancerNameTaken", err.Error())
		return nil, err
	}
	l.event(svc, corev1.EventTypeNormal, "AdoptedLoadBalancer", fmt.Sprintf("Adopted the existing load balancer %s (ID %d) by its name", lb.Name, lb.ID))
	l.store.put(want.UID, lb)
	return lb, nil
}

// apply sends steps in order, each after the load balancer's previous
// action. A target the API rejects is reported and skipped.
func (l *loadBalancers) apply(ctx context.Context, svc *corev1.Service, lb *hcloud.LoadBalancer, steps []lbStep) error {
	uid := string(svc.UID)
	for _, st := range steps {
		if err := l.actions.settle(ctx, lb.ID, l.actionWait); err != nil {
			if !isRetry(err) {
				l.store.invalidate(uid)
			}
			return err
		}
		a, updated, err := send(ctx, l.client, lb, st)
		switch {
		case err == nil:
		case tolerated(st, err):
			l.store.invalidate(uid) // not as the CCM thought: the next sync reads it again
			continue
		case rejected(st, err):
			l.store.invalidate(uid)
			l.rejectedTarget(svc, st, err)
			continue
		case busy(err):
			return retryBusy(lb, err)
		default:
			l.store.invalidate(uid)
			return fmt.Errorf("%s on load balancer %s: %w", st, lb.Name, err)
		}
		if a != nil && a.Status == hcloud.ActionStatusError {
			l.store.invalidate(uid) // the API undid it
			return fmt.Errorf("%s on load balancer %s: %w", st, lb.Name, actionError(a))
		}
		klog.V(2).InfoS("Changed load balancer", "service", klog.KObj(svc), "loadBalancer", lb.Name, "change", st.String())
		l.actions.started(uid, lb.ID, a)
		if updated != nil {
			lb.Name, lb.Labels = updated.Name, updated.Labels
		}
		if !commit(lb, st) {
			if err := l.reread(ctx, uid, lb); err != nil {
				return err
			}
		}
		l.store.put(uid, lb)
	}
	return nil
}

// reread replaces lb with the API's view once its action is done.
func (l *loadBalancers) reread(ctx context.Context, uid string, lb *hcloud.LoadBalancer) error {
	if err := l.actions.settle(ctx, lb.ID, l.actionWait); err != nil {
		l.store.invalidate(uid)
		return err
	}
	fresh, _, err := l.client.LoadBalancer.GetByID(ctx, lb.ID)
	if err != nil || fresh == nil {
		l.store.invalidate(uid)
		return fmt.Errorf("reading load balancer %s: %w", lb.Name, errors.Join(err, errors.New("not found")))
	}
	*lb = *fresh
	return nil
}

// tolerated are answers that say the change is already in place.
func tolerated(st lbStep, err error) bool {
	switch st.Kind {
	case "add_target":
		return hcloud.IsError(err, hcloud.ErrorCodeTargetAlreadyDefined)
	case "remove_target", "remove_ip_target", "delete_service":
		return hcloud.IsError(err, hcloud.ErrorCodeNotFound)
	}
	return false
}

// rejected is a target the API will not take, such as a deleted server
// or one outside the network.
func rejected(st lbStep, err error) bool {
	return st.Kind == "add_target" && (targetError(err) || hcloud.IsError(err, hcloud.ErrorCodeNotFound,
		hcloud.ErrorCodeResourceLimitExceeded, hcloud.ErrorCodeCloudResourceIPNotAllowed, "load_balancer_public_interface_disabled"))
}

// targetError is the API refusing a target: one it cannot resolve, or a
// field of the targets (a server that does not exist).
func targetError(err error) bool {
	if hcloud.IsError(err, "resolve_cloud_private_targets_error", "resolve_cloud_public_targets_error") {
		return true
	}
	var herr hcloud.Error
	if !errors.As(err, &herr) || herr.Code != hcloud.ErrorCodeInvalidInput {
		return false
	}
	if d, ok := herr.Details.(hcloud.ErrorDetailsInvalidInput); ok {
		for _, f := range d.Fields {
			if strings.HasPrefix(f.Name, "targets") || strings.HasPrefix(f.Name, "server") {
				return true
			}
		}
	}
	return false
}

func (l *loadBalancers) rejectedTarget(svc *corev1.Service, st lbStep, err error) {
	reason := eventTargetRejected
	if hcloud.IsError(err, hcloud.ErrorCodeResourceLimitExceeded) {
		reason = eventMaxTargets
	}
	l.event(svc, corev1.EventTypeWarning, reason, fmt.Sprintf("Server %d was not added as a target: %v", st.Target.ServerID, err))
}

// busy is the API refusing a change while another runs on the load balancer.
func busy(err error) bool {
	return hcloud.IsError(err, hcloud.ErrorCodeLocked, hcloud.ErrorCodeConflict)
}

func retryBusy(lb *hcloud.LoadBalancer, err error) error {
	return api.NewRetryError(fmt.Sprintf("load balancer %s is busy (%v)", lb.Name, err), time.Second)
}

func isRetry(err error) bool {
	var re *api.RetryError
	return errors.As(err, &re)
}

// EnsureLoadBalancerDeleted deletes only a load balancer found by the
// Service's label, never one found by name, and never a protected one.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *corev1.Service) error {
	uid := string(svc.UID)
	defer l.store.lock(uid)()
	lb, err := l.byLabel(ctx, uid)
	if err != nil {
		return err
	}
	kept := lb != nil && lb.Protection.Delete
	if kept {
		l.event(svc, corev1.EventTypeWarning, eventLBProtected, fmt.Sprintf(
			"Load balancer %s (ID %d) has delete protection and is kept; delete it yourself once you no longer need it", lb.Name, lb.ID))
	} else if lb != nil {
		if err := l.delete(ctx, uid, lb); err != nil {
			return err
		}
		l.actions.forget(lb.ID)
	}
	l.store.put(uid, nil)
	l.mu.Lock()
	delete(l.last, uid)
	l.mu.Unlock()
	if o, err := parseLBOptions(svc, l.defaults); err == nil && o.HTTP.CertificateType == "managed" && !kept {
		if err := l.deleteManagedCert(ctx, svc); err != nil {
			// The certificate is left; it must not keep the Service from going.
			l.event(svc, corev1.EventTypeWarning, eventCertificateNotDeleted, err.Error()+"; delete it in the Hetzner Console")
		}
	}
	return nil
}

func (l *loadBalancers) delete(ctx context.Context, uid string, lb *hcloud.LoadBalancer) error {
	if err := l.actions.settle(ctx, lb.ID, l.actionWait); err != nil && isRetry(err) {
		return err
	}
	_, _, err := l.client.LoadBalancer.DeleteWithResult(ctx, lb)
	switch {
	case err == nil, hcloud.IsError(err, hcloud.ErrorCodeNotFound):
		return nil
	case busy(err):
		return retryBusy(lb, err)
	case hcloud.IsError(err, hcloud.ErrorCodeProtected):
		return nil // protected since it was read: kept
	}
	l.store.invalidate(uid)
	return fmt.Errorf("deleting load balancer %s: %w", lb.Name, err)
}

// deleteManagedCert removes the certificate the CCM created for svc.
func (l *loadBalancers) deleteManagedCert(ctx context.Context, svc *corev1.Service) error {
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

// actionFailed is told of an action that failed after its sync returned:
// the API undid the change, so the Service's latest sync is applied again,
// at most once a minute per Service; beyond that the controller's next
// sync repairs it.
func (l *loadBalancers) actionFailed(uid string, a *hcloud.Action) {
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

// badConfig reports each bad annotation as a Warning event on the Service.
func (l *loadBalancers) badConfig(svc *corev1.Service, err error) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var ae *annotationError
		if errors.As(e, &ae) {
			l.event(svc, corev1.EventTypeWarning, eventBadAnnotation, e.Error())
		}
	}
	return err
}

func (l *loadBalancers) notify(svc *corev1.Service, notices []lbNotice) {
	for _, n := range notices {
		var obj runtime.Object = svc
		if n.Node != nil {
			obj = n.Node
		}
		l.event(obj, corev1.EventTypeWarning, n.Reason, n.Message)
	}
}

func (l *loadBalancers) event(obj runtime.Object, eventType, reason, msg string) {
	if l.recorder != nil {
		l.recorder.Event(obj, eventType, reason, msg)
	}
}
