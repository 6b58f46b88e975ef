package annotation

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func service(annotations map[string]string) *corev1.Service {
	m := map[string]string{}
	for k, v := range annotations {
		m[Prefix+k] = v
	}
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "1234-abcd", Annotations: m}}
}

var lbDefaults = Defaults{Enabled: true, Type: "lb11"}

func TestLBOptionsDefaults(t *testing.T) {
	o, err := Parse(service(nil), lbDefaults)
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Type: "lb11", TargetAddressFamily: FamilyIPv4, PortOptions: PortOptions{Protocol: "tcp",
		HTTP: HTTPOptions{CertificateType: "uploaded", CertificatesFrom: "http-certificates", SecretsFrom: "http-certificate-secrets", ManagedCertName: "ccm-managed-certificate-1234-abcd"}}}
	if diff := cmp.Diff(want, o, cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{}), cmpopts.EquateEmpty(), cmp.AllowUnexported(Options{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The environment's defaults apply where no annotation is set.
	yes, three := true, 3
	o, err = Parse(service(nil), Defaults{Type: "lb21", Location: "nbg1", AlgorithmType: "least_connections",
		DisableIPv6: true, DisablePublicNetwork: &yes, UsesProxyProtocol: &yes, UsePrivateIP: true, DisablePrivateIngress: true,
		PrivateSubnetIPRange: "10.0.1.0/24", HealthCheckInterval: 5 * time.Second, HealthCheckTimeout: 3 * time.Second, HealthCheckRetries: &three})
	if err != nil {
		t.Fatal(err)
	}
	if o.Type != "lb21" || !o.TypeExplicit || o.Location != "nbg1" || o.Algorithm != "least_connections" || !o.IPv6Disabled ||
		!*o.DisablePublicNetwork || !o.ProxyProtocol || !o.UsePrivateIP || !o.DisablePrivateIngress ||
		o.PrivateSubnetIPRange.String() != "10.0.1.0/24" || !o.HealthCheck.Configured || o.HealthCheck.Interval != 5*time.Second ||
		o.HealthCheck.Timeout != 3*time.Second || o.HealthCheck.Retries != 3 {
		t.Errorf("env defaults not applied: %+v", o)
	}
}

// TestLBOptionsTypeConfigured: the type counts as configured when the
// annotation or HCLOUD_LOAD_BALANCERS_TYPE is set, to any value; lb11 from
// the variable is configured, yet still no type to apply to an existing
// load balancer (TypeExplicit).
func TestLBOptionsTypeConfigured(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		annotations          map[string]string
		defaults             Defaults
		configured, explicit bool
	}{
		{name: "neither", defaults: lbDefaults},
		{name: "annotation lb11", annotations: map[string]string{"type": "lb11"}, defaults: lbDefaults, configured: true, explicit: true},
		{name: "variable lb11", defaults: Defaults{Type: "lb11", TypeSet: true}, configured: true},
		{name: "variable lb21", defaults: Defaults{Type: "lb21", TypeSet: true}, configured: true, explicit: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Parse(service(tt.annotations), tt.defaults)
			if err != nil {
				t.Fatal(err)
			}
			if o.TypeConfigured != tt.configured || o.TypeExplicit != tt.explicit {
				t.Errorf("configured %v explicit %v, want %v %v", o.TypeConfigured, o.TypeExplicit, tt.configured, tt.explicit)
			}
		})
	}
}

// TestLBOptionsEmptyNameAndHostname: an empty name or hostname is unset,
// as after the official CCM's annotation refactor: no rename to "", no
// empty hostname published.
func TestLBOptionsEmptyNameAndHostname(t *testing.T) {
	o, err := Parse(service(map[string]string{"name": " ", "hostname": ""}), lbDefaults)
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "" || o.Hostname != "" {
		t.Errorf("name %q hostname %q, want both unset", o.Name, o.Hostname)
	}
}

