package world

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
)

// LBPublicIPv4 is a new load balancer's public IPv4: the lowest address
// of the traffic range no load balancer or primary IP holds, or else one
// from the pool servers share.
func (w *project) LBPublicIPv4() (netip.Addr, bool) {
	if !w.LBIPv4.IsValid() {
		return w.PubIPv4.Take()
	}
	used := map[string]bool{}
	for _, lb := range w.LoadBalancers.All() {
		used[lb.PublicNet.IPv4.IP] = true
	}
	for _, p := range w.PrimaryIPs.All() {
		used[p.IP] = true
	}
	for a := w.LBIPv4.Addr().Next(); w.LBIPv4.Contains(a); a = a.Next() {
		if !used[a.String()] {
			return a, true
		}
	}
	return netip.Addr{}, false
}

// TrafficSpec is what the data plane serves: every load balancer whose
// public interface is on with an address in the traffic range.
func (w *project) TrafficSpec() []trafficspec.LoadBalancer {
	var out []trafficspec.LoadBalancer
	for _, lb := range w.LoadBalancers.All() {
		addr, err := netip.ParseAddr(lb.PublicNet.IPv4.IP)
		if err != nil || !lb.PublicNet.Enabled || !w.LBIPv4.Contains(addr) {
			continue
		}
		spec := trafficspec.LoadBalancer{ID: lb.ID, Addr: addr, Algorithm: lb.Algorithm.Type}
		for _, t := range w.viewTargets(lb) {
			if t.Targets != nil {
				for _, sub := range *t.Targets {
					spec.Targets = appendTarget(spec.Targets, sub)
				}
				continue
			}
			spec.Targets = appendTarget(spec.Targets, t)
		}
		for _, svc := range lb.Services {
			spec.Services = append(spec.Services, w.trafficService(lb, svc, spec.Targets))
		}
		out = append(out, spec)
	}
	return out
}

// appendTarget adds a target once, with the address traffic goes to.
func appendTarget(ts []trafficspec.Target, t Target) []trafficspec.Target {
	ip := ""
	switch {
	case t.Server != nil:
		ip = t.Server.IP
	case t.IP != nil:
		ip = t.IP.IP
	}
	addr, err := netip.ParseAddr(ip)
	key := TargetKey(t)
	if err != nil || slices.ContainsFunc(ts, func(o trafficspec.Target) bool { return o.Key == key }) {
		return ts
	}
	return append(ts, trafficspec.Target{Key: key, Addr: addr})
}

func (w *project) trafficService(lb *StoredLoadBalancer, svc schema.LoadBalancerService, targets []trafficspec.Target) trafficspec.Service {
	out := trafficspec.Service{Protocol: svc.Protocol, ListenPort: svc.ListenPort, DestinationPort: svc.DestinationPort,
		ProxyProtocol: svc.Proxyprotocol, Forced: map[string]string{}}
	if h := svc.HTTP; h != nil {
		out.StickySessions, out.CookieName, out.RedirectHTTP = h.StickySessions, h.CookieName, h.RedirectHTTP
		out.CookieLifetime = time.Duration(h.CookieLifetime) * time.Second
		for _, id := range h.Certificates {
			if c, ok := w.Certificates.Get(id); ok {
				out.TLSNames = append(out.TLSNames, c.DomainNames...)
				if key, ok := w.CertKeys[id]; ok && c.Certificate != "" {
					out.TLS = append(out.TLS, trafficspec.TLSPair{ID: id, Chain: c.Certificate, Key: key})
				}
			}
		}
	}
	if hc := svc.HealthCheck; hc != nil {
		out.HealthCheck = trafficspec.HealthCheck{Protocol: hc.Protocol, Port: hc.Port, Retries: hc.Retries,
			Interval: time.Duration(hc.Interval) * time.Second, Timeout: time.Duration(hc.Timeout) * time.Second}
		if hh := hc.HTTP; hh != nil {
			out.HealthCheck.Domain, out.HealthCheck.Path, out.HealthCheck.Response = hh.Domain, hh.Path, hh.Response
			out.HealthCheck.StatusCodes = hh.StatusCodes
		}
	}
	for _, t := range targets {
		if st, ok := w.forcedHealth(lb, t.Key, svc.ListenPort); ok {
			out.Forced[t.Key] = st
		}
	}
	return out
}

// forcedHealth is a status that does not come from checks: one a script
// set, or unhealthy for a server that is gone or not running.
func (w *project) forcedHealth(lb *StoredLoadBalancer, key string, port int) (string, bool) {
	var id int64
	if _, err := fmt.Sscanf(key, "server:%d", &id); err == nil {
		if s, ok := w.Servers.Get(id); !ok || (w.Probed != nil && s.Status != "running") {
			return "unhealthy", true
		}
	}
	if h, ok := lb.Health[fmt.Sprintf("%s/%d", key, port)]; ok {
		return h, true
	}
	if h, ok := lb.Health[key]; ok {
		return h, true
	}
	return "", false
}
