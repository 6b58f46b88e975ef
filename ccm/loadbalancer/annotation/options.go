package annotation

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Options is what a Service's annotations, over the HCLOUD_LOAD_BALANCERS_*
// defaults, ask of its load balancer. Pointers and empty values are
// "unset": the API's default applies, or the existing value is kept.
type Options struct {
	Name         string // the name annotation; empty: the default name
	Type         string
	TypeExplicit bool // set by annotation or env: applied to an existing load balancer too
	// TypeConfigured is set when the type annotation or
	// HCLOUD_LOAD_BALANCERS_TYPE is, to any value: else the official CCM
	// warns that the type will be required.
	TypeConfigured bool
	Location       string
	NetworkZone    string // only when no location is set
	Algorithm      string
	NodeSelector   labels.Selector // nil: every node
	Hostname       string

	KeepOtherServices bool // ports the Service does not declare and the CCM did not add stay
	RetainOnDelete    bool // the load balancer is released, not deleted, with the Service
	ExternallyManaged bool // the load balancer Name names is only read
	ManageTargets     bool // with ExternallyManaged: the CCM keeps its targets

	IPv6Disabled          bool
	IPv4RDNS, IPv6RDNS    *string
	DisablePublicNetwork  *bool
	DisablePrivateIngress bool
	UsePrivateIP          bool
	TargetAddressFamily   string // FamilyIPv4, FamilyIPv6 or FamilyDualStack
	PrivateIPv4           netip.Addr
	PrivateSubnetIPRange  netip.Prefix
	// PublicNetIPv4 and PublicNetIPv6 are the IDs of the Primary IPs a new
	// load balancer is created on; 0: an address of its own.
	PublicNetIPv4, PublicNetIPv6 int64

	PortOptions // from the annotations without a port: every port's unless it sets its own
	// Ports are the options of each TCP port of the Service, by port
	// number: its own annotations (ports.go) over PortOptions.
	Ports map[int32]PortOptions
	Own   map[int32]bool // the ports with annotations of their own
}

// PortOptions are the options a Service port can set apart from the others.
type PortOptions struct {
	Protocol      string // tcp, http or https
	ProxyProtocol bool
	HTTP          HTTPOptions
	HealthCheck   HealthCheckOptions
}

type HTTPOptions struct {
	CookieName         string
	CookieLifetime     time.Duration
	StickySessions     *bool
	RedirectHTTP       *bool
	TimeoutIdle        time.Duration
	CertificateType    string // uploaded or managed
	Certificates       []string
	CertificatesFrom   string   // the annotation that named them, short, for errors
	CertificateSecrets []string // TLS Secrets in the Service's namespace
	SecretsFrom        string   // the annotation that named them, short, for errors
	ManagedCertName    string
	ManagedCertDomains []string
}

type HealthCheckOptions struct {
	Configured        bool   // any health check setting given: otherwise TCP on the nodePort
	Aimed             bool   // protocol, port, path, domain or status codes given: Kubernetes' health endpoints are not used
	KubeProxy         bool   // Cluster Services check kube-proxy's /healthz
	Protocol          string // tcp, http or https; empty: the service's protocol
	Port              int    // 0: the nodePort
	Interval, Timeout time.Duration
	Retries           int // 0: the API's default
	HTTPDomain        string
	HTTPPath          string
	ValidateCert      *bool
	StatusCodes       []string
}

// Error is a bad annotation value, with what is accepted.
type Error struct {
	Key, Value, Accepted string
}

func (e *Error) Error() string {
	return fmt.Sprintf("annotation %s%s=%q is not valid: want %s", Prefix, e.Key, e.Value, e.Accepted)
}

// annotations reads typed annotation values, as the table of specs says,
// and collects every error.
type annotations struct {
	m     map[string]string
	alias map[string]string // full name → the port's own annotation its value came from
	errs  []error
}

func (a *annotations) get(name Key) (string, bool) {
	v, ok := a.m[string(name)]
	return v, ok
}