// TestLBOptionsEveryAnnotation: each annotation of the official CCM, with
// a valid value, lands where the reconciler reads it.
func TestLBOptionsEveryAnnotation(t *testing.T) {
	o, err := Parse(service(map[string]string{
		"name": "web-lb", "type": "LB21", "location": "hel1", "network-zone": "eu-central", "algorithm-type": "Least_Connections",
		"node-selector": "role=worker", "hostname": "lb.example.com", "ipv6-disabled": "true", "ipv4-rdns": "lb.example.com",
		"ipv6-rdns": "", "disable-public-network": "false", "disable-private-ingress": "true", "use-private-ip": "true", "target-address-family": "IPv4",
		"private-ipv4": "10.0.0.100", "private-subnet-ip-range": "10.0.2.0/24", "protocol": "HTTPS", "uses-proxyprotocol": "true",
		"http-cookie-name": "SESSION", "http-cookie-lifetime": "1h", "http-sticky-sessions": "true", "http-redirect-http": "true",
		"http-timeout-idle": "120s", "certificate-type": "managed", "http-certificates": "a, b",
		"http-managed-certificate-name": "web-cert", "http-managed-certificate-domains": "example.com,www.example.com",
		"health-check-protocol": "https", "health-check-port": "8080", "health-check-interval": "15s", "health-check-timeout": "10s",
		"health-check-retries": "5", "health-check-http-domain": "example.com", "health-check-http-path": "/healthz",
		"health-check-http-validate-certificate": "true", "http-status-codes": "2??,301", "health-check-kube-proxy": "true",
		"public-net-ipv4": "4711", "public-net-ipv6": " 4712 ",
	}), lbDefaults)
	if err != nil {
		t.Fatal(err)
	}
	no, yes, empty, rdns := false, true, "", "lb.example.com"
	want := Options{Name: "web-lb", Type: "lb21", TypeExplicit: true, TypeConfigured: true, Location: "hel1", Algorithm: "least_connections",
		NodeSelector: labels.SelectorFromSet(labels.Set{"role": "worker"}), Hostname: "lb.example.com", IPv6Disabled: true,
		IPv4RDNS: &rdns, IPv6RDNS: &empty, DisablePublicNetwork: &no, DisablePrivateIngress: true, UsePrivateIP: true, TargetAddressFamily: FamilyIPv4,
		PrivateIPv4: netip.MustParseAddr("10.0.0.100"), PrivateSubnetIPRange: netip.MustParsePrefix("10.0.2.0/24"),
		PublicNetIPv4: 4711, PublicNetIPv6: 4712,
		PortOptions: PortOptions{Protocol: "https", ProxyProtocol: true,
			HTTP: HTTPOptions{CookieName: "SESSION", CookieLifetime: time.Hour, StickySessions: &yes, RedirectHTTP: &yes, TimeoutIdle: 2 * time.Minute,
				CertificateType: "managed", Certificates: []string{"a", "b"}, CertificatesFrom: "http-certificates", SecretsFrom: "http-certificate-secrets", ManagedCertName: "web-cert", ManagedCertDomains: []string{"example.com", "www.example.com"}},
			HealthCheck: HealthCheckOptions{Configured: true, Aimed: true, KubeProxy: true, Protocol: "https", Port: 8080, Interval: 15 * time.Second, Timeout: 10 * time.Second,
				Retries: 5, HTTPDomain: "example.com", HTTPPath: "/healthz", ValidateCert: &yes, StatusCodes: []string{"2??", "301"}}},
	}
	if diff := cmp.Diff(want, o, cmpopts.EquateComparable(netip.Addr{}, netip.Prefix{}), cmpopts.EquateEmpty(), cmp.AllowUnexported(Options{}), cmp.Comparer(func(a, b labels.Selector) bool {
		return a.String() == b.String()
	})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLBOptionsInvalid: each bad value is reported with its annotation and
// what is accepted, all of them at once.
func TestLBOptionsInvalid(t *testing.T) {
	bad := map[string][2]string{ // annotation -> value, part of the accepted values
		"type":                                   {" ", "lb11, lb21 or lb31"},
		"algorithm-type":                         {"random", "round_robin, least_connections"},
		"node-selector":                          {"role in (a", "label selector"},
		"ipv6-disabled":                          {"yes", "true or false"},
		"disable-public-network":                 {"maybe", "true or false"},
		"disable-private-ingress":                {"1x", "true or false"},
		"use-private-ip":                         {"on", "true or false"},
		"private-ipv4":                           {"fd00::1", "IPv4 address"},
		"private-subnet-ip-range":                {"10.0.1.0", "subnet"},
		"protocol":                               {"udp", "tcp, http, https"},
		"uses-proxyprotocol":                     {"si", "true or false"},
		"http-cookie-name":                       {strings.Repeat("c", 101), "1 to 100 characters"},
		"http-cookie-lifetime":                   {"10s", "from 30s to 24h0m0s"},
		"http-sticky-sessions":                   {"ja", "true or false"},
		"http-redirect-http":                     {"oui", "true or false"},
		"http-timeout-idle":                      {"1.5s", "from 30s to 5m0s"},
		"certificate-type":                       {"letsencrypt", "uploaded, managed"},
		"health-check-protocol":                  {"grpc", "tcp, http, https"},
		"health-check-port":                      {"70000", "from 1 to 65535"},
		"health-check-interval":                  {"15", "from 3s to 1m0s"},
		"health-check-timeout":                   {"2m", "from 1s to 1m0s"},
		"health-check-retries":                   {"9", "from 1 to 5"},
		"health-check-http-domain":               {"bad domain", "host name"},
		"health-check-http-path":                 {"healthz", "starting with /"},
		"health-check-http-validate-certificate": {"sure", "true or false"},
		"http-status-codes":                      {"2??,abc", "2??,301"},
		"public-net-ipv4":                        {"0", "the ID of an IPv4 Primary IP"},
		"public-net-ipv6":                        {"my-lb-ipv6", "the ID of an IPv6 Primary IP"},
	}
	ann := map[string]string{}
	for k, v := range bad {
		ann[k] = v[0]
	}
	_, err := Parse(service(ann), lbDefaults)
	if err == nil {
		t.Fatal("bad annotations accepted")
	}
	for k, v := range bad {
		found := false
		for _, e := range unjoin(err) {
			var ae *Error
			if errors.As(e, &ae) && ae.Key == k {
				found = true
				if !strings.Contains(e.Error(), Prefix+k) || !strings.Contains(ae.Accepted, v[1]) {
					t.Errorf("%s: %v", k, e)
				}
			}
		}
		if !found {
			t.Errorf("%s=%q not reported", k, v[0])
		}
	}
	// A managed certificate needs its domains.
	_, err = Parse(service(map[string]string{"certificate-type": "managed"}), lbDefaults)
	if err == nil || !strings.Contains(err.Error(), "http-managed-certificate-domains") {
		t.Errorf("managed certificate without domains: %v", err)
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// TestBesideTerraformCombinations: the annotations for load balancers
// shared with Terraform refuse what cannot mean anything.
func TestBesideTerraformCombinations(t *testing.T) {
	tests := []struct {
		annotations map[string]string
		key, want   string // "": accepted
	}{
		{map[string]string{"name": "edge", "externally-managed": "true", "manage-targets": "true"}, "", ""},
		{map[string]string{"name": "shop", "keep-other-services": "true", "retain-on-delete": "true"}, "", ""},
		{map[string]string{"manage-targets": "true"}, "manage-targets", "false unless externally-managed is true"},
		{map[string]string{"externally-managed": "true"}, "externally-managed", "false unless the annotation name names the load balancer"},
		{map[string]string{"name": "edge", "externally-managed": "true", "retain-on-delete": "true"}, "retain-on-delete", "changes and deletes nothing"},
		{map[string]string{"name": "edge", "externally-managed": "true", "keep-other-services": "true"}, "keep-other-services", "changes and deletes nothing"},
		{map[string]string{"name": "edge", "externally-managed": "true", "public-net-ipv4": "4711"}, "public-net-ipv4", "never creates"},
	}
	for _, tt := range tests {
		_, err := Parse(service(tt.annotations), lbDefaults)
		var ae *Error
		switch {
		case tt.key == "" && err != nil:
			t.Errorf("%v refused: %v", tt.annotations, err)
		case tt.key != "" && (!errors.As(err, &ae) || ae.Key != tt.key || !strings.Contains(ae.Accepted, tt.want)):
			t.Errorf("%v: error %v, want one on %s saying %q", tt.annotations, err, tt.key, tt.want)
		}
	}
}
