package loadbalancer

import (
	"fmt"
	"strings"
	"time"
)

// Annotation is the full name of a Service annotation the load balancer
// reads. The names and value formats are the official CCM's.
//
// Each constant's doc comment gives the type, the accepted values, the
// default, the HCLOUD_LOAD_BALANCERS_* variable that sets the default and
// an example; docs/reference/annotations.md is generated from them, and a test
// checks them against the table below, which the parser reads.
type Annotation string

// annotationPrefix is the official CCM's prefix for Service annotations.
const annotationPrefix = "load-balancer.hetzner.cloud/"

const (
	// AnnotationName is the load balancer's name; set on an existing one, it renames it.
	//
	// Type: string. Accepted: a name. Default: "a" followed by the Service UID without dashes (32 characters).
	// Example: shop.
	AnnotationName Annotation = "load-balancer.hetzner.cloud/name"

	// AnnotationType is the load balancer type; only upgrades are applied.
	//
	// Type: string. Accepted: a load balancer type such as lb11, lb21 or lb31. Default: lb11.
	// Env: HCLOUD_LOAD_BALANCERS_TYPE. Example: lb21.
	AnnotationType Annotation = "load-balancer.hetzner.cloud/type"

	// AnnotationLocation is where the load balancer is created.
	//
	// Type: string. Accepted: a location such as fsn1. Default: none.
	// Env: HCLOUD_LOAD_BALANCERS_LOCATION. Example: fsn1.
	AnnotationLocation Annotation = "load-balancer.hetzner.cloud/location"

	// AnnotationNetworkZone places the load balancer in a zone when no location is set.
	//
	// Type: string. Accepted: a network zone such as eu-central. Default: the zone of HCLOUD_NETWORK.
	// Env: HCLOUD_LOAD_BALANCERS_NETWORK_ZONE. Example: eu-central.
	AnnotationNetworkZone Annotation = "load-balancer.hetzner.cloud/network-zone"

	// AnnotationAlgorithmType is how the load balancer picks a target.
	//
	// Type: enum. Accepted: one of round_robin, least_connections. Default: API default.
	// Env: HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE. Example: least_connections.
	AnnotationAlgorithmType Annotation = "load-balancer.hetzner.cloud/algorithm-type"

	// AnnotationNodeSelector selects the nodes to target.
	//
	// Type: selector. Accepted: a label selector such as role=worker,zone!=fsn1. Default: all nodes.
	// Example: node-role.kubernetes.io/worker,pool!=gpu.
	AnnotationNodeSelector Annotation = "load-balancer.hetzner.cloud/node-selector"

	// AnnotationHostname makes the status report only this hostname.
	//
	// Type: string. Accepted: a host name. Default: none.
	// Example: lb.example.com.
	AnnotationHostname Annotation = "load-balancer.hetzner.cloud/hostname"

	// AnnotationIPv6Disabled leaves the IPv6 address out of the status.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_DISABLE_IPV6. Example: true.
	AnnotationIPv6Disabled Annotation = "load-balancer.hetzner.cloud/ipv6-disabled"

	// AnnotationIPv4RDNS is the reverse DNS of the IPv4 address; empty resets it.
	//
	// Type: string. Accepted: a host name, or empty. Default: unchanged.
	// Example: lb.example.com.
	AnnotationIPv4RDNS Annotation = "load-balancer.hetzner.cloud/ipv4-rdns"

	// AnnotationIPv6RDNS is the reverse DNS of the IPv6 address; empty resets it.
	//
	// Type: string. Accepted: a host name, or empty. Default: unchanged.
	// Example: lb.example.com.
	AnnotationIPv6RDNS Annotation = "load-balancer.hetzner.cloud/ipv6-rdns"

	// AnnotationDisablePublicNetwork turns the public interface off (needs HCLOUD_NETWORK and use-private-ip).
	//
	// Type: bool. Accepted: true or false. Default: unchanged.
	// Env: HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK. Example: true.
	AnnotationDisablePublicNetwork Annotation = "load-balancer.hetzner.cloud/disable-public-network"

	// AnnotationDisablePrivateIngress leaves the private IPs out of the status.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS. Example: true.
	AnnotationDisablePrivateIngress Annotation = "load-balancer.hetzner.cloud/disable-private-ingress"

	// AnnotationUsePrivateIP makes the targets reached on their private IP (needs HCLOUD_NETWORK).
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP. Example: true.
	AnnotationUsePrivateIP Annotation = "load-balancer.hetzner.cloud/use-private-ip"

	// AnnotationPrivateIPv4 is the load balancer's IP in the network.
	//
	// Type: IPv4. Accepted: an IPv4 address in the network, such as 10.0.0.100. Default: assigned by the API.
	// Example: 10.0.0.100.
	AnnotationPrivateIPv4 Annotation = "load-balancer.hetzner.cloud/private-ipv4"

	// AnnotationPrivateSubnetIPRange is the subnet the load balancer is attached in.
	//
	// Type: CIDR. Accepted: a subnet of the network, such as 10.0.1.0/24. Default: any subnet.
	// Env: HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE. Example: 10.0.1.0/24.
	AnnotationPrivateSubnetIPRange Annotation = "load-balancer.hetzner.cloud/private-subnet-ip-range"

	// AnnotationProtocol is the protocol of every port.
	//
	// Type: enum. Accepted: one of tcp, http, https. Default: tcp.
	// Example: https.
	AnnotationProtocol Annotation = "load-balancer.hetzner.cloud/protocol"

	// AnnotationUsesProxyProtocol sends the PROXY protocol header; the status gets ipMode Proxy.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL. Example: true.
	AnnotationUsesProxyProtocol Annotation = "load-balancer.hetzner.cloud/uses-proxyprotocol"

	// AnnotationHTTPCookieName is the sticky session cookie (http, https).
	//
	// Type: string. Accepted: 1 to 100 characters. Default: API default (HCLBSTICKY).
	// Example: SESSION.
	AnnotationHTTPCookieName Annotation = "load-balancer.hetzner.cloud/http-cookie-name"

	// AnnotationHTTPCookieLifetime is the sticky session cookie's lifetime.
	//
	// Type: duration. Accepted: whole seconds from 30s to 24h0m0s, such as 30s. Default: API default (300s).
	// Example: 1h.
	AnnotationHTTPCookieLifetime Annotation = "load-balancer.hetzner.cloud/http-cookie-lifetime"

	// AnnotationHTTPStickySessions turns sticky sessions on.
	//
	// Type: bool. Accepted: true or false. Default: API default (false).
	// Example: true.
	AnnotationHTTPStickySessions Annotation = "load-balancer.hetzner.cloud/http-sticky-sessions"

	// AnnotationHTTPRedirectHTTP redirects port 80 to https.
	//
	// Type: bool. Accepted: true or false. Default: unchanged.
	// Example: true.
	AnnotationHTTPRedirectHTTP Annotation = "load-balancer.hetzner.cloud/http-redirect-http"

	// AnnotationHTTPTimeoutIdle is the idle timeout of http(s) connections.
	//
	// Type: duration. Accepted: whole seconds from 30s to 5m0s, such as 30s. Default: API default.
	// Example: 120s.
	AnnotationHTTPTimeoutIdle Annotation = "load-balancer.hetzner.cloud/http-timeout-idle"

	// AnnotationCertificateType is where https certificates come from.
	//
	// Type: enum. Accepted: one of uploaded, managed. Default: uploaded.
	// Example: managed.
	AnnotationCertificateType Annotation = "load-balancer.hetzner.cloud/certificate-type"

	// AnnotationHTTPCertificates are the uploaded certificates of https ports.
	//
	// Type: list. Accepted: comma-separated certificate IDs or names. Default: none (required for https with uploaded).
	// Example: 4711,shop-tls.
	AnnotationHTTPCertificates Annotation = "load-balancer.hetzner.cloud/http-certificates"

	// AnnotationHTTPManagedCertificateName is the name of the managed certificate the CCM creates.
	//
	// Type: string. Accepted: a name. Default: ccm-managed-certificate- followed by the Service UID.
	// Example: shop-cert.
	AnnotationHTTPManagedCertificateName Annotation = "load-balancer.hetzner.cloud/http-managed-certificate-name"

	// AnnotationHTTPManagedCertificateDomains are the domains of the managed certificate.
	//
	// Type: list. Accepted: the domains of the managed certificate, such as example.com,www.example.com (required with certificate-type managed). Default: none.
	// Example: example.com,www.example.com.
	AnnotationHTTPManagedCertificateDomains Annotation = "load-balancer.hetzner.cloud/http-managed-certificate-domains"

	// AnnotationHealthCheckProtocol is the protocol of the health check.
	//
	// Type: enum. Accepted: one of tcp, http, https. Default: tcp, or protocol once any health check annotation is set.
	// Example: http.
	AnnotationHealthCheckProtocol Annotation = "load-balancer.hetzner.cloud/health-check-protocol"

	// AnnotationHealthCheckPort is the port checked on each target.
	//
	// Type: int. Accepted: a whole number from 1 to 65535. Default: the nodePort.
	// Example: 10256.
	AnnotationHealthCheckPort Annotation = "load-balancer.hetzner.cloud/health-check-port"

	// AnnotationHealthCheckInterval is the time between two health checks.
	//
	// Type: duration. Accepted: whole seconds from 3s to 1m0s, such as 3s. Default: API default (15s).
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL. Example: 5s.
	AnnotationHealthCheckInterval Annotation = "load-balancer.hetzner.cloud/health-check-interval"

	// AnnotationHealthCheckTimeout is how long a health check may take.
	//
	// Type: duration. Accepted: whole seconds from 1s to 1m0s, such as 1s. Default: API default (10s).
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT. Example: 3s.
	AnnotationHealthCheckTimeout Annotation = "load-balancer.hetzner.cloud/health-check-timeout"

	// AnnotationHealthCheckRetries is how many failed checks make a target unhealthy.
	//
	// Type: int. Accepted: a whole number from 1 to 5. Default: API default (3).
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES. Example: 2.
	AnnotationHealthCheckRetries Annotation = "load-balancer.hetzner.cloud/health-check-retries"

	// AnnotationHealthCheckHTTPDomain is the Host header of http(s) health checks.
	//
	// Type: string. Accepted: a host name of at most 128 characters without spaces, % or \. Default: none.
	// Example: example.com.
	AnnotationHealthCheckHTTPDomain Annotation = "load-balancer.hetzner.cloud/health-check-http-domain"

	// AnnotationHealthCheckHTTPPath is the path of http(s) health checks.
	//
	// Type: string. Accepted: a path starting with / of at most 256 characters, spaces percent-encoded. Default: API default (/).
	// Example: /healthz.
	AnnotationHealthCheckHTTPPath Annotation = "load-balancer.hetzner.cloud/health-check-http-path"

	// AnnotationHealthCheckHTTPValidateCertificate validates the target's certificate in https health checks.
	//
	// Type: bool. Accepted: true or false. Default: API default.
	// Example: true.
	AnnotationHealthCheckHTTPValidateCertificate Annotation = "load-balancer.hetzner.cloud/health-check-http-validate-certificate"

	// AnnotationHealthCheckKubeProxy checks kube-proxy's /healthz on port 10256 instead of the nodePort, for a Service with externalTrafficPolicy Cluster: a node being drained or removed by the cluster autoscaler stops taking new connections before it goes. A Local Service always checks its healthCheckNodePort; health check protocol, port, path, domain or status code annotations override both.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_KUBE_PROXY. Example: true.
	AnnotationHealthCheckKubeProxy Annotation = "load-balancer.hetzner.cloud/health-check-kube-proxy"

	// AnnotationHTTPStatusCodes are the status codes that mean healthy.
	//
	// Type: list. Accepted: at most 20 comma-separated status codes with ? or * as wildcards, such as 2??,301. Default: API default (2??, 3??).
	// Example: 2??,301.
	AnnotationHTTPStatusCodes Annotation = "load-balancer.hetzner.cloud/http-status-codes"

	// AnnotationPublicNetIPv4 is the official CCM's; this CCM does not act on it and says so in an event.
	//
	// Type: unsupported. Accepted: nothing: the load balancer gets its own addresses. Default: none.
	// Example: none.
	AnnotationPublicNetIPv4 Annotation = "load-balancer.hetzner.cloud/public-net-ipv4"

	// AnnotationPublicNetIPv6 is the official CCM's; this CCM does not act on it and says so in an event.
	//
	// Type: unsupported. Accepted: nothing: the load balancer gets its own addresses. Default: none.
	// Example: none.
	AnnotationPublicNetIPv6 Annotation = "load-balancer.hetzner.cloud/public-net-ipv6"
)

