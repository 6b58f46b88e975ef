package annotation

import (
	"fmt"
	"strings"
	"time"
)

// Key is the full name of a Service annotation the load balancer
// reads. The names and value formats are the official CCM's.
//
// Each constant's doc comment gives the type, the accepted values, the
// default, the HCLOUD_LOAD_BALANCERS_* variable that sets the default and
// an example; docs/reference/annotations.md is generated from them, and a test
// checks them against the table below, which the parser reads.
type Key string

// Prefix is the official CCM's prefix for Service annotations.
const Prefix = "load-balancer.hetzner.cloud/"

const (
	// Name is the load balancer's name; set on an existing one, it renames it.
	//
	// Type: string. Accepted: a name. Default: "a" followed by the Service UID without dashes (32 characters).
	// Example: shop.
	Name Key = "load-balancer.hetzner.cloud/name"

	// Type is the load balancer type; only upgrades are applied.
	//
	// Type: string. Accepted: a load balancer type such as lb11, lb21 or lb31. Default: lb11.
	// Env: HCLOUD_LOAD_BALANCERS_TYPE. Example: lb21.
	Type Key = "load-balancer.hetzner.cloud/type"

	// Location is where the load balancer is created.
	//
	// Type: string. Accepted: a location such as fsn1. Default: none.
	// Env: HCLOUD_LOAD_BALANCERS_LOCATION. Example: fsn1.
	Location Key = "load-balancer.hetzner.cloud/location"

	// NetworkZone places the load balancer in a zone when no location is set.
	//
	// Type: string. Accepted: a network zone such as eu-central. Default: the zone of HCLOUD_NETWORK.
	// Env: HCLOUD_LOAD_BALANCERS_NETWORK_ZONE. Example: eu-central.
	NetworkZone Key = "load-balancer.hetzner.cloud/network-zone"

	// AlgorithmType is how the load balancer picks a target.
	//
	// Type: enum. Accepted: one of round_robin, least_connections. Default: API default.
	// Env: HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE. Example: least_connections.
	AlgorithmType Key = "load-balancer.hetzner.cloud/algorithm-type"

	// NodeSelector selects the nodes to target.
	//
	// Type: selector. Accepted: a label selector such as role=worker,zone!=fsn1. Default: all nodes.
	// Example: node-role.kubernetes.io/worker,pool!=gpu.
	NodeSelector Key = "load-balancer.hetzner.cloud/node-selector"

	// Hostname makes the status report only this hostname.
	//
	// Type: string. Accepted: a host name. Default: none.
	// Example: lb.example.com.
	Hostname Key = "load-balancer.hetzner.cloud/hostname"

	// IPv6Disabled leaves the IPv6 address out of the status.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_DISABLE_IPV6. Example: true.
	IPv6Disabled Key = "load-balancer.hetzner.cloud/ipv6-disabled"

	// IPv4RDNS is the reverse DNS of the IPv4 address; empty resets it.
	//
	// Type: string. Accepted: a host name, or empty. Default: unchanged.
	// Example: lb.example.com.
	IPv4RDNS Key = "load-balancer.hetzner.cloud/ipv4-rdns"

	// IPv6RDNS is the reverse DNS of the IPv6 address; empty resets it.
	//
	// Type: string. Accepted: a host name, or empty. Default: unchanged.
	// Example: lb.example.com.
	IPv6RDNS Key = "load-balancer.hetzner.cloud/ipv6-rdns"

	// DisablePublicNetwork turns the public interface off (needs HCLOUD_NETWORK and use-private-ip).
	//
	// Type: bool. Accepted: true or false. Default: unchanged.
	// Env: HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK. Example: true.
	DisablePublicNetwork Key = "load-balancer.hetzner.cloud/disable-public-network"

	// DisablePrivateIngress leaves the private IPs out of the status.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS. Example: true.
	DisablePrivateIngress Key = "load-balancer.hetzner.cloud/disable-private-ingress"

	// UsePrivateIP makes the targets reached on their private IP (needs HCLOUD_NETWORK).
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP. Example: true.
	UsePrivateIP Key = "load-balancer.hetzner.cloud/use-private-ip"

	// TargetAddressFamily is the address each Node is a target on: its server's public IPv4, the IPv6 ExternalIP of the Node (an address of the server's /64), or both, two targets per Node. A Node without the family asked for is left out with a NodeNotTargeted event; with ipv4, a Node with an IPv6 ExternalIP and no IPv4 one while HCLOUD_INSTANCES_ADDRESS_FAMILY is dualstack (a server without public IPv4) is a target on its IPv6. Public targets only: with use-private-ip, ipv6 and dualstack are refused.
	//
	// Type: enum. Accepted: one of ipv4, ipv6, dualstack. Default: ipv4.
	// Env: HCLOUD_LOAD_BALANCERS_TARGET_ADDRESS_FAMILY. Example: dualstack.
	TargetAddressFamily Key = "load-balancer.hetzner.cloud/target-address-family"

	// PrivateIPv4 is the load balancer's IP in the network.
	//
	// Type: IPv4. Accepted: an IPv4 address in the network, such as 10.0.0.100. Default: assigned by the API.
	// Example: 10.0.0.100.
	PrivateIPv4 Key = "load-balancer.hetzner.cloud/private-ipv4"

	// PrivateSubnetIPRange is the subnet the load balancer is attached in.
	//
	// Type: CIDR. Accepted: a subnet of the network, such as 10.0.1.0/24. Default: any subnet.
	// Env: HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE. Example: 10.0.1.0/24.
	PrivateSubnetIPRange Key = "load-balancer.hetzner.cloud/private-subnet-ip-range"

	// Protocol is the protocol of every port.
	//
	// Type: enum. Accepted: one of tcp, http, https. Default: tcp.
	// Example: https.
	Protocol Key = "load-balancer.hetzner.cloud/protocol"

	// UsesProxyProtocol sends the PROXY protocol header; the status gets ipMode Proxy.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL. Example: true.
	UsesProxyProtocol Key = "load-balancer.hetzner.cloud/uses-proxyprotocol"

	// HTTPCookieName is the sticky session cookie (http, https).
	//
	// Type: string. Accepted: 1 to 100 characters. Default: API default (HCLBSTICKY).
	// Example: SESSION.
	HTTPCookieName Key = "load-balancer.hetzner.cloud/http-cookie-name"

	// HTTPCookieLifetime is the sticky session cookie's lifetime.
	//
	// Type: duration. Accepted: whole seconds from 30s to 24h0m0s, such as 30s. Default: API default (300s).
	// Example: 1h.
	HTTPCookieLifetime Key = "load-balancer.hetzner.cloud/http-cookie-lifetime"

	// HTTPStickySessions turns sticky sessions on.
	//
	// Type: bool. Accepted: true or false. Default: API default (false).
	// Example: true.
	HTTPStickySessions Key = "load-balancer.hetzner.cloud/http-sticky-sessions"

	// HTTPRedirectHTTP redirects port 80 to https.
	//
	// Type: bool. Accepted: true or false. Default: unchanged.
	// Example: true.
	HTTPRedirectHTTP Key = "load-balancer.hetzner.cloud/http-redirect-http"

	// HTTPTimeoutIdle is the idle timeout of http(s) connections.
	//
	// Type: duration. Accepted: whole seconds from 30s to 5m0s, such as 30s. Default: API default.
	// Example: 120s.
	HTTPTimeoutIdle Key = "load-balancer.hetzner.cloud/http-timeout-idle"

	// CertificateType is where https certificates come from.
	//
	// Type: enum. Accepted: one of uploaded, managed. Default: uploaded.
	// Example: managed.
	CertificateType Key = "load-balancer.hetzner.cloud/certificate-type"

	// HTTPCertificates are the uploaded certificates of https ports.
	//
	// Type: list. Accepted: comma-separated certificate IDs or names. Default: none (required for https with uploaded).
	// Example: 4711,shop-tls.
	HTTPCertificates Key = "load-balancer.hetzner.cloud/http-certificates"

	// HTTPCertificateSecrets are kubernetes.io/tls Secrets in the Service's namespace, such as cert-manager's: the CCM uploads each as a certificate of the https ports, replaces it when the Secret changes and deletes the old one once nothing uses it. The CCM needs get, list and watch on Secrets in that namespace (the chart's rbac.certificateSecretNamespaces).
	//
	// Type: list. Accepted: comma-separated names of Secrets in the Service's namespace. Default: none.
	// Example: shop-tls.
	HTTPCertificateSecrets Key = "load-balancer.hetzner.cloud/http-certificate-secrets"

	// HTTPManagedCertificateName is the name of the managed certificate the CCM creates.
	//
	// Type: string. Accepted: a name. Default: ccm-managed-certificate- followed by the Service UID.
	// Example: shop-cert.
	HTTPManagedCertificateName Key = "load-balancer.hetzner.cloud/http-managed-certificate-name"

	// HTTPManagedCertificateDomains are the domains of the managed certificate.
	//
	// Type: list. Accepted: the domains of the managed certificate, such as example.com,www.example.com (required with certificate-type managed). Default: none.
	// Example: example.com,www.example.com.
	HTTPManagedCertificateDomains Key = "load-balancer.hetzner.cloud/http-managed-certificate-domains"

	// HealthCheckProtocol is the protocol of the health check.
	//
	// Type: enum. Accepted: one of tcp, http, https. Default: tcp, or protocol once any health check annotation is set.
	// Example: http.
	HealthCheckProtocol Key = "load-balancer.hetzner.cloud/health-check-protocol"

	// HealthCheckPort is the port checked on each target.
	//
	// Type: int. Accepted: a whole number from 1 to 65535. Default: the nodePort.
	// Example: 10256.
	HealthCheckPort Key = "load-balancer.hetzner.cloud/health-check-port"

	// HealthCheckInterval is the time between two health checks.
	//
	// Type: duration. Accepted: whole seconds from 3s to 1m0s, such as 3s. Default: API default (15s).
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL. Example: 5s.
	HealthCheckInterval Key = "load-balancer.hetzner.cloud/health-check-interval"

	// HealthCheckTimeout is how long a health check may take.
	//
	// Type: duration. Accepted: whole seconds from 1s to 1m0s, such as 1s. Default: API default (10s).
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT. Example: 3s.
	HealthCheckTimeout Key = "load-balancer.hetzner.cloud/health-check-timeout"

	// HealthCheckRetries is how many failed checks make a target unhealthy.
	//
	// Type: int. Accepted: a whole number from 1 to 5. Default: API default (3).
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES. Example: 2.
	HealthCheckRetries Key = "load-balancer.hetzner.cloud/health-check-retries"

	// HealthCheckHTTPDomain is the Host header of http(s) health checks.
	//
	// Type: string. Accepted: a host name of at most 128 characters without spaces, % or \. Default: none.
	// Example: example.com.
	HealthCheckHTTPDomain Key = "load-balancer.hetzner.cloud/health-check-http-domain"

	// HealthCheckHTTPPath is the path of http(s) health checks.
	//
	// Type: string. Accepted: a path starting with / of at most 256 characters, spaces percent-encoded. Default: API default (/).
	// Example: /healthz.
	HealthCheckHTTPPath Key = "load-balancer.hetzner.cloud/health-check-http-path"

	// HealthCheckHTTPValidateCertificate validates the target's certificate in https health checks.
	//
	// Type: bool. Accepted: true or false. Default: API default.
	// Example: true.
	HealthCheckHTTPValidateCertificate Key = "load-balancer.hetzner.cloud/health-check-http-validate-certificate"

	// HealthCheckKubeProxy checks kube-proxy's /healthz on port 10256 instead of the nodePort, for a Service with externalTrafficPolicy Cluster: a node being drained or removed by the cluster autoscaler stops taking new connections before it goes. A Local Service always checks its healthCheckNodePort; health check protocol, port, path, domain or status code annotations override both.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Env: HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_KUBE_PROXY. Example: true.
	HealthCheckKubeProxy Key = "load-balancer.hetzner.cloud/health-check-kube-proxy"

	// HTTPStatusCodes are the status codes that mean healthy.
	//
	// Type: list. Accepted: at most 20 comma-separated status codes with ? or * as wildcards, such as 2??,301. Default: API default (2??, 3??).
	// Example: 2??,301.
	HTTPStatusCodes Key = "load-balancer.hetzner.cloud/http-status-codes"

	// KeepOtherServices keeps the services of the load balancer on ports the Service does not declare, such as those Terraform added to a load balancer the CCM adopted: the CCM changes and deletes only the ports it added, which it records in the load balancer's label hcloud-ccm/ports.
	//
	// Type: bool. Accepted: true or false. Default: false: ports the Service does not declare are deleted.
	// Example: true.
	KeepOtherServices Key = "load-balancer.hetzner.cloud/keep-other-services"

	// RetainOnDelete keeps the load balancer, its addresses, services and targets, and the managed certificate, when the Service is deleted: the CCM removes its labels from them, so a later Service whose name annotation names the load balancer adopts it with the same IPs.
	//
	// Type: bool. Accepted: true or false. Default: false: deleting the Service deletes its load balancer.
	// Example: true.
	RetainOnDelete Key = "load-balancer.hetzner.cloud/retain-on-delete"

	// ExternallyManaged leaves the load balancer that the name annotation names to whoever made it (Terraform, the Console): the CCM never creates, changes or deletes it, and only reports its addresses in the Service's status.
	//
	// Type: bool. Accepted: true or false. Default: false.
	// Example: true.
	ExternallyManaged Key = "load-balancer.hetzner.cloud/externally-managed"

	// ManageTargets makes the CCM keep the targets of an externally managed load balancer: the servers of the Service's nodes, as for its own load balancers; label selector targets stay.
	//
	// Type: bool. Accepted: true or false. Default: false: the targets are left alone too.
	// Example: true.
	ManageTargets Key = "load-balancer.hetzner.cloud/manage-targets"

	// PublicNetIPv4 is the Primary IP the load balancer takes as its IPv4 address when it is created, so the address outlives the load balancer: deleting the Service frees the Primary IP (deletes it if its auto_delete is true), and a Service created with it again gets the same address. The Primary IP must be unassigned and in the load balancer's location (set location). Applied at creation only: set, changed or removed later, the load balancer keeps its address, with a Warning event PublicNetNotChanged. Refused with disable-public-network.
	//
	// Type: ID. Accepted: the ID of an IPv4 Primary IP, such as 4711. Default: none: the load balancer gets an address of its own.
	// Example: 4711.
	PublicNetIPv4 Key = "load-balancer.hetzner.cloud/public-net-ipv4"

	// PublicNetIPv6 is the Primary IP whose /64 the load balancer takes for its IPv6 address when it is created, as public-net-ipv4 does for IPv4.
	//
	// Type: ID. Accepted: the ID of an IPv6 Primary IP, such as 4712. Default: none: the load balancer gets an address of its own.
	// Example: 4712.
	PublicNetIPv6 Key = "load-balancer.hetzner.cloud/public-net-ipv6"
)

