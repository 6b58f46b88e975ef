package loadbalancer

import (
	"context"
	"net"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// send makes one change. It returns the action to follow, if any, and, for
// a PUT, the load balancer as the API now shows it.
func send(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer, s lbStep) (*hcloud.Action, *hcloud.LoadBalancer, error) {
	api := c.LoadBalancer
	var a *hcloud.Action
	var err error
	switch s.Kind {
	case "update":
		updated, _, err := api.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Name: s.Name, Labels: s.Labels})
		return nil, updated, err
	case "change_type":
		a, _, err = api.ChangeType(ctx, lb, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: &hcloud.LoadBalancerType{Name: s.Type}})
	case "change_algorithm":
		a, _, err = api.ChangeAlgorithm(ctx, lb, hcloud.LoadBalancerChangeAlgorithmOpts{Type: hcloud.LoadBalancerAlgorithmType(s.Algorithm)})
	case "change_dns_ptr":
		a, _, err = api.ChangeDNSPtr(ctx, lb, s.IP, s.DNSPtr)
	case "detach_from_network":
		a, _, err = api.DetachFromNetwork(ctx, lb, hcloud.LoadBalancerDetachFromNetworkOpts{Network: &hcloud.Network{ID: s.NetworkID}})
	case "attach_to_network":
		a, _, err = api.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: &hcloud.Network{ID: s.NetworkID}, IP: s.PrivateIP, IPRange: s.IPRange})
	case "enable_public_interface":
		a, _, err = api.EnablePublicInterface(ctx, lb)
	case "disable_public_interface":
		a, _, err = api.DisablePublicInterface(ctx, lb)
	case "delete_service":
		a, _, err = api.DeleteService(ctx, lb, s.Port)
	case "add_service":
		a, _, err = api.AddService(ctx, lb, s.Service)
	case "update_service":
		a, _, err = api.UpdateService(ctx, lb, *s.Service.ListenPort, updateOpts(s.Service))
	case "remove_target", "add_target":
		if s.Target.IP != "" {
			a, err = serverTargetIPAction(ctx, c, lb, s.Kind, s.Target)
			break
		}
		if s.Kind == "remove_target" {
			a, _, err = api.RemoveServerTarget(ctx, lb, &hcloud.Server{ID: s.Target.ServerID})
			break
		}
		a, _, err = api.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{
			Server: &hcloud.Server{ID: s.Target.ServerID}, UsePrivateIP: hcloud.Ptr(s.Target.UsePrivateIP)})
	case "add_ip_target":
		a, _, err = api.AddIPTarget(ctx, lb, hcloud.LoadBalancerAddIPTargetOpts{IP: net.ParseIP(s.Target.IP)})
	case "remove_ip_target":
		a, _, err = api.RemoveIPTarget(ctx, lb, net.ParseIP(s.Target.IP))
	}
	return a, nil, err
}