// kind is how an annotation's value is read.
type kind string

const (
	kindString      kind = "string"
	kindBool        kind = "bool"
	kindInt         kind = "int"
	kindDuration    kind = "duration"
	kindEnum        kind = "enum"
	kindList        kind = "list"
	kindSelector    kind = "selector"
	kindIPv4        kind = "IPv4"
	kindCIDR        kind = "CIDR"
	kindUnsupported kind = "unsupported"
)

// spec is how one annotation is read and validated.
type spec struct {
	kind    kind
	lo, hi  int           // int: the accepted range
	min     time.Duration // duration: the accepted range, whole seconds
	max     time.Duration
	choices []string // enum, in the case the API takes
	text    string   // string, list, selector, IPv4, CIDR: what is accepted
	env     string   // the HCLOUD_LOAD_BALANCERS_* variable that sets the default
	port    bool     // a port can set it for itself (ports.go)
}

// accepted is what the annotation accepts, as its errors and the annotation reference say.
func (s spec) accepted() string {
	switch s.kind {
	case kindBool:
		return "true or false"
	case kindInt:
		return fmt.Sprintf("a whole number from %d to %d", s.lo, s.hi)
	case kindDuration:
		return fmt.Sprintf("whole seconds from %s to %s, such as %s", s.min, s.max, s.min)
	case kindEnum:
		return "one of " + strings.Join(s.choices, ", ")
	}
	return s.text
}

