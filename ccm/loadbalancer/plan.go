package loadbalancer

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// lbStep is one change to a load balancer; Kind names the API's action
// ("update" is the PUT of name and labels).
type lbStep struct {
	Kind      string
	Name      string
	Labels    map[string]string
	Type      string
	Algorithm string
	IP        string  // change_dns_ptr: the address
	DNSPtr    *string // nil: the API's default
	NetworkID int64
	PrivateIP net.IP                            // attach_to_network
	IPRange   *net.IPNet                        // attach_to_network
	Service   hcloud.LoadBalancerAddServiceOpts // add_service and update_service
	Port      int                               // delete_service
	Target    lbTarget
}

func (s lbStep) String() string {
	switch s.Kind {
	case "update":
		return fmt.Sprintf("update name=%s labels=%v", s.Name, s.Labels)
	case "change_type":
		return "change_type " + s.Type
	case "change_algorithm":
		return "change_algorithm " + s.Algorithm
	case "change_dns_ptr":
		if s.DNSPtr == nil {
			return "change_dns_ptr " + s.IP + " default"
		}
		return "change_dns_ptr " + s.IP + " " + *s.DNSPtr
	case "attach_to_network", "detach_from_network":
		return fmt.Sprintf("%s %d", s.Kind, s.NetworkID)
	case "add_service", "update_service":
		return fmt.Sprintf("%s %d", s.Kind, *s.Service.ListenPort)
	case "delete_service":
		return fmt.Sprintf("delete_service %d", s.Port)
	case "add_target", "remove_target":
		if s.Target.IP != "" {
			return fmt.Sprintf("%s %d ip=%s", s.Kind, s.Target.ServerID, s.Target.IP)
		}
		return fmt.Sprintf("%s %d private=%v", s.Kind, s.Target.ServerID, s.Target.UsePrivateIP)
	case "add_ip_target", "remove_ip_target":
		return s.Kind + " " + s.Target.IP
	}
	return s.Kind
}

// lbPlan is the smallest list of changes from have to want, in an order
// the API accepts, and what cannot be done.
func lbPlan(want lbSpec, have *hcloud.LoadBalancer, types lbTypes) ([]lbStep, []lbNotice) {
	var steps []lbStep
	var notices []lbNotice
	name := have.Name
	if want.Rename {
		name = want.Name
	}
	if l := wantLabels(want, have.Labels); name != have.Name || !maps.Equal(l, have.Labels) {
		steps = append(steps, lbStep{Kind: "update", Name: name, Labels: l})
	}
	enable := want.PublicInterface != nil && *want.PublicInterface && !have.PublicNet.Enabled
	disable := want.PublicInterface != nil && !*want.PublicInterface && have.PublicNet.Enabled
	if enable {
		steps = append(steps, lbStep{Kind: "enable_public_interface"})
	}
	if want.ChangeType && have.LoadBalancerType != nil && want.Type != have.LoadBalancerType.Name {
		if types.bigger(want.Type, have.LoadBalancerType.Name) {
			steps = append(steps, lbStep{Kind: "change_type", Type: want.Type})
		} else {
			notices = append(notices, lbNotice{Reason: eventTypeDowngrade, Message: fmt.Sprintf(
				"load balancer type %s is not changed to the smaller %s (annotation %s): downgrade it in the Hetzner Console if you mean to",
				have.LoadBalancerType.Name, want.Type, annotation.Type)})
		}
	}
	if want.Location != "" && have.Location != nil && have.Location.Name != want.Location {
		notices = append(notices, lbNotice{Reason: eventLocationKept, Message: fmt.Sprintf(
			"load balancer %s stays in %s: a load balancer cannot move to %s; recreate the Service to move it", have.Name, have.Location.Name, want.Location)})
	}
	notices = append(notices, publicNetNotices(want, have)...)
	if want.Algorithm != "" && string(have.Algorithm.Type) != want.Algorithm {
		steps = append(steps, lbStep{Kind: "change_algorithm", Algorithm: want.Algorithm})
	}
	if (have.PublicNet.Enabled || enable) && !disable {
		steps = append(steps, rdnsSteps(want, have)...)
	}
	attach, detach, n := networkSteps(want, have)
	notices = append(notices, n...)
	// Attach, services and targets before the public interface goes and
	// other networks are left: the API refuses either while a target still
	// needs them.
	steps = append(steps, attach...)
	steps = append(steps, serviceSteps(want.Services, have.Services, kept(want, have.Labels))...)
	steps = append(steps, targetSteps(want.Targets, have.Targets)...)
	if disable {
		steps = append(steps, lbStep{Kind: "disable_public_interface"})
	}
	steps = append(steps, detach...)
	return steps, notices
}