// fail reports value as not what name accepts.
func (a *annotations) fail(name Key, value string) {
	a.errs = append(a.errs, &Error{a.short(name), value, specs[name].accepted()})
}

// short is the name without the prefix, or that of the port's own
// annotation the value came from.
func (a *annotations) short(name Key) string {
	if k, ok := a.alias[string(name)]; ok {
		return Key(k).Short()
	}
	return name.Short()
}

func (a *annotations) str(name Key, def string) string {
	if v, ok := a.get(name); ok {
		return v
	}
	return def
}

func (a *annotations) optStr(name Key) *string {
	if v, ok := a.get(name); ok {
		return &v
	}
	return nil
}

func (a *annotations) boolean(name Key, def bool) bool {
	if b := a.optBool(name); b != nil {
		return *b
	}
	return def
}

func (a *annotations) optBool(name Key) *bool {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		a.fail(name, v)
		return nil
	}
	return &b
}

// integer parses a whole number in the spec's range; def when unset.
func (a *annotations) integer(name Key, def int) int {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if s := specs[name]; err != nil || n < s.lo || n > s.hi {
		a.fail(name, v)
		return def
	}
	return n
}

// id parses a resource ID, a whole number above 0; 0 when unset.
func (a *annotations) id(name Key) int64 {
	v, ok := a.get(name)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		a.fail(name, v)
		return 0
	}
	return n
}

// seconds parses a duration of whole seconds in the spec's range, such as 15s.
func (a *annotations) seconds(name Key, def time.Duration) time.Duration {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if s := specs[name]; err != nil || d%time.Second != 0 || d < s.min || d > s.max {
		a.fail(name, v)
		return def
	}
	return d
}

// oneOf is one of the spec's choices, in any case; def when unset.
func (a *annotations) oneOf(name Key, def string) string {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	for _, c := range specs[name].choices {
		if strings.EqualFold(strings.TrimSpace(v), c) {
			return c
		}
	}
	a.fail(name, v)
	return def
}

func (a *annotations) list(name Key) []string {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	return splitComma(v)
}

var statusCodePattern = regexp.MustCompile(`^[1-5][0-9?*]{0,2}$|^\*$`)