// commit records a change the API accepted in the CCM's copy of lb, so the
// next sync compares with it without asking. Attaching to a network
// returns false: the address the load balancer got must be read.
func commit(lb *hcloud.LoadBalancer, s lbStep) bool {
	switch s.Kind {
	case "change_type":
		lb.LoadBalancerType = &hcloud.LoadBalancerType{Name: s.Type}
	case "change_algorithm":
		lb.Algorithm.Type = hcloud.LoadBalancerAlgorithmType(s.Algorithm)
	case "change_dns_ptr":
		ptr := ""
		if s.DNSPtr != nil {
			ptr = *s.DNSPtr
		}
		if lb.PublicNet.IPv4.IP.String() == s.IP {
			lb.PublicNet.IPv4.DNSPtr = ptr
		} else {
			lb.PublicNet.IPv6.DNSPtr = ptr
		}
	case "detach_from_network":
		lb.PrivateNet = slices.DeleteFunc(lb.PrivateNet, func(pn hcloud.LoadBalancerPrivateNet) bool {
			return pn.Network != nil && pn.Network.ID == s.NetworkID
		})
	case "attach_to_network":
		return false
	case "enable_public_interface", "disable_public_interface":
		lb.PublicNet.Enabled = s.Kind == "enable_public_interface"
	case "delete_service":
		lb.Services = slices.DeleteFunc(lb.Services, func(o hcloud.LoadBalancerService) bool { return o.ListenPort == s.Port })
	case "add_service", "update_service":
		lb.Services = slices.DeleteFunc(lb.Services, func(o hcloud.LoadBalancerService) bool { return o.ListenPort == *s.Service.ListenPort })
		lb.Services = append(lb.Services, asService(s.Service))
	case "remove_target":
		lb.Targets = slices.DeleteFunc(lb.Targets, func(t hcloud.LoadBalancerTarget) bool {
			k, ok := targetOf(t)
			return ok && k.ServerID == s.Target.ServerID && k.IP == s.Target.IP
		})
	case "add_target":
		lb.Targets = append(lb.Targets, serverTarget(s.Target))
	case "add_ip_target":
		lb.Targets = append(lb.Targets, hcloud.LoadBalancerTarget{Type: hcloud.LoadBalancerTargetTypeIP, IP: &hcloud.LoadBalancerTargetIP{IP: s.Target.IP}})
	case "remove_ip_target":
		lb.Targets = slices.DeleteFunc(lb.Targets, func(t hcloud.LoadBalancerTarget) bool {
			return t.Type == hcloud.LoadBalancerTargetTypeIP && t.IP != nil && t.IP.IP == s.Target.IP
		})
	}
	return true
}

func serverTarget(t lbTarget) hcloud.LoadBalancerTarget {
	out := hcloud.LoadBalancerTarget{Type: hcloud.LoadBalancerTargetTypeServer, UsePrivateIP: t.UsePrivateIP,
		Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: t.ServerID}}}
	if t.IP != "" {
		out.IP = &hcloud.LoadBalancerTargetIP{IP: t.IP}
	}
	return out
}

