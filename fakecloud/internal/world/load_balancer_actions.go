package world

import (
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// AddService adds a service to a load balancer.
func (t *Tx) AddService(id int64, spec ServiceSpec) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "add_service", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		var f apierr.Fields
		svc := t.w.BuildService(schema.LoadBalancerService{}, spec, &f, "")
		if err := f.Err(); err != nil {
			return step{}, err
		}
		if slices.ContainsFunc(lb.Services, func(o schema.LoadBalancerService) bool { return o.ListenPort == svc.ListenPort }) {
			return step{}, apierr.Errorf("source_port_already_used", "listen port %d is already used by a service of load balancer %d", svc.ListenPort, lb.ID)
		}
		if err := t.w.WithLimits(lb, func(cp *StoredLoadBalancer) { cp.Services = append(cp.Services, svc) }); err != nil {
			return step{}, err
		}
		return step{apply: func() { lb.Services = append(lb.Services, svc) }}, nil
	})
}

// UpdateService changes the service on a listen port.
func (t *Tx) UpdateService(id int64, spec ServiceSpec) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "update_service", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		if spec.ListenPort == nil {
			return step{}, apierr.InvalidField("listen_port", "is required")
		}
		i := slices.IndexFunc(lb.Services, func(o schema.LoadBalancerService) bool { return o.ListenPort == *spec.ListenPort })
		if i < 0 {
			return step{}, apierr.InvalidField("listen_port", "load balancer %d has no service on port %d", lb.ID, *spec.ListenPort)
		}
		var f apierr.Fields
		svc := t.w.BuildService(lb.Services[i], spec, &f, "")
		if err := f.Err(); err != nil {
			return step{}, err
		}
		if err := t.w.WithLimits(lb, func(cp *StoredLoadBalancer) { cp.Services[i] = svc }); err != nil {
			return step{}, err
		}
		port := svc.ListenPort
		return step{apply: func() {
			if j := slices.IndexFunc(lb.Services, func(o schema.LoadBalancerService) bool { return o.ListenPort == port }); j >= 0 {
				lb.Services[j] = svc
			}
		}, sets: [][]string{element("services", map[string]any{"listen_port": port})}}, nil
	})
}

// DeleteService deletes the service on a listen port.
func (t *Tx) DeleteService(id int64, req schema.LoadBalancerDeleteServiceRequest) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "delete_service", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		match := func(o schema.LoadBalancerService) bool { return o.ListenPort == req.ListenPort }
		if !slices.ContainsFunc(lb.Services, match) {
			return step{}, apierr.InvalidField("listen_port", "load balancer %d has no service on port %d", lb.ID, req.ListenPort)
		}
		return step{apply: func() { lb.Services = slices.DeleteFunc(lb.Services, match) }}, nil
	})
}

// AddTarget adds a server, label selector or IP target to a load balancer.
func (t *Tx) AddTarget(id int64, spec TargetSpec) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "add_target", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		var f apierr.Fields
		tg, err := t.w.BuildTarget(lb, spec, &f, "")
		if ferr := f.Err(); ferr != nil {
			return step{}, ferr
		}
		if err != nil {
			return step{}, err
		}
		if slices.ContainsFunc(lb.Targets, func(o Target) bool { return SameTarget(o, tg) }) {
			return step{}, apierr.Errorf("target_already_defined", "the target is already defined on load balancer %d", lb.ID)
		}
		if err := t.w.WithLimits(lb, func(cp *StoredLoadBalancer) { cp.Targets = append(cp.Targets, tg) }); err != nil {
			return step{}, err
		}
		return step{apply: func() { lb.Targets = append(lb.Targets, tg) }}, nil
	})
}