// Parse reads a Service's annotations over the defaults. Every
// bad value is reported, joined; the options are then not to be used.
func Parse(svc *corev1.Service, d Defaults) (Options, error) {
	a := &annotations{m: svc.Annotations}
	o := Options{
		Name:                  strings.TrimSpace(a.str(Name, "")),
		Type:                  strings.ToLower(strings.TrimSpace(a.str(Type, d.Type))),
		Location:              a.str(Location, d.Location),
		NetworkZone:           a.str(NetworkZone, d.NetworkZone),
		Algorithm:             a.oneOf(AlgorithmType, d.AlgorithmType),
		Hostname:              a.str(Hostname, ""),
		KeepOtherServices:     a.boolean(KeepOtherServices, false),
		RetainOnDelete:        a.boolean(RetainOnDelete, false),
		ExternallyManaged:     a.boolean(ExternallyManaged, false),
		ManageTargets:         a.boolean(ManageTargets, false),
		IPv6Disabled:          a.boolean(IPv6Disabled, d.DisableIPv6),
		IPv4RDNS:              a.optStr(IPv4RDNS),
		IPv6RDNS:              a.optStr(IPv6RDNS),
		DisablePublicNetwork:  a.optBool(DisablePublicNetwork),
		DisablePrivateIngress: a.boolean(DisablePrivateIngress, d.DisablePrivateIngress),
		UsePrivateIP:          a.boolean(UsePrivateIP, d.UsePrivateIP),
		TargetAddressFamily:   a.oneOf(TargetAddressFamily, cmp.Or(d.TargetAddressFamily, FamilyIPv4)),
		PublicNetIPv4:         a.id(PublicNetIPv4),
		PublicNetIPv6:         a.id(PublicNetIPv6),
	}
	_, typed := a.get(Type)
	o.TypeExplicit = typed || d.Type != "lb11"
	o.TypeConfigured = typed || d.TypeSet
	if strings.TrimSpace(o.Type) == "" {
		a.fail(Type, o.Type)
	}
	if o.Location != "" {
		o.NetworkZone = "" // a location implies its zone, as upstream
	}
	if o.DisablePublicNetwork == nil {
		o.DisablePublicNetwork = d.DisablePublicNetwork
	}
	if v, ok := a.get(NodeSelector); ok {
		sel, err := labels.Parse(v)
		if err != nil {
			a.fail(NodeSelector, v)
		}
		o.NodeSelector = sel
	}
	if v, ok := a.get(PrivateIPv4); ok {
		ip, err := netip.ParseAddr(strings.TrimSpace(v))
		if err != nil || !ip.Is4() {
			a.fail(PrivateIPv4, v)
		}
		o.PrivateIPv4 = ip
	}
	subnet := a.str(PrivateSubnetIPRange, d.PrivateSubnetIPRange)
	if subnet != "" {
		p, err := netip.ParsePrefix(strings.TrimSpace(subnet))
		if err != nil {
			a.fail(PrivateSubnetIPRange, subnet)
		}
		o.PrivateSubnetIPRange = p
	}
	if v, set := a.get(TargetAddressFamily); set && o.UsePrivateIP && o.TargetAddressFamily != FamilyIPv4 {
		a.errs = append(a.errs, &Error{TargetAddressFamily.Short(), v, "ipv4 while use-private-ip is true: private networks are IPv4-only"})
	}
	if o.ManageTargets && !o.ExternallyManaged {
		a.errs = append(a.errs, &Error{ManageTargets.Short(), a.m[string(ManageTargets)], "false unless externally-managed is true: the CCM keeps the targets of its own load balancers anyway"})
	}
	for _, k := range []struct {
		key Key
		set bool
	}{{KeepOtherServices, o.KeepOtherServices}, {RetainOnDelete, o.RetainOnDelete}} {
		if k.set && o.ExternallyManaged {
			a.errs = append(a.errs, &Error{k.key.Short(), a.m[string(k.key)], "false with externally-managed: the CCM changes and deletes nothing of an externally managed load balancer"})
		}
	}
	for _, k := range []Key{PublicNetIPv4, PublicNetIPv6} {
		if v, ok := a.get(k); ok && o.ExternallyManaged {
			a.errs = append(a.errs, &Error{k.Short(), v, "unset with externally-managed: the CCM never creates an externally managed load balancer"})
		}
	}
	if o.ExternallyManaged && o.Name == "" {
		a.errs = append(a.errs, &Error{ExternallyManaged.Short(), a.m[string(ExternallyManaged)], "false unless the annotation name names the load balancer"})
	}
	o.PortOptions = parsePort(a, svc, d)
	o.Ports, o.Own = parsePorts(a, svc, d, o.PortOptions)
	return o, JoinUnique(a.errs)
}

// parsePort reads what a port can set from a: the Service's annotations,
// or a port's own over them.
func parsePort(a *annotations, svc *corev1.Service, d Defaults) PortOptions {
	p := PortOptions{Protocol: a.oneOf(Protocol, "tcp")}
	proxy := a.optBool(UsesProxyProtocol)
	if proxy == nil {
		proxy = d.UsesProxyProtocol
	}
	p.ProxyProtocol = proxy != nil && *proxy
	p.HTTP = parseHTTPOptions(a, svc)
	p.HealthCheck = parseHealthCheck(a, d)
	return p
}

// JoinUnique joins errs, each message once: a port's own annotations are
// read over the Service's, whose errors each port would repeat.
func JoinUnique(errs []error) error {
	var out []error
	seen := map[string]bool{}
	for _, e := range errs {
		if m := e.Error(); !seen[m] {
			seen[m] = true
			out = append(out, e)
		}
	}
	return errors.Join(out...)
}