// specs is the table of annotations the parser reads.
var specs = map[Annotation]spec{
	AnnotationName:                               {kind: kindString, text: "a name"},
	AnnotationType:                               {kind: kindString, text: "a load balancer type such as lb11, lb21 or lb31", env: "HCLOUD_LOAD_BALANCERS_TYPE"},
	AnnotationLocation:                           {kind: kindString, text: "a location such as fsn1", env: "HCLOUD_LOAD_BALANCERS_LOCATION"},
	AnnotationNetworkZone:                        {kind: kindString, text: "a network zone such as eu-central", env: "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE"},
	AnnotationAlgorithmType:                      {kind: kindEnum, choices: []string{"round_robin", "least_connections"}, env: "HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE"},
	AnnotationNodeSelector:                       {kind: kindSelector, text: "a label selector such as role=worker,zone!=fsn1"},
	AnnotationHostname:                           {kind: kindString, text: "a host name"},
	AnnotationIPv6Disabled:                       {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_DISABLE_IPV6"},
	AnnotationIPv4RDNS:                           {kind: kindString, text: "a host name, or empty"},
	AnnotationIPv6RDNS:                           {kind: kindString, text: "a host name, or empty"},
	AnnotationDisablePublicNetwork:               {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK"},
	AnnotationDisablePrivateIngress:              {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS"},
	AnnotationUsePrivateIP:                       {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP"},
	AnnotationPrivateIPv4:                        {kind: kindIPv4, text: "an IPv4 address in the network, such as 10.0.0.100"},
	AnnotationPrivateSubnetIPRange:               {kind: kindCIDR, text: "a subnet of the network, such as 10.0.1.0/24", env: "HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE"},
	AnnotationProtocol:                           {kind: kindEnum, choices: []string{"tcp", "http", "https"}, port: true},
	AnnotationUsesProxyProtocol:                  {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL", port: true},
	AnnotationHTTPCookieName:                     {kind: kindString, text: "1 to 100 characters", port: true},
	AnnotationHTTPCookieLifetime:                 {kind: kindDuration, min: 30 * time.Second, max: 86400 * time.Second, port: true},
	AnnotationHTTPStickySessions:                 {kind: kindBool, port: true},
	AnnotationHTTPRedirectHTTP:                   {kind: kindBool, port: true},
	AnnotationHTTPTimeoutIdle:                    {kind: kindDuration, min: 30 * time.Second, max: 300 * time.Second, port: true},
	AnnotationCertificateType:                    {kind: kindEnum, choices: []string{"uploaded", "managed"}, port: true},
	AnnotationHTTPCertificates:                   {kind: kindList, text: "comma-separated certificate IDs or names", port: true},
	AnnotationHTTPManagedCertificateName:         {kind: kindString, text: "a name"},
	AnnotationHTTPManagedCertificateDomains:      {kind: kindList, text: "the domains of the managed certificate, such as example.com,www.example.com (required with certificate-type managed)"},
	AnnotationHealthCheckProtocol:                {kind: kindEnum, choices: []string{"tcp", "http", "https"}, port: true},
	AnnotationHealthCheckPort:                    {kind: kindInt, lo: 1, hi: 65535, port: true},
	AnnotationHealthCheckInterval:                {kind: kindDuration, min: 3 * time.Second, max: 60 * time.Second, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL", port: true},
	AnnotationHealthCheckTimeout:                 {kind: kindDuration, min: time.Second, max: 60 * time.Second, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT", port: true},
	AnnotationHealthCheckRetries:                 {kind: kindInt, lo: 1, hi: 5, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", port: true},
	AnnotationHealthCheckHTTPDomain:              {kind: kindString, text: `a host name of at most 128 characters without spaces, % or \`, port: true},
	AnnotationHealthCheckHTTPPath:                {kind: kindString, text: "a path starting with / of at most 256 characters, spaces percent-encoded", port: true},
	AnnotationHealthCheckHTTPValidateCertificate: {kind: kindBool, port: true},
	AnnotationHealthCheckKubeProxy:               {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_KUBE_PROXY", port: true},
	AnnotationHTTPStatusCodes:                    {kind: kindList, text: "at most 20 comma-separated status codes with ? or * as wildcards, such as 2??,301", port: true},
	AnnotationPublicNetIPv4:                      {kind: kindUnsupported, text: "nothing: the load balancer gets its own addresses"},
	AnnotationPublicNetIPv6:                      {kind: kindUnsupported, text: "nothing: the load balancer gets its own addresses"},
}

// short is the name without the prefix, as errors and events quote it.
func (a Annotation) short() string { return strings.TrimPrefix(string(a), annotationPrefix) }