// RemoveTarget removes a target; a server target whose server was
// deleted can still be removed.
func (t *Tx) RemoveTarget(id int64, spec TargetSpec) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "remove_target", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		want := Target{Type: spec.Type}
		switch {
		case spec.Type == "server" && spec.Server != nil:
			// Without server.ip, the target on the primary IPv4.
			want.Server = &TargetServer{ID: spec.Server.ID, IP: spec.Server.IP}
		case spec.Type == "label_selector" && spec.LabelSelector != nil:
			want.LabelSelector = &schema.LoadBalancerTargetLabelSelector{Selector: spec.LabelSelector.Selector}
		case spec.Type == "ip" && spec.IP != nil:
			want.IP = &schema.LoadBalancerTargetIP{IP: spec.IP.IP}
		default:
			return step{}, apierr.InvalidField("type", "%q with its matching field is required: server, label_selector or ip", spec.Type)
		}
		match := func(o Target) bool { return SameTarget(o, want) }
		if !slices.ContainsFunc(lb.Targets, match) {
			return step{}, apierr.Errorf("target_not_found", "load balancer %d has no such target", lb.ID)
		}
		return step{apply: func() { lb.Targets = slices.DeleteFunc(lb.Targets, match) }}, nil
	})
}

// AttachLoadBalancerToNetwork attaches a load balancer to a network. Its
// action names the load balancer and the network, as the live API's does
// (ansible-collections/hetzner.hcloud#719); detach_from_network's too.
func (t *Tx) AttachLoadBalancerToNetwork(id int64, req schema.LoadBalancerActionAttachToNetworkRequest) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "attach_to_network", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		n, ok := t.w.Networks.Get(req.Network)
		if !ok {
			return step{}, apierr.InvalidField("network", "network %d does not exist", req.Network)
		}
		if err := t.w.checkFree(Ref{Type: "network", ID: n.ID}); err != nil {
			return step{}, err
		}
		if len(lb.PrivateNet) > 0 {
			return step{}, apierr.Errorf("load_balancer_already_attached", "load balancer %d is already attached to network %d", lb.ID, lb.PrivateNet[0].Network)
		}
		want, ipRange := "", ""
		if req.IP != nil {
			want = *req.IP
		}
		if req.IPRange != nil {
			ipRange = *req.IPRange
		}
		ip, err := t.w.AllocIP(n, lb.Location.NetworkZone, want, ipRange)
		if err != nil {
			return step{}, err
		}
		return step{apply: func() {
			t.w.Attach(n.ID, Member{Ref: Ref{Type: "load_balancer", ID: lb.ID}, IP: ip})
			lb.PrivateNet = append(lb.PrivateNet, schema.LoadBalancerPrivateNet{Network: n.ID, IP: ip.String()})
		}, names: []Ref{{Type: "network", ID: n.ID}}}, nil
	})
}

// DetachLoadBalancerFromNetwork detaches a load balancer from a network.
func (t *Tx) DetachLoadBalancerFromNetwork(id int64, req schema.LoadBalancerActionDetachFromNetworkRequest) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "detach_from_network", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		m, ok := t.w.MemberOf(req.Network, Ref{Type: "load_balancer", ID: lb.ID})
		if !ok {
			return step{}, apierr.Errorf("load_balancer_not_attached_to_network", "load balancer %d is not attached to network %d", lb.ID, req.Network)
		}
		if !lb.PublicNet.Enabled {
			return step{}, apierr.Errorf("load_balancer_public_interface_disabled", "load balancer %d has no public interface; enable it before detaching its network", lb.ID)
		}
		if slices.ContainsFunc(lb.Targets, Target.Private) {
			return step{}, apierr.Errorf("targets_without_use_private_ip", "load balancer %d has targets that use the private IP; remove them first", lb.ID)
		}
		return step{apply: func() { t.w.Detach(m, req.Network) }, names: []Ref{{Type: "network", ID: req.Network}}}, nil
	})
}

// ChangeAlgorithm sets how a load balancer spreads connections.
func (t *Tx) ChangeAlgorithm(id int64, req schema.LoadBalancerActionChangeAlgorithmRequest) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "change_algorithm", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		if !slices.Contains(lbAlgorithms, req.Type) {
			return step{}, apierr.InvalidField("type", "%q is not one of round_robin, least_connections", req.Type)
		}
		return step{apply: func() { lb.Algorithm.Type = req.Type }, sets: [][]string{member("algorithm", "type")}}, nil
	})
}