func rdnsSteps(want lbSpec, have *hcloud.LoadBalancer) []lbStep {
	var steps []lbStep
	check := func(ptr *string, ip, current string) {
		if ptr == nil || ip == "" || ip == "<nil>" {
			return
		}
		if *ptr == "" { // reset to the default name
			if current != "" && !strings.HasPrefix(current, "static.") {
				steps = append(steps, lbStep{Kind: "change_dns_ptr", IP: ip})
			}
			return
		}
		if *ptr != current {
			steps = append(steps, lbStep{Kind: "change_dns_ptr", IP: ip, DNSPtr: ptr})
		}
	}
	check(want.IPv4RDNS, have.PublicNet.IPv4.IP.String(), have.PublicNet.IPv4.DNSPtr)
	check(want.IPv6RDNS, have.PublicNet.IPv6.IP.String(), have.PublicNet.IPv6.DNSPtr)
	return steps
}

// networkSteps attach to HCLOUD_NETWORK and detach from any other, as the
// official CCM does; without HCLOUD_NETWORK networks are left alone. An
// address in the network is chosen when attaching only.
func networkSteps(want lbSpec, have *hcloud.LoadBalancer) (attach, detach []lbStep, notices []lbNotice) {
	if want.NetworkID == 0 {
		return nil, nil, nil
	}
	attached := false
	for _, pn := range have.PrivateNet {
		if pn.Network == nil {
			continue
		}
		if pn.Network.ID != want.NetworkID {
			detach = append(detach, lbStep{Kind: "detach_from_network", NetworkID: pn.Network.ID})
			continue
		}
		attached = true
		if want.PrivateIP != nil && !want.PrivateIP.Equal(pn.IP) {
			notices = append(notices, lbNotice{Reason: eventPrivateIPKept, Message: fmt.Sprintf(
				"load balancer %s keeps %s in the network: %s=%s applies when it is attached", have.Name, pn.IP, annotation.PrivateIPv4, want.PrivateIP)})
		}
	}
	if !attached {
		attach = append(attach, lbStep{Kind: "attach_to_network", NetworkID: want.NetworkID, PrivateIP: want.PrivateIP, IPRange: want.IPRange})
	}
	return attach, detach, notices
}

// serviceSteps delete services first, to free their ports and slots;
// those on ports keep reports stay.
func serviceSteps(want []hcloud.LoadBalancerAddServiceOpts, have []hcloud.LoadBalancerService, keep func(port int) bool) []lbStep {
	var steps []lbStep
	wanted := map[int]hcloud.LoadBalancerAddServiceOpts{}
	for _, s := range want {
		wanted[*s.ListenPort] = s
	}
	existing := map[int]hcloud.LoadBalancerService{}
	for _, s := range have {
		existing[s.ListenPort] = s
		if _, ok := wanted[s.ListenPort]; !ok && !keep(s.ListenPort) {
			steps = append(steps, lbStep{Kind: "delete_service", Port: s.ListenPort})
		}
	}
	for _, s := range want {
		got, ok := existing[*s.ListenPort]
		switch {
		case !ok:
			steps = append(steps, lbStep{Kind: "add_service", Service: s})
		case !serviceMatches(s, got):
			steps = append(steps, lbStep{Kind: "update_service", Service: s})
		}
	}
	return steps
}