func parseHTTPOptions(a *annotations, svc *corev1.Service) HTTPOptions {
	h := HTTPOptions{
		CookieName:         a.str(HTTPCookieName, ""),
		CookieLifetime:     a.seconds(HTTPCookieLifetime, 0),
		StickySessions:     a.optBool(HTTPStickySessions),
		RedirectHTTP:       a.optBool(HTTPRedirectHTTP),
		TimeoutIdle:        a.seconds(HTTPTimeoutIdle, 0),
		CertificateType:    a.oneOf(CertificateType, "uploaded"),
		Certificates:       a.list(HTTPCertificates),
		CertificatesFrom:   a.short(HTTPCertificates),
		CertificateSecrets: a.list(HTTPCertificateSecrets),
		SecretsFrom:        a.short(HTTPCertificateSecrets),
		ManagedCertName:    a.str(HTTPManagedCertificateName, "ccm-managed-certificate-"+string(svc.UID)),
	}
	for _, name := range h.CertificateSecrets {
		if len(validation.IsDNS1123Subdomain(name)) > 0 {
			v, _ := a.get(HTTPCertificateSecrets)
			a.fail(HTTPCertificateSecrets, v)
			break
		}
	}
	if len(h.CookieName) > 100 {
		a.fail(HTTPCookieName, h.CookieName)
	}
	if h.CertificateType == "managed" {
		h.ManagedCertDomains = a.list(HTTPManagedCertificateDomains)
		if len(h.ManagedCertDomains) == 0 {
			v, _ := a.get(HTTPManagedCertificateDomains)
			a.fail(HTTPManagedCertificateDomains, v)
		}
	}
	return h
}

func parseHealthCheck(a *annotations, d Defaults) HealthCheckOptions {
	h := HealthCheckOptions{
		Protocol:     a.oneOf(HealthCheckProtocol, ""),
		Port:         a.integer(HealthCheckPort, 0),
		Interval:     a.seconds(HealthCheckInterval, d.HealthCheckInterval),
		Timeout:      a.seconds(HealthCheckTimeout, d.HealthCheckTimeout),
		HTTPDomain:   a.str(HealthCheckHTTPDomain, ""),
		HTTPPath:     a.str(HealthCheckHTTPPath, ""),
		ValidateCert: a.optBool(HealthCheckHTTPValidateCertificate),
		StatusCodes:  a.list(HTTPStatusCodes),
	}
	retries := 0
	if d.HealthCheckRetries != nil {
		retries = *d.HealthCheckRetries
	}
	h.Retries = a.integer(HealthCheckRetries, retries)
	if len(h.HTTPDomain) > 128 || strings.ContainsAny(h.HTTPDomain, " %\\") {
		a.fail(HealthCheckHTTPDomain, h.HTTPDomain)
	}
	if len(h.HTTPPath) > 256 || strings.Contains(h.HTTPPath, " ") || (h.HTTPPath != "" && !strings.HasPrefix(h.HTTPPath, "/")) {
		a.fail(HealthCheckHTTPPath, h.HTTPPath)
	}
	if len(h.StatusCodes) > 20 || slices.ContainsFunc(h.StatusCodes, func(c string) bool { return !statusCodePattern.MatchString(c) }) {
		v, _ := a.get(HTTPStatusCodes)
		a.fail(HTTPStatusCodes, v)
	}
	given := func(names ...Key) bool {
		return slices.ContainsFunc(names, func(n Key) bool { _, ok := a.get(n); return ok })
	}
	h.Aimed = given(HealthCheckProtocol, HealthCheckPort, HealthCheckHTTPDomain,
		HealthCheckHTTPPath, HealthCheckHTTPValidateCertificate, HTTPStatusCodes)
	h.Configured = h.Aimed || given(HealthCheckInterval, HealthCheckTimeout, HealthCheckRetries) ||
		d.HealthCheckInterval != 0 || d.HealthCheckTimeout != 0 || d.HealthCheckRetries != nil
	h.KubeProxy = a.boolean(HealthCheckKubeProxy, d.HealthCheckKubeProxy)
	return h
}

// splitComma is the comma-separated list s, trimmed, without empty items.
func splitComma(s string) []string {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
