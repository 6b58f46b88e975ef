package hcloudapi

import (
	"net/http"
	"net/netip"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// lbActions are the simulated POST /load_balancers/{id}/actions/{name}.
var lbActions = map[string]apiHandler{
	"add_service":              lbAddService,
	"update_service":           lbUpdateService,
	"delete_service":           lbDeleteService,
	"add_target":               lbAddTarget,
	"remove_target":            lbRemoveTarget,
	"attach_to_network":        lbAttachToNetwork,
	"detach_from_network":      lbDetachFromNetwork,
	"change_algorithm":         lbChangeAlgorithm,
	"change_type":              lbChangeType,
	"enable_public_interface":  lbSetPublicInterface(true),
	"disable_public_interface": lbSetPublicInterface(false),
	"change_dns_ptr":           lbChangeDNSPtr,
	"change_protection":        lbChangeProtection,
}

// lbAction decodes the body, checks the load balancer is free, applies the
// change plan validated and starts its action, which undoes the change if
// it fails.
func lbAction(c *call, command string, body any, plan func(lb *loadBalancer) (func(), *apiError)) (int, any, *apiError) {
	lb, err := c.loadBalancer()
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		if err := c.decode(body); err != nil {
			return 0, nil, err
		}
	}
	ref := resourceRef{"load_balancer", lb.ID}
	if err := c.w.checkLock(ref); err != nil {
		return 0, nil, err
	}
	apply, aerr := plan(lb)
	if aerr != nil {
		return 0, nil, aerr
	}
	undo := c.w.snapshotOf(ref)
	apply()
	a := c.w.startAction(actionSpec{command: command, resources: []resourceRef{ref}, undo: undo})
	return http.StatusCreated, actionGet{c.w.viewAction(a)}, nil
}

// withLimits checks that lb after change still fits its type.
func (w *liveWorld) withLimits(lb *loadBalancer, change func(copy *loadBalancer)) *apiError {
	cp := *lb
	cp.Services = slices.Clone(lb.Services)
	cp.Targets = slices.Clone(lb.Targets)
	change(&cp)
	return w.checkLBLimits(&cp, cp.LoadBalancerType)
}

func lbAddService(c *call) (int, any, *apiError) {
	var spec serviceSpec
	return lbAction(c, "add_service", &spec, func(lb *loadBalancer) (func(), *apiError) {
		var f fieldErrors
		svc := c.w.buildService(schema.LoadBalancerService{}, spec, &f, "")
		if err := f.err(); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(lb.Services, func(o schema.LoadBalancerService) bool { return o.ListenPort == svc.ListenPort }) {
			return nil, errorf("source_port_already_used", "listen port %d is already used by a service of load balancer %d", svc.ListenPort, lb.ID)
		}
		if err := c.w.withLimits(lb, func(cp *loadBalancer) { cp.Services = append(cp.Services, svc) }); err != nil {
			return nil, err
		}
		return func() { lb.Services = append(lb.Services, svc) }, nil
	})
}

func lbUpdateService(c *call) (int, any, *apiError) {
	var spec serviceSpec
	return lbAction(c, "update_service", &spec, func(lb *loadBalancer) (func(), *apiError) {
		if spec.ListenPort == nil {
			return nil, invalidField("listen_port", "is required")
		}
		i := slices.IndexFunc(lb.Services, func(o schema.LoadBalancerService) bool { return o.ListenPort == *spec.ListenPort })
		if i < 0 {
			return nil, invalidField("listen_port", "load balancer %d has no service on port %d", lb.ID, *spec.ListenPort)
		}
		var f fieldErrors
		svc := c.w.buildService(lb.Services[i], spec, &f, "")
		if err := f.err(); err != nil {
			return nil, err
		}
		if err := c.w.withLimits(lb, func(cp *loadBalancer) { cp.Services[i] = svc }); err != nil {
			return nil, err
		}
		port := svc.ListenPort
		return func() {
			if j := slices.IndexFunc(lb.Services, func(o schema.LoadBalancerService) bool { return o.ListenPort == port }); j >= 0 {
				lb.Services[j] = svc
			}
		}, nil
	})
}

