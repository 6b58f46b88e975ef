package annotation

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PortPrefix starts the annotations a Service port sets for itself:
// load-balancer.hetzner.cloud/port-<number or name>.<annotation>, such as
// port-443.protocol or port-https.http-certificates. The annotation
// without a port applies to every port; a port's own overrides it.
const PortPrefix = Prefix + "port-"

// portOwn is one annotation a port sets for itself.
type portOwn struct {
	key  string // the annotation as written, such as load-balancer.hetzner.cloud/port-443.protocol
	name Key    // the annotation it overrides, such as load-balancer.hetzner.cloud/protocol
}

// parsePorts reads each TCP port's options: its own annotations over the
// Service's (base). A key naming no TCP port, an annotation a port cannot
// set, one set twice for a port (by number and by name), and http options
// on a port that is not http or https are errors in a.
func parsePorts(a *annotations, svc *corev1.Service, d Defaults, base PortOptions) (map[int32]PortOptions, map[int32]bool) {
	own := portAnnotations(a, svc)
	out, has := map[int32]PortOptions{}, map[int32]bool{}
	for _, p := range svc.Spec.Ports {
		if !IsTCP(p) {
			continue
		}
		keys := own[p.Port]
		if len(keys) == 0 {
			out[p.Port] = base
			continue
		}
		sub := &annotations{m: maps.Clone(a.m), alias: map[string]string{}}
		for _, k := range keys {
			sub.m[string(k.name)] = a.m[k.key]
			sub.alias[string(k.name)] = k.key
		}
		po := parsePort(sub, svc, d)
		has[p.Port] = true
		for _, k := range keys {
			if need := portNeeds(k.name); need != nil && !slices.Contains(need, po.Protocol) {
				sub.errs = append(sub.errs, &Error{Key(k.key).Short(), a.m[k.key], fmt.Sprintf(
					"no value while port %d's protocol is %s: it applies to %s ports only (set %sprotocol)",
					p.Port, po.Protocol, strings.Join(need, " or "), Key(portKey(k.key)).Short())})
			}
		}
		a.errs = append(a.errs, sub.errs...)
		out[p.Port] = po
	}
	return out, has
}

// portAnnotations sorts the per-port annotations of svc by the port they
// name, reporting in a those that name no TCP port, set what a port
// cannot, or set the same thing twice.
func portAnnotations(a *annotations, svc *corev1.Service) map[int32][]portOwn {
	own := map[int32][]portOwn{}
	from := map[string]string{} // "443 protocol" → the key that set it
	for _, key := range slices.Sorted(maps.Keys(a.m)) {
		rest, ok := strings.CutPrefix(key, PortPrefix)
		if !ok {
			continue
		}
		id, opt, _ := strings.Cut(rest, ".")
		p, found := findPort(svc, id)
		name := Key(Prefix + opt)
		switch {
		case !found:
			a.errs = append(a.errs, &Error{Key(key).Short(), a.m[key], "a key naming a TCP port of the Service by number or name: " + tcpPorts(svc)})
		case !specs[name].port:
			a.errs = append(a.errs, &Error{Key(key).Short(), a.m[key], "a key ending in an annotation a port can set: " + strings.Join(portSettable(), ", ")})
		case from[fmt.Sprint(p, opt)] != "":
			a.errs = append(a.errs, &Error{Key(key).Short(), a.m[key],
				fmt.Sprintf("one value for port %d: %s sets %s too", p, Key(from[fmt.Sprint(p, opt)]).Short(), opt)})
		default:
			from[fmt.Sprint(p, opt)] = key
			own[p] = append(own[p], portOwn{key: key, name: name})
		}
	}
	return own
}

// findPort is the TCP port of svc that id names by number or name.
func findPort(svc *corev1.Service, id string) (int32, bool) {
	n, err := strconv.ParseInt(id, 10, 32)
	for _, p := range svc.Spec.Ports {
		if IsTCP(p) && ((err == nil && int64(p.Port) == n) || (err != nil && id != "" && p.Name == id)) {
			return p.Port, true
		}
	}
	return 0, false
}

// tcpPorts lists the TCP ports of svc as a per-port key names them.
func tcpPorts(svc *corev1.Service) string {
	var out []string
	for _, p := range svc.Spec.Ports {
		switch {
		case !IsTCP(p):
		case p.Name != "":
			out = append(out, fmt.Sprintf("%d (%s)", p.Port, p.Name))
		default:
			out = append(out, fmt.Sprint(p.Port))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// portSettable are the annotations a port can set for itself, by short name.
func portSettable() []string {
	var out []string
	for name, s := range specs {
		if s.port {
			out = append(out, name.Short())
		}
	}
	slices.Sort(out)
	return out
}

// portKey is the "…/port-443." part of a per-port key.
func portKey(key string) string {
	rest := strings.TrimPrefix(key, PortPrefix)
	id, _, _ := strings.Cut(rest, ".")
	return PortPrefix + id + "."
}

// portNeeds are the protocols of the ports on which name means
// something, or nil for every protocol.
func portNeeds(name Key) []string {
	switch name {
	case HTTPCookieName, HTTPCookieLifetime, HTTPStickySessions, HTTPTimeoutIdle:
		return []string{"http", "https"}
	case HTTPRedirectHTTP, CertificateType, HTTPCertificates, HTTPCertificateSecrets:
		return []string{"https"}
	}
	return nil
}

func IsTCP(p corev1.ServicePort) bool { return p.Protocol == "" || p.Protocol == corev1.ProtocolTCP }

// port is the options of the Service port numbered n.
func (o Options) Port(n int32) PortOptions {
	if p, ok := o.Ports[n]; ok {
		return p
	}
	return o.PortOptions
}

// anyPort reports whether f holds for the options of some TCP port.
func (o Options) AnyPort(f func(PortOptions) bool) bool {
	return slices.ContainsFunc(slices.Collect(maps.Values(o.Ports)), f)
}

// wantsManaged reports whether the Service asks for the managed
// certificate, on every port or on one.
func (o Options) WantsManaged() bool {
	return o.HTTP.CertificateType == "managed" || o.AnyPort(func(p PortOptions) bool { return p.HTTP.CertificateType == "managed" })
}