// ChangeLoadBalancerType changes the type of a load balancer whose
// services and targets fit the new one.
func (t *Tx) ChangeLoadBalancerType(id int64, req schema.LoadBalancerActionChangeTypeRequest) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "change_load_balancer_type", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		lt, ok := t.w.Cat.LBType(idOrNameString(req.LoadBalancerType))
		if !ok {
			return step{}, apierr.InvalidField("load_balancer_type", "load balancer type %q does not exist", idOrNameString(req.LoadBalancerType))
		}
		if err := t.w.lbTypeOrderable(lt, true); err != nil {
			return step{}, err
		}
		if err := t.w.CheckLBLimits(lb, lt); err != nil {
			return step{}, apierr.Errorf("invalid_load_balancer_type", "load balancer type %s does not fit load balancer %d: %s", lt.Name, lb.ID, err.Message)
		}
		return step{apply: func() { lb.LoadBalancerType = lt }}, nil
	})
}

// EnablePublicInterface turns a load balancer's public interface on.
func (t *Tx) EnablePublicInterface(id int64) (schema.Action, *apierr.Error) {
	return t.setPublicInterface(id, true)
}

// DisablePublicInterface turns the public interface of a load balancer
// attached to a network, whose targets use private IPs, off.
func (t *Tx) DisablePublicInterface(id int64) (schema.Action, *apierr.Error) {
	return t.setPublicInterface(id, false)
}

func (t *Tx) setPublicInterface(id int64, enabled bool) (schema.Action, *apierr.Error) {
	command := "disable_public_interface"
	if enabled {
		command = "enable_public_interface"
	}
	return act(t, loadBalancers, id, command, func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		if !enabled && len(lb.PrivateNet) == 0 {
			return step{}, apierr.Errorf("load_balancer_not_attached_to_network", "load balancer %d must be attached to a network before its public interface is disabled", lb.ID)
		}
		if !enabled && PublicTargets(lb) {
			return step{}, apierr.Errorf("targets_without_use_private_ip", "load balancer %d has targets that use the public IP instead of the private IP", lb.ID)
		}
		return step{apply: func() { lb.PublicNet.Enabled = enabled }}, nil
	})
}

// ChangeLoadBalancerDNSPtr sets the reverse DNS name of a load
// balancer's public address.
func (t *Tx) ChangeLoadBalancerDNSPtr(id int64, req schema.LoadBalancerActionChangeDNSPtrRequest) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "change_dns_ptr", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		a, ptr, err := ptrRequest(req.IP, req.DNSPtr)
		if err != nil {
			return step{}, err
		}
		switch a.String() {
		case lb.PublicNet.IPv4.IP:
			if pip, touches := t.w.ptrTouch(lb.PublicNet.IPv4.ID); pip != nil {
				return step{touches: touches, sets: [][]string{member("public_net", "ipv4", "dns_ptr")}, apply: func() { t.w.setPIPPTR(pip, a, ptr) }}, nil
			}
			return step{apply: func() {
				if ptr == "" {
					ptr = DefaultPTR(a)
				}
				lb.PublicNet.IPv4.DNSPtr = ptr
			}, sets: [][]string{member("public_net", "ipv4", "dns_ptr")}}, nil
		case lb.PublicNet.IPv6.IP:
			v6 := [][]string{member("public_net", "ipv6", "dns_ptr")}
			if pip, touches := t.w.ptrTouch(lb.PublicNet.IPv6.ID); pip != nil {
				return step{touches: touches, sets: v6, apply: func() { t.w.setPIPPTR(pip, a, ptr) }}, nil
			}
			return step{apply: func() { lb.PublicNet.IPv6.DNSPtr = ptr }, sets: v6}, nil
		}
		return step{}, apierr.InvalidField("ip", "%s is not a public IP of load balancer %d", a, lb.ID)
	})
}

// ChangeLoadBalancerProtection sets a load balancer's delete protection.
func (t *Tx) ChangeLoadBalancerProtection(id int64, req schema.LoadBalancerActionChangeProtectionRequest) (schema.Action, *apierr.Error) {
	return act(t, loadBalancers, id, "change_protection", func(lb *StoredLoadBalancer) (step, *apierr.Error) {
		var sets [][]string
		if req.Delete != nil {
			sets = append(sets, member("protection", "delete"))
		}
		return step{apply: func() {
			if req.Delete != nil {
				lb.Protection.Delete = *req.Delete
			}
		}, sets: sets}, nil
	})
}