func lbDeleteService(c *call) (int, any, *apiError) {
	var req schema.LoadBalancerDeleteServiceRequest
	return lbAction(c, "delete_service", &req, func(lb *loadBalancer) (func(), *apiError) {
		match := func(o schema.LoadBalancerService) bool { return o.ListenPort == req.ListenPort }
		if !slices.ContainsFunc(lb.Services, match) {
			return nil, invalidField("listen_port", "load balancer %d has no service on port %d", lb.ID, req.ListenPort)
		}
		return func() { lb.Services = slices.DeleteFunc(lb.Services, match) }, nil
	})
}

func lbAddTarget(c *call) (int, any, *apiError) {
	var spec targetSpec
	return lbAction(c, "add_target", &spec, func(lb *loadBalancer) (func(), *apiError) {
		var f fieldErrors
		t, err := c.w.buildTarget(lb, spec, &f, "")
		if ferr := f.err(); ferr != nil {
			return nil, ferr
		}
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(lb.Targets, func(o lbTarget) bool { return sameTarget(o, t) }) {
			return nil, errorf("target_already_defined", "the target is already defined on load balancer %d", lb.ID)
		}
		if err := c.w.withLimits(lb, func(cp *loadBalancer) { cp.Targets = append(cp.Targets, t) }); err != nil {
			return nil, err
		}
		return func() { lb.Targets = append(lb.Targets, t) }, nil
	})
}

// lbRemoveTarget removes a target; a server target whose server was
// deleted can still be removed.
func lbRemoveTarget(c *call) (int, any, *apiError) {
	var spec targetSpec
	return lbAction(c, "remove_target", &spec, func(lb *loadBalancer) (func(), *apiError) {
		want := lbTarget{Type: spec.Type}
		switch {
		case spec.Type == "server" && spec.Server != nil:
			want.Server = &lbTargetServer{ID: spec.Server.ID}
		case spec.Type == "label_selector" && spec.LabelSelector != nil:
			want.LabelSelector = &schema.LoadBalancerTargetLabelSelector{Selector: spec.LabelSelector.Selector}
		case spec.Type == "ip" && spec.IP != nil:
			want.IP = &schema.LoadBalancerTargetIP{IP: spec.IP.IP}
		default:
			return nil, invalidField("type", "%q with its matching field is required: server, label_selector or ip", spec.Type)
		}
		match := func(o lbTarget) bool { return sameTarget(o, want) }
		if !slices.ContainsFunc(lb.Targets, match) {
			return nil, errorf("target_not_found", "load balancer %d has no such target", lb.ID)
		}
		return func() { lb.Targets = slices.DeleteFunc(lb.Targets, match) }, nil
	})
}

func lbAttachToNetwork(c *call) (int, any, *apiError) {
	var req schema.LoadBalancerActionAttachToNetworkRequest
	return lbAction(c, "attach_to_network", &req, func(lb *loadBalancer) (func(), *apiError) {
		n, ok := c.w.networks.get(req.Network)
		if !ok {
			return nil, invalidField("network", "network %d does not exist", req.Network)
		}
		if err := c.w.networkLock(n.ID); err != nil {
			return nil, err
		}
		if len(lb.PrivateNet) > 0 {
			return nil, errorf("load_balancer_already_attached", "load balancer %d is already attached to network %d", lb.ID, lb.PrivateNet[0].Network)
		}
		want, ipRange := "", ""
		if req.IP != nil {
			want = *req.IP
		}
		if req.IPRange != nil {
			ipRange = *req.IPRange
		}
		ip, err := c.w.allocIP(n, lb.Location.NetworkZone, want, ipRange)
		if err != nil {
			return nil, err
		}
		return func() {
			c.w.attach(n.ID, member{resourceRef: resourceRef{"load_balancer", lb.ID}, ip: ip})
			lb.PrivateNet = append(lb.PrivateNet, schema.LoadBalancerPrivateNet{Network: n.ID, IP: ip.String()})
		}, nil
	})
}

