package world

import (
	"fmt"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// A load balancer type can be deprecated (the event
// deprecate_load_balancer_type), as the API announces it for server
// types: listed with its deprecation, and refused for new orders after
// unavailable_after, while the load balancers of the type go on.

// deprecateLBType applies a deprecate_load_balancer_type event.
func (w *project) deprecateLBType(e Event) error {
	announced := e.Announced
	if announced.IsZero() {
		announced = w.Now()
	}
	if e.UnavailableAfter.Before(announced) {
		return fmt.Errorf("unavailable_after: %s is before announced %s", e.UnavailableAfter.Format(time.RFC3339), announced.Format(time.RFC3339))
	}
	d := &schema.DeprecationInfo{Announced: announced.UTC().Truncate(time.Second), UnavailableAfter: e.UnavailableAfter.UTC().Truncate(time.Second)}
	if _, ok := w.Cat.DeprecateLBType(e.LoadBalancerType, d); !ok {
		return fmt.Errorf("load_balancer_type: no load balancer type is %q", e.LoadBalancerType)
	}
	return nil
}

// lbTypeOrderable refuses a type whose unavailable_after has passed: a
// create answers invalid_input, a change_type invalid_load_balancer_type,
// the readings fakecloud takes from the live API's answers for server
// types (server_orders.go), as it records none for load balancer types.
func (w *project) lbTypeOrderable(lt schema.LoadBalancerType, change bool) *apierr.Error {
	if d := lt.Deprecation; d == nil || w.Now().Before(d.UnavailableAfter) {
		return nil
	}
	if change {
		return apierr.Errorf("invalid_load_balancer_type", "load balancer type %s is deprecated", lt.Name)
	}
	return apierr.Errorf(apierr.CodeInvalidInput, "load balancer type %d is deprecated", lt.ID)
}

// lbTypeNow is a load balancer's type as the catalogue has it now: the
// stored copy, with the deprecation announced since.
func (w *project) lbTypeNow(lt schema.LoadBalancerType) schema.LoadBalancerType {
	if now, ok := w.Cat.LBType(fmt.Sprint(lt.ID)); ok {
		lt.Deprecation = now.Deprecation
	}
	return lt
}
