package world

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
)

// TargetSpec is a target as create, add_target and remove_target send it.
type TargetSpec struct {
	Type          string            `json:"type"`
	Server        *TargetSpecServer `json:"server"`
	LabelSelector *struct {
		Selector string `json:"selector"`
	} `json:"label_selector"`
	IP *struct {
		IP string `json:"ip"`
	} `json:"ip"`
	UsePrivateIP *bool `json:"use_private_ip"`
}

// TargetSpecServer is a server target's server: its ID, and for a
// public target the address it is reached on, the primary IPv4 (the
// default) or an IPv6 host address of the server's /64.
type TargetSpecServer struct {
	ID int64  `json:"id"`
	IP string `json:"ip"`
}

// BuildTarget validates a target for a load balancer and returns it as stored.
func (w *project) BuildTarget(lb *StoredLoadBalancer, spec TargetSpec, f *apierr.Fields, prefix string) (Target, *apierr.Error) {
	t := Target{Type: spec.Type}
	private := spec.UsePrivateIP != nil && *spec.UsePrivateIP
	if spec.Type != "ip" {
		t.UsePrivateIP = &private
	}
	switch spec.Type {
	case "server":
		if spec.Server == nil {
			f.Add(prefix+"server", "is required for type server")
			return t, nil
		}
		s, ok := w.Servers.Get(spec.Server.ID)
		if !ok {
			f.Add(prefix+"server.id", "server with ID %d not found", spec.Server.ID)
			return t, nil
		}
		if spec.Server.IP != "" {
			ip, err := w.serverTargetAddr(s, spec.Server.IP, private, f, prefix)
			if ip == "" || err != nil {
				return t, err
			}
			t.Server = &TargetServer{ID: s.ID, IP: ip}
			break
		}
		ip, err := w.serverTargetIP(lb, s, private)
		if err != nil {
			return t, err
		}
		t.Server = &TargetServer{ID: s.ID, IP: ip}
	case "label_selector":
		if spec.LabelSelector == nil {
			f.Add(prefix+"label_selector", "is required for type label_selector")
			return t, nil
		}
		if _, err := labelselector.Parse(spec.LabelSelector.Selector); err != nil || spec.LabelSelector.Selector == "" {
			f.Add(prefix+"label_selector.selector", "is not a valid label selector: %v", err)
			return t, nil
		}
		t.LabelSelector = &schema.LoadBalancerTargetLabelSelector{Selector: spec.LabelSelector.Selector}
		if private && len(lb.PrivateNet) == 0 {
			return t, apierr.Errorf("load_balancer_not_attached_to_network", "load balancer %d is not attached to a network", lb.ID)
		}
	case "ip":
		if spec.IP == nil {
			f.Add(prefix+"ip", "is required for type ip")
			return t, nil
		}
		a, err := netip.ParseAddr(spec.IP.IP)
		if err != nil {
			f.Add(prefix+"ip.ip", "%q is not an IP address", spec.IP.IP)
			return t, nil
		}
		if private {
			f.Add(prefix+"use_private_ip", "is not allowed for targets of type ip")
		}
		msg, aerr := w.checkIPTarget(lb, a)
		if msg != "" {
			f.Add(prefix+"ip.ip", "%s", msg)
			return t, nil
		}
		if aerr != nil {
			return t, aerr
		}
		t.IP = &schema.LoadBalancerTargetIP{IP: a.String()}
	default:
		f.Add(prefix+"type", "%q is not one of server, label_selector, ip", spec.Type)
	}
	return t, nil
}

// serverTargetIP is the address the load balancer sends a server target's
// traffic to: its IP in a shared network, or its public IPv4.
func (w *project) serverTargetIP(lb *StoredLoadBalancer, s *StoredServer, private bool) (string, *apierr.Error) {
	if private {
		if len(lb.PrivateNet) == 0 {
			return "", apierr.Errorf("load_balancer_not_attached_to_network", "load balancer %d is not attached to a network", lb.ID)
		}
		for _, pn := range lb.PrivateNet {
			if i := slices.IndexFunc(s.PrivateNet, func(p schema.ServerPrivateNet) bool { return p.Network == pn.Network }); i >= 0 {
				return s.PrivateNet[i].IP, nil
			}
		}
		return "", apierr.Errorf("resolve_cloud_private_targets_error", "server %d is not attached to the same network as load balancer %d", s.ID, lb.ID)
	}
	if s.PublicNet.IPv4.IP == "" {
		return "", apierr.Errorf("resolve_cloud_public_targets_error", "server %d has no public IPv4 address to be a public target", s.ID)
	}
	return s.PublicNet.IPv4.IP, nil
}