func lbDetachFromNetwork(c *call) (int, any, *apiError) {
	var req schema.LoadBalancerActionDetachFromNetworkRequest
	return lbAction(c, "detach_from_network", &req, func(lb *loadBalancer) (func(), *apiError) {
		m, ok := c.w.memberOf(req.Network, resourceRef{"load_balancer", lb.ID})
		if !ok {
			return nil, errorf("load_balancer_not_attached_to_network", "load balancer %d is not attached to network %d", lb.ID, req.Network)
		}
		if !lb.PublicNet.Enabled {
			return nil, errorf("load_balancer_public_interface_disabled", "load balancer %d has no public interface; enable it before detaching its network", lb.ID)
		}
		if slices.ContainsFunc(lb.Targets, lbTarget.private) {
			return nil, errorf("targets_without_use_private_ip", "load balancer %d has targets that use the private IP; remove them first", lb.ID)
		}
		return func() { c.w.detach(m, req.Network) }, nil
	})
}

func lbChangeAlgorithm(c *call) (int, any, *apiError) {
	var req schema.LoadBalancerActionChangeAlgorithmRequest
	return lbAction(c, "change_algorithm", &req, func(lb *loadBalancer) (func(), *apiError) {
		if !slices.Contains(lbAlgorithms, req.Type) {
			return nil, invalidField("type", "%q is not one of round_robin, least_connections", req.Type)
		}
		return func() { lb.Algorithm.Type = req.Type }, nil
	})
}

func lbChangeType(c *call) (int, any, *apiError) {
	var req schema.LoadBalancerActionChangeTypeRequest
	return lbAction(c, "change_load_balancer_type", &req, func(lb *loadBalancer) (func(), *apiError) {
		lt, ok := c.w.cat.LBType(idOrNameString(req.LoadBalancerType))
		if !ok {
			return nil, invalidField("load_balancer_type", "load balancer type %q does not exist", idOrNameString(req.LoadBalancerType))
		}
		if err := c.w.checkLBLimits(lb, lt); err != nil {
			return nil, errorf("invalid_load_balancer_type", "load balancer type %s does not fit load balancer %d: %s", lt.Name, lb.ID, err.Message)
		}
		return func() { lb.LoadBalancerType = lt }, nil
	})
}

func lbSetPublicInterface(enabled bool) apiHandler {
	command := "disable_public_interface"
	if enabled {
		command = "enable_public_interface"
	}
	return func(c *call) (int, any, *apiError) {
		return lbAction(c, command, nil, func(lb *loadBalancer) (func(), *apiError) {
			if !enabled && len(lb.PrivateNet) == 0 {
				return nil, errorf("load_balancer_not_attached_to_network", "load balancer %d must be attached to a network before its public interface is disabled", lb.ID)
			}
			if !enabled && publicTargets(lb) {
				return nil, errorf("targets_without_use_private_ip", "load balancer %d has targets that use the public IP instead of the private IP", lb.ID)
			}
			return func() { lb.PublicNet.Enabled = enabled }, nil
		})
	}
}

// publicTargets reports whether a target of lb is reached on its public IP.
func publicTargets(lb *loadBalancer) bool {
	return slices.ContainsFunc(lb.Targets, func(t lbTarget) bool { return t.Type != "ip" && !t.private() })
}

func lbChangeDNSPtr(c *call) (int, any, *apiError) {
	var req schema.LoadBalancerActionChangeDNSPtrRequest
	return lbAction(c, "change_dns_ptr", &req, func(lb *loadBalancer) (func(), *apiError) {
		a, err := netip.ParseAddr(req.IP)
		if err != nil {
			return nil, invalidField("ip", "%q is not an IP address", req.IP)
		}
		ptr := ""
		if req.DNSPtr != nil {
			ptr = *req.DNSPtr
		}
		switch a.String() {
		case lb.PublicNet.IPv4.IP:
			return func() {
				if ptr == "" {
					ptr = defaultPTR(a)
				}
				lb.PublicNet.IPv4.DNSPtr = ptr
			}, nil
		case lb.PublicNet.IPv6.IP:
			return func() { lb.PublicNet.IPv6.DNSPtr = ptr }, nil
		}
		return nil, invalidField("ip", "%s is not a public IP of load balancer %d", a, lb.ID)
	})
}

func lbChangeProtection(c *call) (int, any, *apiError) {
	var req schema.LoadBalancerActionChangeProtectionRequest
	return lbAction(c, "change_protection", &req, func(lb *loadBalancer) (func(), *apiError) {
		return func() {
			if req.Delete != nil {
				lb.Protection.Delete = *req.Delete
			}
		}, nil
	})
}
