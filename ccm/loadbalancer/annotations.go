package loadbalancer

import (
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
)

// lbOptions is what a Service's annotations, over the HCLOUD_LOAD_BALANCERS_*
// defaults, ask of its load balancer. Pointers and empty values are
// "unset": the API's default applies, or the existing value is kept.
type lbOptions struct {
	Name         string // the name annotation; empty: the default name
	Type         string
	TypeExplicit bool // set by annotation or env: applied to an existing load balancer too
	Location     string
	NetworkZone  string // only when no location is set
	Algorithm    string
	NodeSelector labels.Selector // nil: every node
	Hostname     string

	IPv6Disabled          bool
	IPv4RDNS, IPv6RDNS    *string
	DisablePublicNetwork  *bool
	DisablePrivateIngress bool
	UsePrivateIP          bool
	PrivateIPv4           netip.Addr
	PrivateSubnetIPRange  netip.Prefix

	lbPortOptions // from the annotations without a port: every port's unless it sets its own
	// Ports are the options of each TCP port of the Service, by port
	// number: its own annotations (ports.go) over lbPortOptions.
	Ports map[int32]lbPortOptions
	Own   map[int32]bool // the ports with annotations of their own
}

// lbPortOptions are the options a Service port can set apart from the others.
type lbPortOptions struct {
	Protocol      string // tcp, http or https
	ProxyProtocol bool
	HTTP          lbHTTPOptions
	HealthCheck   lbHealthCheckOptions
}

type lbHTTPOptions struct {
	CookieName         string
	CookieLifetime     time.Duration
	StickySessions     *bool
	RedirectHTTP       *bool
	TimeoutIdle        time.Duration
	CertificateType    string // uploaded or managed
	Certificates       []string
	CertificatesFrom   string // the annotation that named them, short, for errors
	ManagedCertName    string
	ManagedCertDomains []string
}