// SameTarget reports whether two targets name the same thing.
func SameTarget(a, b Target) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case "server":
		return a.Server != nil && b.Server != nil && a.Server.ID == b.Server.ID && serverTargetIPv6(a.Server) == serverTargetIPv6(b.Server)
	case "label_selector":
		return a.LabelSelector != nil && b.LabelSelector != nil && a.LabelSelector.Selector == b.LabelSelector.Selector
	case "ip":
		return a.IP != nil && b.IP != nil && a.IP.IP == b.IP.IP
	}
	return false
}

func TargetKey(t Target) string {
	switch {
	case t.Server != nil:
		return serverTargetKey(t.Server)
	case t.IP != nil:
		return "ip:" + t.IP.IP
	}
	return ""
}

// Selected resolves a label selector target to the servers it matches now.
func (w *project) Selected(sel string) []*StoredServer {
	s, err := labelselector.Parse(sel)
	if err != nil {
		return nil
	}
	var out []*StoredServer
	for srv := range w.Servers.Values() {
		if s.Matches(srv.Labels) {
			out = append(out, srv)
		}
	}
	return out
}

// targetCount counts targets as the type limit does: a label selector
// counts the servers it matches.
func (w *project) targetCount(targets []Target) int {
	n := 0
	for _, t := range targets {
		if t.Type == "label_selector" && t.LabelSelector != nil {
			n += len(w.Selected(t.LabelSelector.Selector))
		} else {
			n++
		}
	}
	return n
}

// viewTargets renders targets with health per service port and label
// selectors resolved live.
func (w *project) viewTargets(lb *StoredLoadBalancer) []Target {
	out := make([]Target, 0, len(lb.Targets))
	for _, t := range lb.Targets {
		v := t
		if t.Type == "label_selector" && t.LabelSelector != nil {
			subs := []Target{}
			for _, s := range w.Selected(t.LabelSelector.Selector) {
				ip, _ := w.serverTargetIP(lb, s, t.Private())
				sub := Target{Type: "server", Server: &TargetServer{ID: s.ID, IP: ip}, UsePrivateIP: t.UsePrivateIP}
				h := w.health(lb, sub)
				sub.HealthStatus = &h
				subs = append(subs, sub)
			}
			v.Targets = &subs
		} else {
			h := w.health(lb, t)
			v.HealthStatus = &h
		}
		out = append(out, v)
	}
	return out
}

// health is a target's status per service: one a script forced, else
// the checked one when load balancers carry traffic (unknown until
// checked), else healthy.
func (w *project) health(lb *StoredLoadBalancer, t Target) []TargetHealth {
	out := []TargetHealth{}
	key := TargetKey(t)
	for _, svc := range lb.Services {
		h := TargetHealth{ListenPort: svc.ListenPort}
		st, forced := w.forcedHealth(lb, key, svc.ListenPort)
		switch {
		case forced:
			h.Status = st
			if st == "unhealthy" {
				h.Detail = "unspecified" // a script's or a stopped server's: no check says why
			}
		case w.Probed != nil:
			checked, _ := w.Probed(lb.ID, svc.ListenPort, key) // unknown until checked
			h.Status, h.Detail, h.HTTPStatusCode = cmp.Or(checked.Status, "unknown"), checked.Detail, checked.HTTPStatusCode
		default:
			h.Status = "healthy"
		}
		out = append(out, h)
	}
	return out
}

// CheckLBLimits enforces the type's max_services, max_targets and
// max_assigned_certificates.
func (w *project) CheckLBLimits(lb *StoredLoadBalancer, lt schema.LoadBalancerType) *apierr.Error {
	if len(lb.Services) > lt.MaxServices {
		return apierr.LimitExceeded("max_services", "load balancer type %s allows at most %d services", lt.Name, lt.MaxServices)
	}
	if n := w.targetCount(lb.Targets); n > lt.MaxTargets {
		return apierr.LimitExceeded("max_targets", "load balancer type %s allows at most %d targets, got %d", lt.Name, lt.MaxTargets, n)
	}
	certs := map[int64]bool{}
	for _, s := range lb.Services {
		if s.HTTP != nil {
			for _, c := range s.HTTP.Certificates {
				certs[c] = true
			}
		}
	}
	if len(certs) > lt.MaxAssignedCertificates {
		return apierr.LimitExceeded("max_assigned_certificates", "load balancer type %s allows at most %d certificates", lt.Name, lt.MaxAssignedCertificates)
	}
	return nil
}

// WithLimits checks that lb after change still fits its type.
func (w *project) WithLimits(lb *StoredLoadBalancer, change func(copy *StoredLoadBalancer)) *apierr.Error {
	cp := *lb
	cp.Services = slices.Clone(lb.Services)
	cp.Targets = slices.Clone(lb.Targets)
	change(&cp)
	return w.CheckLBLimits(&cp, cp.LoadBalancerType)
}

// PublicTargets reports whether a target of lb is reached on its public IP.
func PublicTargets(lb *StoredLoadBalancer) bool {
	return slices.ContainsFunc(lb.Targets, func(t Target) bool { return t.Type != "ip" && !t.Private() })
}
