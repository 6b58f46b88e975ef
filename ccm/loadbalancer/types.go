package loadbalancer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"k8s.io/klog/v2"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// typesMaxAge is how long a listing of the load balancer types answers,
// as long as the official CCM keeps its own: a type is deprecated while
// load balancers use it.
const typesMaxAge = time.Hour

// lbTypes are the load balancer types by name.
type lbTypes map[string]*hcloud.LoadBalancerType

// loadTypes lists the types at most once per typesMaxAge, however many
// syncs ask at once. When a new listing fails, the last one answers until
// one succeeds.
func (s *lbStore) loadTypes(ctx context.Context) (lbTypes, error) {
	s.typesMu.Lock()
	defer s.typesMu.Unlock()
	s.mu.Lock()
	t, at := s.types, s.typesAt
	s.mu.Unlock()
	fresh := t != nil && s.now().Sub(at) < typesMaxAge
	if s.typesCounted != nil {
		s.typesCounted(fresh)
	}
	if fresh {
		return t, nil
	}
	started := s.now()
	all, err := s.client.LoadBalancerType.All(ctx)
	if err != nil {
		if t != nil {
			klog.V(2).InfoS("Listing the load balancer types failed; the last listing answers meanwhile", "listedAt", at, "err", err)
			return t, nil
		}
		return nil, err
	}
	t = lbTypes{}
	for _, lt := range all {
		t[lt.Name] = lt
	}
	s.mu.Lock()
	s.types, s.typesAt = t, started
	s.mu.Unlock()
	return t, nil
}

// bigger reports whether type want is larger than have.
func (t lbTypes) bigger(want, have string) bool {
	w, h := t[want], t[have]
	if w == nil || h == nil {
		return false
	}
	if w.MaxConnections != h.MaxConnections {
		return w.MaxConnections > h.MaxConnections
	}
	return w.MaxTargets > h.MaxTargets
}

// maxTargets is the type's target limit; 0 when the type is unknown.
func (t lbTypes) maxTargets(name string) int {
	if lt := t[name]; lt != nil {
		return lt.MaxTargets
	}
	return 0
}

// orderable are the names of the types that can be ordered at now, sorted.
func (t lbTypes) orderable(now time.Time) []string {
	var out []string
	for name, lt := range t {
		if !unavailable(lt, now) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// unavailable reports whether a deprecated type can no longer be ordered
// at now (after its unavailable_after).
func unavailable(lt *hcloud.LoadBalancerType, now time.Time) bool {
	return lt != nil && lt.IsDeprecated() && now.After(lt.UnavailableAfter())
}

// unconfiguredMessage is the official CCM's warning, word for word, for a
// Service whose type neither the annotation nor the variable sets.
var unconfiguredMessage = fmt.Sprintf("Load Balancer Type unconfigured: this will be required in the future, set it with the annotation %q or cluster-wide with the environment variable %q",
	annotation.Type, "HCLOUD_LOAD_BALANCERS_TYPE")

// typeNotices are the warnings about the types a sync meets: the type
// unconfigured (LoadBalancerTypeUnconfigured), the wanted type or the
// load balancer's deprecated (LoadBalancerTypeDeprecated), as the
// official CCM gives them. A type that can no longer be ordered is
// refused where it would be ordered: for a new load balancer (have nil)
// the error says so; for an upgrade, want no longer changes the type.
// Unlike the official CCM, a load balancer that already has such a type
// goes on with it, with the warning.
func typeNotices(o annotation.Options, want *lbSpec, have *hcloud.LoadBalancer, types lbTypes, now time.Time) ([]lbNotice, error) {
	var notices []lbNotice
	if !o.TypeConfigured {
		notices = append(notices, lbNotice{Reason: eventTypeUnconfigured, Message: unconfiguredMessage})
	}
	choose := fmt.Sprintf("set one of %s with the annotation %s or HCLOUD_LOAD_BALANCERS_TYPE", strings.Join(types.orderable(now), ", "), annotation.Type)
	current := ""
	if have != nil && have.LoadBalancerType != nil {
		current = have.LoadBalancerType.Name
	}
	wanted := types[want.Type]
	switch {
	case unavailable(wanted, now) && have == nil:
		msg := unavailableMessage(wanted) + ": " + choose
		return append(notices, lbNotice{Reason: eventTypeUnavailable, Message: msg}), fmt.Errorf("%s", msg)
	case unavailable(wanted, now) && want.ChangeType && current != "" && types.bigger(want.Type, current):
		want.ChangeType = false
		notices = append(notices, lbNotice{Reason: eventTypeUnavailable, Message: fmt.Sprintf("%s: load balancer %s keeps type %s; %s",
			unavailableMessage(wanted), have.Name, current, choose)})
	default:
		notices = append(notices, deprecationNotice(wanted, now, choose)...)
	}
	if current != "" && current != want.Type {
		lt := types[current]
		if lt == nil {
			lt = have.LoadBalancerType
		}
		notices = append(notices, deprecationNotice(lt, now, choose)...)
	}
	return notices, nil
}

// deprecationNotice is the warning for a deprecated type: the official
// CCM's while it can still be ordered; after, that it can no longer be,
// and how to choose another.
func deprecationNotice(lt *hcloud.LoadBalancerType, now time.Time, choose string) []lbNotice {
	switch {
	case lt == nil || !lt.IsDeprecated():
		return nil
	case unavailable(lt, now):
		return []lbNotice{{Reason: eventTypeDeprecated, Message: fmt.Sprintf(
			"%s: load balancers of the type go on, but no new one can be made with it; %s", unavailableMessage(lt), choose)}}
	}
	return []lbNotice{{Reason: eventTypeDeprecated, Message: fmt.Sprintf(
		"Load Balancer Type %q is deprecated and will no longer be available for order as of %s", lt.Name, lt.UnavailableAfter().Format(time.DateOnly))}}
}

// unavailableMessage is the official CCM's error for a type past its
// unavailable_after.
func unavailableMessage(lt *hcloud.LoadBalancerType) string {
	return fmt.Sprintf("Load Balancer Type %q is unavailable and can no longer be ordered", lt.Name)
}
