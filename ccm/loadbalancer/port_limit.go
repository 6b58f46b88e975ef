package loadbalancer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// tooManyPorts is a Service that needs more load balancer services (one
// per TCP port, and those keep-other-services keeps) than its type takes
// (max_services): the API would refuse the one past the limit, so the
// sync changes nothing and posts a Warning TooManyPorts.
type tooManyPorts struct {
	need   int
	typ    *hcloud.LoadBalancerType
	bigger []string // the orderable types that take need
}

func (e *tooManyPorts) Error() string {
	fix := "use at most " + fmt.Sprint(e.typ.MaxServices) + " TCP ports"
	if len(e.bigger) > 0 {
		fix = fmt.Sprintf("set %s to a type that takes them (%s), or %s", annotation.Type, strings.Join(e.bigger, ", "), fix)
	}
	return fmt.Sprintf("the Service needs %d load balancer services (one per TCP port), but type %s takes at most %d: nothing is changed; %s",
		e.need, e.typ.Name, e.typ.MaxServices, fix)
}

// PortsOverLimit is the error of a Service that needs need load balancer
// services on type typ (one of all); nil when typ takes them or is
// unknown. The doctor, the webhook and the sync ask it.
func PortsOverLimit(need int, typ string, all []*hcloud.LoadBalancerType) error {
	i := slices.IndexFunc(all, func(t *hcloud.LoadBalancerType) bool { return t.Name == typ })
	if i < 0 || all[i].MaxServices <= 0 || need <= all[i].MaxServices {
		return nil
	}
	var bigger []string
	for _, t := range all {
		if t.MaxServices >= need && !t.IsDeprecated() {
			bigger = append(bigger, t.Name)
		}
	}
	slices.Sort(bigger)
	return &tooManyPorts{need: need, typ: all[i], bigger: bigger}
}

// TCPPorts is how many load balancer services svc's ports make: its TCP
// ports (the others are left out).
func TCPPorts(svc *corev1.Service) int {
	n := 0
	for _, p := range svc.Spec.Ports {
		if annotation.IsTCP(p) {
			n++
		}
	}
	return n
}

// servicesNeeded are the load balancer services lb has once want is
// applied: want's, and with keep-other-services those on other ports.
func servicesNeeded(want lbSpec, lb *hcloud.LoadBalancer) int {
	n := len(want.Services)
	if lb == nil || !want.KeepOthers {
		return n
	}
	for _, s := range lb.Services {
		if !slices.ContainsFunc(want.Services, func(w hcloud.LoadBalancerAddServiceOpts) bool { return *w.ListenPort == s.ListenPort }) {
			n++
		}
	}
	return n
}

// list is the types, sorted by name.
func (t lbTypes) list() []*hcloud.LoadBalancerType {
	out := make([]*hcloud.LoadBalancerType, 0, len(t))
	for _, lt := range t {
		out = append(out, lt)
	}
	slices.SortFunc(out, func(a, b *hcloud.LoadBalancerType) int { return strings.Compare(a.Name, b.Name) })
	return out
}
