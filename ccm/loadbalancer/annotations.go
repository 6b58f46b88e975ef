package loadbalancer

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// annotationPrefix is the official CCM's prefix for Service annotations.
const annotationPrefix = "load-balancer.hetzner.cloud/"

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
	ManagedCertName    string
	ManagedCertDomains []string
}

type lbHealthCheckOptions struct {
	Configured        bool   // any health check setting given: otherwise TCP on the nodePort
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

// annotations reads typed annotation values and collects every error.
type annotations struct {
	m    map[string]string
	errs []error
}

func (a *annotations) get(name string) (string, bool) {
	v, ok := a.m[annotationPrefix+name]
	return v, ok
}

func (a *annotations) fail(name, value, accepted string) {
	a.errs = append(a.errs, &annotationError{name, value, accepted})
}

func (a *annotations) str(name, def string) string {
	if v, ok := a.get(name); ok {
		return v
	}
	return def
}

func (a *annotations) optStr(name string) *string {
	if v, ok := a.get(name); ok {
		return &v
	}
	return nil
}

func (a *annotations) boolean(name string, def bool) bool {
	if b := a.optBool(name); b != nil {
		return *b
	}
	return def
}

func (a *annotations) optBool(name string) *bool {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		a.fail(name, v, "true or false")
		return nil
	}
	return &b
}

// integer parses a whole number in [lo, hi]; def when unset.
func (a *annotations) integer(name string, def, lo, hi int) int {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		a.fail(name, v, fmt.Sprintf("a whole number from %d to %d", lo, hi))
		return def
	}
	return n
}

// seconds parses a duration of whole seconds in [lo, hi], such as 15s.
func (a *annotations) seconds(name string, def, lo, hi time.Duration) time.Duration {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d%time.Second != 0 || d < lo || d > hi {
		a.fail(name, v, fmt.Sprintf("whole seconds from %s to %s, such as %s", lo, hi, lo))
		return def
	}
	return d
}

func (a *annotations) oneOf(name, def string, accepted ...string) string {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	for _, s := range accepted {
		if strings.EqualFold(strings.TrimSpace(v), s) {
			return s
		}
	}
	a.fail(name, v, "one of "+strings.Join(accepted, ", "))
	return def
}

func (a *annotations) list(name string) []string {
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
		Name:                  strings.TrimSpace(a.str("name", "")),
		Type:                  strings.ToLower(strings.TrimSpace(a.str("type", d.Type))),
		Location:              a.str("location", d.Location),
		NetworkZone:           a.str("network-zone", d.NetworkZone),
		Algorithm:             a.oneOf("algorithm-type", d.AlgorithmType, "round_robin", "least_connections"),
		Hostname:              a.str("hostname", ""),
		IPv6Disabled:          a.boolean("ipv6-disabled", d.DisableIPv6),
		IPv4RDNS:              a.optStr("ipv4-rdns"),
		IPv6RDNS:              a.optStr("ipv6-rdns"),
		DisablePublicNetwork:  a.optBool("disable-public-network"),
		DisablePrivateIngress: a.boolean("disable-private-ingress", d.DisablePrivateIngress),
		UsePrivateIP:          a.boolean("use-private-ip", d.UsePrivateIP),
		Protocol:              a.oneOf("protocol", "tcp", "tcp", "http", "https"),
	}
	_, typed := a.get("type")
	o.TypeExplicit = typed || d.Type != "lb11"
	if strings.TrimSpace(o.Type) == "" {
		a.fail("type", o.Type, "a load balancer type such as lb11, lb21 or lb31")
	}
	if o.Location != "" {
		o.NetworkZone = "" // a location implies its zone, as upstream
	}
	if o.DisablePublicNetwork == nil {
		o.DisablePublicNetwork = d.DisablePublicNetwork
	}
	if v, ok := a.get("node-selector"); ok {
		sel, err := labels.Parse(v)
		if err != nil {
			a.fail("node-selector", v, "a label selector such as role=worker,zone!=fsn1")
		}
		o.NodeSelector = sel
	}
	if v, ok := a.get("private-ipv4"); ok {
		ip, err := netip.ParseAddr(strings.TrimSpace(v))
		if err != nil || !ip.Is4() {
			a.fail("private-ipv4", v, "an IPv4 address in the network, such as 10.0.0.100")
		}
		o.PrivateIPv4 = ip
	}
	subnet := a.str("private-subnet-ip-range", d.PrivateSubnetIPRange)
	if subnet != "" {
		p, err := netip.ParsePrefix(strings.TrimSpace(subnet))
		if err != nil {
			a.fail("private-subnet-ip-range", subnet, "a subnet of the network, such as 10.0.1.0/24")
		}
		o.PrivateSubnetIPRange = p
	}
	proxy := a.optBool("uses-proxyprotocol")
	if proxy == nil {
		proxy = d.UsesProxyProtocol
	}
	o.ProxyProtocol = proxy != nil && *proxy
	o.HTTP = parseHTTPOptions(a, svc)
	o.HealthCheck = parseHealthCheck(a, d)
	return o, errors.Join(a.errs...)
}

