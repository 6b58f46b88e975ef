package loadbalancer

import (
	"context"
	"errors"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// create sends one POST with everything inline. A name that is taken is
// the load balancer to adopt, unless its label names another Service that
// exists (or may: no ServiceUIDs); an answer that never came is looked
// for by label before the next attempt, so no duplicate is made. Primary IPs the
// API refuses are an InvalidAnnotation event; an assigned one may be held
// by the load balancer of that name (one retained), which is adopted.
func (l *Manager) create(ctx context.Context, svc *corev1.Service, want lbSpec) (*hcloud.LoadBalancer, error) {
	opts := createOpts(want)
	res, _, err := l.client.LoadBalancer.Create(ctx, opts)
	if err != nil && len(opts.Targets) > 0 && targetError(err) {
		// A node the API will not take: create without targets, then add
		// them one by one, so the others are not held back.
		opts.Targets = nil
		res, _, err = l.client.LoadBalancer.Create(ctx, opts)
	}
	if err == nil {
		l.recreated(want.UID)
		l.store.put(want.UID, res.LoadBalancer)
		l.actions.Started(want.UID, res.LoadBalancer.ID, res.Action)
		l.event(svc, corev1.EventTypeNormal, "CreatedLoadBalancer", fmt.Sprintf("Created load balancer %s (ID %d)", want.Name, res.LoadBalancer.ID))
		return res.LoadBalancer, nil
	}
	refused := want.onPrimaryIPs() && publicNetRefused(err)
	if !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) && !(refused && hcloud.IsError(err, "primary_ip_assigned")) {
		l.store.invalidate(want.UID)
		if refused {
			l.event(svc, corev1.EventTypeWarning, eventBadAnnotation, publicNetRefusal(want, err))
		}
		return nil, fmt.Errorf("creating load balancer %s: %w", want.Name, err)
	}
	lb, gerr := lbByName(ctx, l.client, want.Name)
	if gerr != nil || lb == nil {
		if refused && gerr == nil {
			l.event(svc, corev1.EventTypeWarning, eventBadAnnotation, publicNetRefusal(want, err))
		}
		return nil, fmt.Errorf("creating load balancer %s: %w", want.Name, errors.Join(err, gerr))
	}
	adopted := fmt.Sprintf("Adopted the existing load balancer %s (ID %d) by its name", lb.Name, lb.ID)
	if owner := lb.Labels[uidLabel]; owner != "" && owner != want.UID {
		stale, err := l.staleOwner(ctx, owner)
		if err != nil {
			return nil, fmt.Errorf("creating load balancer %s: %w", want.Name, err)
		}
		if !stale {
			err := fmt.Errorf("load balancer %s belongs to the Service with UID %s; choose another name with the annotation %s", want.Name, owner, annotation.Name)
			l.event(svc, corev1.EventTypeWarning, "LoadBalancerNameTaken", err.Error())
			return nil, err
		}
		adopted += fmt.Sprintf("; its label %s named %s, which no Service of the cluster has", uidLabel, owner)
	}
	l.event(svc, corev1.EventTypeNormal, "AdoptedLoadBalancer", adopted)
	l.recreated(want.UID)
	l.store.put(want.UID, lb)
	return lb, nil
}