type lbHealthCheckOptions struct {
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

// annotationError is a bad annotation value, with what is accepted.
type annotationError struct {
	Annotation, Value, Accepted string
}

func (e *annotationError) Error() string {
	return fmt.Sprintf("annotation %s%s=%q is not valid: want %s", annotationPrefix, e.Annotation, e.Value, e.Accepted)
}

// annotations reads typed annotation values, as the table of specs says,
// and collects every error.
type annotations struct {
	m     map[string]string
	alias map[string]string // full name → the port's own annotation its value came from
	errs  []error
}

func (a *annotations) get(name Annotation) (string, bool) {
	v, ok := a.m[string(name)]
	return v, ok
}

// fail reports value as not what name accepts.
func (a *annotations) fail(name Annotation, value string) {
	a.errs = append(a.errs, &annotationError{a.short(name), value, specs[name].accepted()})
}

// short is the name without the prefix, or that of the port's own
// annotation the value came from.
func (a *annotations) short(name Annotation) string {
	if k, ok := a.alias[string(name)]; ok {
		return Annotation(k).short()
	}
	return name.short()
}

func (a *annotations) str(name Annotation, def string) string {
	if v, ok := a.get(name); ok {
		return v
	}
	return def
}

func (a *annotations) optStr(name Annotation) *string {
	if v, ok := a.get(name); ok {
		return &v
	}
	return nil
}

func (a *annotations) boolean(name Annotation, def bool) bool {
	if b := a.optBool(name); b != nil {
		return *b
	}
	return def
}

func (a *annotations) optBool(name Annotation) *bool {
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
func (a *annotations) integer(name Annotation, def int) int {
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

// seconds parses a duration of whole seconds in the spec's range, such as 15s.
func (a *annotations) seconds(name Annotation, def time.Duration) time.Duration {
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
func (a *annotations) oneOf(name Annotation, def string) string {
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

func (a *annotations) list(name Annotation) []string {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	return splitComma(v)
}

var statusCodePattern = regexp.MustCompile(`^[1-5][0-9?*]{0,2}$|^\*$`)

// parseLBOptions reads a Service's annotations over the defaults. Every
// bad value is reported, joined; the options are then not to be used.
func parseLBOptions(svc *corev1.Service, d Defaults) (lbOptions, error) {
	a := &annotations{m: svc.Annotations}
	o := lbOptions{
		Name:                  strings.TrimSpace(a.str(AnnotationName, "")),
		Type:                  strings.ToLower(strings.TrimSpace(a.str(AnnotationType, d.Type))),
		Location:              a.str(AnnotationLocation, d.Location),
		NetworkZone:           a.str(AnnotationNetworkZone, d.NetworkZone),
		Algorithm:             a.oneOf(AnnotationAlgorithmType, d.AlgorithmType),
		Hostname:              a.str(AnnotationHostname, ""),
		IPv6Disabled:          a.boolean(AnnotationIPv6Disabled, d.DisableIPv6),
		IPv4RDNS:              a.optStr(AnnotationIPv4RDNS),
		IPv6RDNS:              a.optStr(AnnotationIPv6RDNS),
		DisablePublicNetwork:  a.optBool(AnnotationDisablePublicNetwork),
		DisablePrivateIngress: a.boolean(AnnotationDisablePrivateIngress, d.DisablePrivateIngress),
		UsePrivateIP:          a.boolean(AnnotationUsePrivateIP, d.UsePrivateIP),
	}
	_, typed := a.get(AnnotationType)
	o.TypeExplicit = typed || d.Type != "lb11"
	if strings.TrimSpace(o.Type) == "" {
		a.fail(AnnotationType, o.Type)
	}
	if o.Location != "" {
		o.NetworkZone = "" // a location implies its zone, as upstream
	}
	if o.DisablePublicNetwork == nil {
		o.DisablePublicNetwork = d.DisablePublicNetwork
	}
	if v, ok := a.get(AnnotationNodeSelector); ok {
		sel, err := labels.Parse(v)
		if err != nil {
			a.fail(AnnotationNodeSelector, v)
		}
		o.NodeSelector = sel
	}
	if v, ok := a.get(AnnotationPrivateIPv4); ok {
		ip, err := netip.ParseAddr(strings.TrimSpace(v))
		if err != nil || !ip.Is4() {
			a.fail(AnnotationPrivateIPv4, v)
		}
		o.PrivateIPv4 = ip
	}
	subnet := a.str(AnnotationPrivateSubnetIPRange, d.PrivateSubnetIPRange)
	if subnet != "" {
		p, err := netip.ParsePrefix(strings.TrimSpace(subnet))
		if err != nil {
			a.fail(AnnotationPrivateSubnetIPRange, subnet)
		}
		o.PrivateSubnetIPRange = p
	}
	o.lbPortOptions = parsePort(a, svc, d)
	o.Ports, o.Own = parsePorts(a, svc, d, o.lbPortOptions)
	return o, joinUnique(a.errs)
}

// parsePort reads what a port can set from a: the Service's annotations,
// or a port's own over them.
func parsePort(a *annotations, svc *corev1.Service, d Defaults) lbPortOptions {
	p := lbPortOptions{Protocol: a.oneOf(AnnotationProtocol, "tcp")}
	proxy := a.optBool(AnnotationUsesProxyProtocol)
	if proxy == nil {
		proxy = d.UsesProxyProtocol
	}
	p.ProxyProtocol = proxy != nil && *proxy
	p.HTTP = parseHTTPOptions(a, svc)
	p.HealthCheck = parseHealthCheck(a, d)
	return p
}

// joinUnique joins errs, each message once: a port's own annotations are
// read over the Service's, whose errors each port would repeat.
func joinUnique(errs []error) error {
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

func parseHTTPOptions(a *annotations, svc *corev1.Service) lbHTTPOptions {
	h := lbHTTPOptions{
		CookieName:       a.str(AnnotationHTTPCookieName, ""),
		CookieLifetime:   a.seconds(AnnotationHTTPCookieLifetime, 0),
		StickySessions:   a.optBool(AnnotationHTTPStickySessions),
		RedirectHTTP:     a.optBool(AnnotationHTTPRedirectHTTP),
		TimeoutIdle:      a.seconds(AnnotationHTTPTimeoutIdle, 0),
		CertificateType:  a.oneOf(AnnotationCertificateType, "uploaded"),
		Certificates:     a.list(AnnotationHTTPCertificates),
		CertificatesFrom: a.short(AnnotationHTTPCertificates),
		ManagedCertName:  a.str(AnnotationHTTPManagedCertificateName, "ccm-managed-certificate-"+string(svc.UID)),
	}
	if len(h.CookieName) > 100 {
		a.fail(AnnotationHTTPCookieName, h.CookieName)
	}
	if h.CertificateType == "managed" {
		h.ManagedCertDomains = a.list(AnnotationHTTPManagedCertificateDomains)
		if len(h.ManagedCertDomains) == 0 {
			v, _ := a.get(AnnotationHTTPManagedCertificateDomains)
			a.fail(AnnotationHTTPManagedCertificateDomains, v)
		}
	}
	return h
}

func parseHealthCheck(a *annotations, d Defaults) lbHealthCheckOptions {
	h := lbHealthCheckOptions{
		Protocol:     a.oneOf(AnnotationHealthCheckProtocol, ""),
		Port:         a.integer(AnnotationHealthCheckPort, 0),
		Interval:     a.seconds(AnnotationHealthCheckInterval, d.HealthCheckInterval),
		Timeout:      a.seconds(AnnotationHealthCheckTimeout, d.HealthCheckTimeout),
		HTTPDomain:   a.str(AnnotationHealthCheckHTTPDomain, ""),
		HTTPPath:     a.str(AnnotationHealthCheckHTTPPath, ""),
		ValidateCert: a.optBool(AnnotationHealthCheckHTTPValidateCertificate),
		StatusCodes:  a.list(AnnotationHTTPStatusCodes),
	}
	retries := 0
	if d.HealthCheckRetries != nil {
		retries = *d.HealthCheckRetries
	}
	h.Retries = a.integer(AnnotationHealthCheckRetries, retries)
	if len(h.HTTPDomain) > 128 || strings.ContainsAny(h.HTTPDomain, " %\\") {
		a.fail(AnnotationHealthCheckHTTPDomain, h.HTTPDomain)
	}
	if len(h.HTTPPath) > 256 || strings.Contains(h.HTTPPath, " ") || (h.HTTPPath != "" && !strings.HasPrefix(h.HTTPPath, "/")) {
		a.fail(AnnotationHealthCheckHTTPPath, h.HTTPPath)
	}
	if len(h.StatusCodes) > 20 || slices.ContainsFunc(h.StatusCodes, func(c string) bool { return !statusCodePattern.MatchString(c) }) {
		v, _ := a.get(AnnotationHTTPStatusCodes)
		a.fail(AnnotationHTTPStatusCodes, v)
	}
	given := func(names ...Annotation) bool {
		return slices.ContainsFunc(names, func(n Annotation) bool { _, ok := a.get(n); return ok })
	}
	h.Aimed = given(AnnotationHealthCheckProtocol, AnnotationHealthCheckPort, AnnotationHealthCheckHTTPDomain,
		AnnotationHealthCheckHTTPPath, AnnotationHealthCheckHTTPValidateCertificate, AnnotationHTTPStatusCodes)
	h.Configured = h.Aimed || given(AnnotationHealthCheckInterval, AnnotationHealthCheckTimeout, AnnotationHealthCheckRetries) ||
		d.HealthCheckInterval != 0 || d.HealthCheckTimeout != 0 || d.HealthCheckRetries != nil
	h.KubeProxy = a.boolean(AnnotationHealthCheckKubeProxy, d.HealthCheckKubeProxy)
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