func parseHTTPOptions(a *annotations, svc *corev1.Service) lbHTTPOptions {
	h := lbHTTPOptions{
		CookieName:      a.str("http-cookie-name", ""),
		CookieLifetime:  a.seconds("http-cookie-lifetime", 0, 30*time.Second, 86400*time.Second),
		StickySessions:  a.optBool("http-sticky-sessions"),
		RedirectHTTP:    a.optBool("http-redirect-http"),
		TimeoutIdle:     a.seconds("http-timeout-idle", 0, 30*time.Second, 300*time.Second),
		CertificateType: a.oneOf("certificate-type", "uploaded", "uploaded", "managed"),
		Certificates:    a.list("http-certificates"),
		ManagedCertName: a.str("http-managed-certificate-name", "ccm-managed-certificate-"+string(svc.UID)),
	}
	if len(h.CookieName) > 100 {
		a.fail("http-cookie-name", h.CookieName, "1 to 100 characters")
	}
	if h.CertificateType == "managed" {
		h.ManagedCertDomains = a.list("http-managed-certificate-domains")
		if len(h.ManagedCertDomains) == 0 {
			v, _ := a.get("http-managed-certificate-domains")
			a.fail("http-managed-certificate-domains", v, "the domains of the managed certificate, such as example.com,www.example.com (required with certificate-type managed)")
		}
	}
	return h
}

func parseHealthCheck(a *annotations, d Defaults) lbHealthCheckOptions {
	h := lbHealthCheckOptions{
		Protocol:     a.oneOf("health-check-protocol", "", "tcp", "http", "https"),
		Port:         a.integer("health-check-port", 0, 1, 65535),
		Interval:     a.seconds("health-check-interval", d.HealthCheckInterval, 3*time.Second, 60*time.Second),
		Timeout:      a.seconds("health-check-timeout", d.HealthCheckTimeout, time.Second, 60*time.Second),
		HTTPDomain:   a.str("health-check-http-domain", ""),
		HTTPPath:     a.str("health-check-http-path", ""),
		ValidateCert: a.optBool("health-check-http-validate-certificate"),
		StatusCodes:  a.list("http-status-codes"),
	}
	retries := 0
	if d.HealthCheckRetries != nil {
		retries = *d.HealthCheckRetries
	}
	h.Retries = a.integer("health-check-retries", retries, 1, 5)
	if len(h.HTTPDomain) > 128 || strings.ContainsAny(h.HTTPDomain, " %\\") {
		a.fail("health-check-http-domain", h.HTTPDomain, "a host name of at most 128 characters without spaces, % or \\")
	}
	if len(h.HTTPPath) > 256 || strings.Contains(h.HTTPPath, " ") || (h.HTTPPath != "" && !strings.HasPrefix(h.HTTPPath, "/")) {
		a.fail("health-check-http-path", h.HTTPPath, "a path starting with / of at most 256 characters, spaces percent-encoded")
	}
	if len(h.StatusCodes) > 20 {
		v, _ := a.get("http-status-codes")
		a.fail("http-status-codes", v, "at most 20 status codes")
	}
	for _, c := range h.StatusCodes {
		if !statusCodePattern.MatchString(c) {
			v, _ := a.get("http-status-codes")
			a.fail("http-status-codes", v, "comma-separated status codes with ? or * as wildcards, such as 2??,301")
			break
		}
	}
	for _, name := range []string{"health-check-protocol", "health-check-port", "health-check-interval", "health-check-timeout",
		"health-check-retries", "health-check-http-domain", "health-check-http-path", "health-check-http-validate-certificate", "http-status-codes"} {
		if _, ok := a.get(name); ok {
			h.Configured = true
		}
	}
	h.Configured = h.Configured || d.HealthCheckInterval != 0 || d.HealthCheckTimeout != 0 || d.HealthCheckRetries != nil
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
