package loadbalancer

import (
	"context"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// syncExternal serves a Service whose load balancer is managed elsewhere
// (externally-managed): it finds the load balancer by name, never creates,
// labels or changes it, and reports its addresses; with manage-targets it
// keeps its server and ip targets those of the Service's nodes.
func (l *Manager) syncExternal(ctx context.Context, svc *corev1.Service, o annotation.Options, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	uid := string(svc.UID)
	lb, err := l.external(ctx, svc, o)
	if err != nil || lb == nil {
		return nil, err
	}
	if o.ManageTargets {
		types, err := l.store.loadTypes(ctx)
		if err != nil {
			return nil, err
		}
		want := lbSpec{UID: uid}
		var notices []lbNotice
		want.Targets, want.TargetNodes, notices = desiredTargets(svc, o, nodes, lbEnv{Robot: l.robot, InstancesFamily: l.instancesFamily})
		max := 0
		if lb.LoadBalancerType != nil {
			max = types.maxTargets(lb.LoadBalancerType.Name)
		}
		l.notify(svc, append(notices, limitTargets(svc, &want, lb.Targets, max)...))
		err = l.apply(ctx, svc, lb, targetSteps(want.Targets, lb.Targets))
		l.store.put(uid, nil) // apply keeps what it changed as the Service's own: this one is not
		if err != nil {
			l.store.forgetName(o.Name)
			return nil, err
		}
	}
	return lbStatus(lb, o), nil
}

// external is the load balancer an externally managed Service names, or
// nil with an error and a Warning event when there is none or another
// Service's load balancer has the name.
func (l *Manager) external(ctx context.Context, svc *corev1.Service, o annotation.Options) (*hcloud.LoadBalancer, error) {
	lb, err := l.store.byName(ctx, o.Name)
	if err != nil {
		return nil, err
	}
	if lb == nil {
		err := fmt.Errorf("no load balancer is named %s (annotation %s): an externally managed one is never created; create it, or correct the name", o.Name, annotation.Name)
		l.event(svc, corev1.EventTypeWarning, eventLBNotFound, err.Error())
		return nil, err
	}
	if owner := lb.Labels[uidLabel]; owner != "" && owner != string(svc.UID) {
		err := fmt.Errorf("load balancer %s belongs to the Service with UID %s; an externally managed Service names one that no Service owns", lb.Name, owner)
		l.event(svc, corev1.EventTypeWarning, "LoadBalancerNameTaken", err.Error())
		return nil, err
	}
	return lb, nil
}