// targetSteps remove before they add, so a full load balancer makes room.
// An ip target that no dedicated server's Node wants is removed, as the
// official CCM does; label selector targets are not the CCM's and stay.
func targetSteps(want []lbTarget, have []hcloud.LoadBalancerTarget) []lbStep {
	var steps []lbStep
	existing := map[lbTarget]bool{}
	wanted := map[lbTarget]bool{}
	for _, t := range want {
		wanted[t] = true
	}
	for _, t := range have {
		k, ok := targetOf(t)
		if !ok {
			continue
		}
		existing[k] = true
		switch {
		case wanted[k]:
		case k.isIPTarget():
			steps = append(steps, lbStep{Kind: "remove_ip_target", Target: k})
		default:
			steps = append(steps, lbStep{Kind: "remove_target", Target: k})
		}
	}
	for _, t := range want {
		switch {
		case existing[t]:
		case t.isIPTarget():
			steps = append(steps, lbStep{Kind: "add_ip_target", Target: t})
		default:
			steps = append(steps, lbStep{Kind: "add_target", Target: t})
		}
	}
	return steps
}

// targetOf is a target of the API as the CCM compares it; label selector
// targets are none of the CCM's. A server target's IP is the IPv6 it is
// on (server_target_ips.go).
func targetOf(t hcloud.LoadBalancerTarget) (lbTarget, bool) {
	switch {
	case t.Type == hcloud.LoadBalancerTargetTypeServer && t.Server != nil && t.Server.Server != nil:
		k := lbTarget{ServerID: t.Server.Server.ID, UsePrivateIP: t.UsePrivateIP}
		if t.IP != nil {
			k.IP = t.IP.IP
		}
		return k, true
	case t.Type == hcloud.LoadBalancerTargetTypeIP && t.IP != nil:
		return lbTarget{IP: t.IP.IP}, true
	}
	return lbTarget{}, false
}

// serviceMatches reports whether have already is what want asks; unset
// fields of want accept any value.
func serviceMatches(want hcloud.LoadBalancerAddServiceOpts, have hcloud.LoadBalancerService) bool {
	if want.Protocol != have.Protocol || !eq(want.DestinationPort, have.DestinationPort) || !eq(want.Proxyprotocol, have.Proxyprotocol) {
		return false
	}
	if h := want.HTTP; h != nil {
		g := have.HTTP
		if !eq(h.CookieName, g.CookieName) || !eq(h.CookieLifetime, g.CookieLifetime) || !eq(h.RedirectHTTP, g.RedirectHTTP) ||
			!eq(h.StickySessions, g.StickySessions) || !eq(h.TimeoutIdle, g.TimeoutIdle) {
			return false
		}
		if want.Protocol == hcloud.LoadBalancerServiceProtocolHTTPS && !slices.Equal(certIDs(h.Certificates), certIDs(g.Certificates)) {
			return false
		}
	}
	hc := want.HealthCheck
	if hc == nil {
		return true
	}
	g := have.HealthCheck
	if hc.Protocol != g.Protocol || !eq(hc.Port, g.Port) || !eq(hc.Interval, g.Interval) || !eq(hc.Timeout, g.Timeout) || !eq(hc.Retries, g.Retries) {
		return false
	}
	if h := hc.HTTP; h != nil {
		if g.HTTP == nil {
			return false
		}
		if !eq(h.Domain, g.HTTP.Domain) || !eq(h.Path, g.HTTP.Path) || !eq(h.TLS, g.HTTP.TLS) ||
			(h.StatusCodes != nil && !slices.Equal(h.StatusCodes, g.HTTP.StatusCodes)) {
			return false
		}
	}
	return true
}

// eq is true when want is unset or equal to have.
func eq[T comparable](want *T, have T) bool { return want == nil || *want == have }

func certIDs(certs []*hcloud.Certificate) []int64 {
	ids := make([]int64, 0, len(certs))
	for _, c := range certs {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	return ids
}