// asService is what the API shows after s is sent; fields s leaves unset
// stay at their zero value, which desired state does not compare.
func asService(s hcloud.LoadBalancerAddServiceOpts) hcloud.LoadBalancerService {
	out := hcloud.LoadBalancerService{Protocol: s.Protocol, ListenPort: deref(s.ListenPort), DestinationPort: deref(s.DestinationPort),
		Proxyprotocol: deref(s.Proxyprotocol)}
	if h := s.HTTP; h != nil {
		out.HTTP = hcloud.LoadBalancerServiceHTTP{CookieName: deref(h.CookieName), CookieLifetime: deref(h.CookieLifetime),
			Certificates: h.Certificates, RedirectHTTP: deref(h.RedirectHTTP), StickySessions: deref(h.StickySessions), TimeoutIdle: deref(h.TimeoutIdle)}
	}
	if hc := s.HealthCheck; hc != nil {
		out.HealthCheck = hcloud.LoadBalancerServiceHealthCheck{Protocol: hc.Protocol, Port: deref(hc.Port), Interval: deref(hc.Interval),
			Timeout: deref(hc.Timeout), Retries: deref(hc.Retries)}
		if h := hc.HTTP; h != nil {
			out.HealthCheck.HTTP = &hcloud.LoadBalancerServiceHealthCheckHTTP{Domain: deref(h.Domain), Path: deref(h.Path),
				Response: deref(h.Response), StatusCodes: h.StatusCodes, TLS: deref(h.TLS)}
		}
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// updateOpts is an add_service body as an update_service body.
func updateOpts(s hcloud.LoadBalancerAddServiceOpts) hcloud.LoadBalancerUpdateServiceOpts {
	u := hcloud.LoadBalancerUpdateServiceOpts{Protocol: s.Protocol, DestinationPort: s.DestinationPort, Proxyprotocol: s.Proxyprotocol}
	if h := s.HTTP; h != nil {
		u.HTTP = &hcloud.LoadBalancerUpdateServiceOptsHTTP{CookieName: h.CookieName, CookieLifetime: h.CookieLifetime,
			Certificates: h.Certificates, RedirectHTTP: h.RedirectHTTP, StickySessions: h.StickySessions, TimeoutIdle: h.TimeoutIdle}
	}
	if hc := s.HealthCheck; hc != nil {
		u.HealthCheck = &hcloud.LoadBalancerUpdateServiceOptsHealthCheck{Protocol: hc.Protocol, Port: hc.Port,
			Interval: hc.Interval, Timeout: hc.Timeout, Retries: hc.Retries}
		if h := hc.HTTP; h != nil {
			u.HealthCheck.HTTP = &hcloud.LoadBalancerUpdateServiceOptsHealthCheckHTTP{Domain: h.Domain, Path: h.Path,
				Response: h.Response, StatusCodes: h.StatusCodes, TLS: h.TLS}
		}
	}
	return u
}

// createOpts is the one POST that creates want, with every service and
// target inline. What a POST cannot say (a chosen private IP, rDNS) is left
// to the steps that follow; the plan finds them.
func createOpts(want lbSpec) hcloud.LoadBalancerCreateOpts {
	o := hcloud.LoadBalancerCreateOpts{Name: want.Name, LoadBalancerType: &hcloud.LoadBalancerType{Name: want.Type},
		Labels: wantLabels(want, nil), PublicInterface: want.PublicInterface}
	o.PublicNet = createPublicNet(want, o.Labels)
	if want.Location != "" {
		o.Location = &hcloud.Location{Name: want.Location}
	} else {
		o.NetworkZone = hcloud.NetworkZone(want.NetworkZone)
	}
	if want.Algorithm != "" {
		o.Algorithm = &hcloud.LoadBalancerAlgorithm{Type: hcloud.LoadBalancerAlgorithmType(want.Algorithm)}
	}
	inlineNetwork := want.NetworkID != 0 && want.PrivateIP == nil && want.IPRange == nil
	if inlineNetwork {
		o.Network = &hcloud.Network{ID: want.NetworkID}
	} else if want.PublicInterface != nil && !*want.PublicInterface {
		o.PublicInterface = nil // disabled once attached
	}
	for _, s := range want.Services {
		o.Services = append(o.Services, createService(s))
	}
	for _, t := range want.Targets {
		if t.IP != "" || (t.UsePrivateIP && !inlineNetwork) {
			continue // ip targets, IPv6 ones (hcloud-go cannot say server.ip) and private ones until attached, come after
		}
		o.Targets = append(o.Targets, hcloud.LoadBalancerCreateOptsTarget{Type: hcloud.LoadBalancerTargetTypeServer,
			Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: &hcloud.Server{ID: t.ServerID}}, UsePrivateIP: hcloud.Ptr(t.UsePrivateIP)})
	}
	return o
}

func createService(s hcloud.LoadBalancerAddServiceOpts) hcloud.LoadBalancerCreateOptsService {
	c := hcloud.LoadBalancerCreateOptsService{Protocol: s.Protocol, ListenPort: s.ListenPort, DestinationPort: s.DestinationPort, Proxyprotocol: s.Proxyprotocol}
	if h := s.HTTP; h != nil {
		c.HTTP = &hcloud.LoadBalancerCreateOptsServiceHTTP{CookieName: h.CookieName, CookieLifetime: h.CookieLifetime,
			Certificates: h.Certificates, RedirectHTTP: h.RedirectHTTP, StickySessions: h.StickySessions, TimeoutIdle: h.TimeoutIdle}
	}
	if hc := s.HealthCheck; hc != nil {
		c.HealthCheck = &hcloud.LoadBalancerCreateOptsServiceHealthCheck{Protocol: hc.Protocol, Port: hc.Port,
			Interval: hc.Interval, Timeout: hc.Timeout, Retries: hc.Retries}
		if h := hc.HTTP; h != nil {
			c.HealthCheck.HTTP = &hcloud.LoadBalancerCreateOptsServiceHealthCheckHTTP{Domain: h.Domain, Path: h.Path,
				Response: h.Response, StatusCodes: h.StatusCodes, TLS: h.TLS}
		}
	}
	return c
}