// kind is how an annotation's value is read.
type kind string

const (
	kindString   kind = "string"
	kindBool     kind = "bool"
	kindInt      kind = "int"
	kindDuration kind = "duration"
	kindEnum     kind = "enum"
	kindList     kind = "list"
	kindSelector kind = "selector"
	kindIPv4     kind = "IPv4"
	kindCIDR     kind = "CIDR"
	kindID       kind = "ID"
)

// spec is how one annotation is read and validated.
type spec struct {
	kind    kind
	lo, hi  int           // int: the accepted range
	min     time.Duration // duration: the accepted range, whole seconds
	max     time.Duration
	choices []string // enum, in the case the API takes
	text    string   // string, list, selector, IPv4, CIDR, ID: what is accepted
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
var specs = map[Key]spec{
	Name:                               {kind: kindString, text: "a name"},
	Type:                               {kind: kindString, text: "a load balancer type such as lb11, lb21 or lb31", env: "HCLOUD_LOAD_BALANCERS_TYPE"},
	Location:                           {kind: kindString, text: "a location such as fsn1", env: "HCLOUD_LOAD_BALANCERS_LOCATION"},
	NetworkZone:                        {kind: kindString, text: "a network zone such as eu-central", env: "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE"},
	AlgorithmType:                      {kind: kindEnum, choices: []string{"round_robin", "least_connections"}, env: "HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE"},
	NodeSelector:                       {kind: kindSelector, text: "a label selector such as role=worker,zone!=fsn1"},
	Hostname:                           {kind: kindString, text: "a host name"},
	IPv6Disabled:                       {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_DISABLE_IPV6"},
	IPv4RDNS:                           {kind: kindString, text: "a host name, or empty"},
	IPv6RDNS:                           {kind: kindString, text: "a host name, or empty"},
	DisablePublicNetwork:               {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK"},
	DisablePrivateIngress:              {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS"},
	UsePrivateIP:                       {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP"},
	TargetAddressFamily:                {kind: kindEnum, choices: []string{FamilyIPv4, FamilyIPv6, FamilyDualStack}, env: "HCLOUD_LOAD_BALANCERS_TARGET_ADDRESS_FAMILY"},
	PrivateIPv4:                        {kind: kindIPv4, text: "an IPv4 address in the network, such as 10.0.0.100"},
	PrivateSubnetIPRange:               {kind: kindCIDR, text: "a subnet of the network, such as 10.0.1.0/24", env: "HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE"},
	Protocol:                           {kind: kindEnum, choices: []string{"tcp", "http", "https"}, port: true},
	UsesProxyProtocol:                  {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL", port: true},
	HTTPCookieName:                     {kind: kindString, text: "1 to 100 characters", port: true},
	HTTPCookieLifetime:                 {kind: kindDuration, min: 30 * time.Second, max: 86400 * time.Second, port: true},
	HTTPStickySessions:                 {kind: kindBool, port: true},
	HTTPRedirectHTTP:                   {kind: kindBool, port: true},
	HTTPTimeoutIdle:                    {kind: kindDuration, min: 30 * time.Second, max: 300 * time.Second, port: true},
	CertificateType:                    {kind: kindEnum, choices: []string{"uploaded", "managed"}, port: true},
	HTTPCertificates:                   {kind: kindList, text: "comma-separated certificate IDs or names", port: true},
	HTTPCertificateSecrets:             {kind: kindList, text: "comma-separated names of Secrets in the Service's namespace", port: true},
	HTTPManagedCertificateName:         {kind: kindString, text: "a name"},
	HTTPManagedCertificateDomains:      {kind: kindList, text: "the domains of the managed certificate, such as example.com,www.example.com (required with certificate-type managed)"},
	HealthCheckProtocol:                {kind: kindEnum, choices: []string{"tcp", "http", "https"}, port: true},
	HealthCheckPort:                    {kind: kindInt, lo: 1, hi: 65535, port: true},
	HealthCheckInterval:                {kind: kindDuration, min: 3 * time.Second, max: 60 * time.Second, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL", port: true},
	HealthCheckTimeout:                 {kind: kindDuration, min: time.Second, max: 60 * time.Second, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT", port: true},
	HealthCheckRetries:                 {kind: kindInt, lo: 1, hi: 5, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", port: true},
	HealthCheckHTTPDomain:              {kind: kindString, text: `a host name of at most 128 characters without spaces, % or \`, port: true},
	HealthCheckHTTPPath:                {kind: kindString, text: "a path starting with / of at most 256 characters, spaces percent-encoded", port: true},
	HealthCheckHTTPValidateCertificate: {kind: kindBool, port: true},
	HealthCheckKubeProxy:               {kind: kindBool, env: "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_KUBE_PROXY", port: true},
	HTTPStatusCodes:                    {kind: kindList, text: "at most 20 comma-separated status codes with ? or * as wildcards, such as 2??,301", port: true},
	KeepOtherServices:                  {kind: kindBool},
	RetainOnDelete:                     {kind: kindBool},
	ExternallyManaged:                  {kind: kindBool},
	ManageTargets:                      {kind: kindBool},
	PublicNetIPv4:                      {kind: kindID, text: "the ID of an IPv4 Primary IP, such as 4711"},
	PublicNetIPv6:                      {kind: kindID, text: "the ID of an IPv6 Primary IP, such as 4712"},
}

// short is the name without the prefix, as errors and events quote it.
func (a Key) Short() string { return strings.TrimPrefix(string(a), Prefix) }
