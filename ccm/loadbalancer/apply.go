package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cloud-provider/api"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/internal/actionwatch"
)

// apply sends steps in order, each after the load balancer's previous
// action; while one runs, the rest is handed off to its end. A target the
// API rejects is reported and skipped.
func (l *Manager) apply(ctx context.Context, svc *corev1.Service, lb *hcloud.LoadBalancer, steps []lbStep) error {
	uid := string(svc.UID)
	for _, st := range steps {
		if l.actions.Busy(lb.ID) && l.handOff(uid, lb.ID) {
			return nil
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
			return fmt.Errorf("%s on load balancer %s: %w", st, lb.Name, actionwatch.Error(a))
		}
		klog.V(2).InfoS("Changed load balancer", "service", klog.KObj(svc), "loadBalancer", lb.Name, "change", st.String())
		l.actions.Started(uid, lb.ID, a)
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
func (l *Manager) reread(ctx context.Context, uid string, lb *hcloud.LoadBalancer) error {
	if err := l.actions.Settle(ctx, lb.ID, l.actionWait); err != nil {
		l.store.invalidate(uid)
		return err
	}
	fresh, err := getLB(ctx, l.client, lb.ID)
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
	case "add_target", "add_ip_target":
		return hcloud.IsError(err, hcloud.ErrorCodeTargetAlreadyDefined)
	case "remove_target", "remove_ip_target", "delete_service":
		// The API documents no code for a target already gone;
		// fakecloud answers target_not_found, not_found is as good.
		return hcloud.IsError(err, hcloud.ErrorCodeNotFound, "target_not_found")
	}
	return false
}

// rejected is a target the API will not take, such as a deleted server
// or one outside the network.
func rejected(st lbStep, err error) bool {
	return (st.Kind == "add_target" || st.Kind == "add_ip_target") && (targetError(err) || hcloud.IsError(err, hcloud.ErrorCodeNotFound,
		hcloud.ErrorCodeResourceLimitExceeded, hcloud.ErrorCodeCloudResourceIPNotAllowed, "load_balancer_public_interface_disabled",
		"ip_not_owned", "ip_not_assigned_to_server", "load_balancer_not_attached_to_network", "network_has_no_vswitch_subnet", "ip_not_in_vswitch_subnet"))
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
