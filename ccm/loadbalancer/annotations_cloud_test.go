package loadbalancer

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

func TestLBHTTPAnnotationsReachTheCloud(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{})
	svc := lbService("web", []int32{80}, "protocol", "http", "algorithm-type", "least_connections",
		"uses-proxyprotocol", "true", "http-cookie-name", "SID", "http-cookie-lifetime", "10m", "http-sticky-sessions", "true",
		"http-timeout-idle", "120s", "health-check-protocol", "http", "health-check-port", "8081", "health-check-interval", "5s",
		"health-check-timeout", "4s", "health-check-retries", "2", "health-check-http-domain", "example.com",
		"health-check-http-path", "/healthz", "http-status-codes", "2??,301", "use-private-ip", "true",
		"private-ipv4", "10.0.255.10", "ipv4-rdns", "lb.example.com", "ipv6-disabled", "true")
	st, _ := c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	if lb.Algorithm.Type != hcloud.LoadBalancerAlgorithmTypeLeastConnections || lb.PublicNet.IPv4.DNSPtr != "lb.example.com" {
		t.Errorf("algorithm %s, rDNS %s", lb.Algorithm.Type, lb.PublicNet.IPv4.DNSPtr)
	}
	if len(lb.PrivateNet) != 1 || lb.PrivateNet[0].IP.String() != "10.0.255.10" {
		t.Errorf("private networks %+v, want 10.0.255.10", lb.PrivateNet)
	}
	s := lb.Services[0]
	want := hcloud.LoadBalancerService{Protocol: "http", ListenPort: 80, DestinationPort: 30080, Proxyprotocol: true,
		HTTP: hcloud.LoadBalancerServiceHTTP{CookieName: "SID", CookieLifetime: 10 * time.Minute, StickySessions: true, TimeoutIdle: 2 * time.Minute, Certificates: []*hcloud.Certificate{}},
		HealthCheck: hcloud.LoadBalancerServiceHealthCheck{Protocol: "http", Port: 8081, Interval: 5 * time.Second, Timeout: 4 * time.Second, Retries: 2,
			HTTP: &hcloud.LoadBalancerServiceHealthCheckHTTP{Domain: "example.com", Path: "/healthz", StatusCodes: []string{"2??", "301"}}}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("service (-want +got):\n%s", diff)
	}
	for _, tg := range lb.Targets {
		if !tg.UsePrivateIP {
			t.Errorf("target %d does not use its private IP", tg.Server.Server.ID)
		}
	}
	if len(lb.Targets) != 3 {
		t.Errorf("%d targets, want 3", len(lb.Targets))
	}
	// Public IPv4, no IPv6, the private IP; all in proxy mode.
	if diff := cmp.Diff([]string{lb.PublicNet.IPv4.IP.String(), "10.0.255.10"}, ingressIPs(st)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	for _, in := range st.Ingress {
		if in.IPMode == nil || *in.IPMode != corev1.LoadBalancerIPModeProxy {
			t.Errorf("ingress %s: ipMode %v, want Proxy with proxy protocol", in.IP, in.IPMode)
		}
	}
	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("resync sent %d requests, want 0", n)
	}
}

func TestLBHTTPSWithUploadedAndManagedCertificates(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	certPEM, keyPEM := selfSigned(t, "shop.example.com")
	cert, _, err := c.Client.Certificate.Create(t.Context(), hcloud.CertificateCreateOpts{Name: "shop-tls", Certificate: certPEM, PrivateKey: keyPEM})
	if err != nil {
		t.Fatal(err)
	}
	uploaded := lbService("shop", []int32{443}, "protocol", "https", "http-certificates", "shop-tls", "http-redirect-http", "true")
	c.ensure(t, uploaded, c.nodes)
	s := c.LoadBalancerOf(t, uploaded).Services[0]
	if s.Protocol != "https" || !s.HTTP.RedirectHTTP || len(s.HTTP.Certificates) != 1 || s.HTTP.Certificates[0].ID != cert.ID {
		t.Errorf("https service %+v, want certificate %d and redirect", s.HTTP, cert.ID)
	}
	if _, n := c.ensure(t, uploaded, c.nodes); n != 0 {
		t.Errorf("resync sent %d requests, want 0 (the name's ID is remembered)", n)
	}

	managed := lbService("blog", []int32{443}, "protocol", "https", "certificate-type", "managed",
		"http-managed-certificate-domains", "blog.example.com,www.blog.example.com")
	c.ensure(t, managed, c.nodes)
	certs, err := c.Client.Certificate.AllWithOpts(t.Context(), hcloud.CertificateListOpts{ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + string(managed.UID)}})
	if err != nil || len(certs) != 1 {
		t.Fatalf("managed certificates for the Service: %d (%v), want 1", len(certs), err)
	}
	mc := certs[0]
	if mc.Type != hcloud.CertificateTypeManaged || mc.Name != "ccm-managed-certificate-"+string(managed.UID) ||
		!slices.Equal(mc.DomainNames, []string{"blog.example.com", "www.blog.example.com"}) {
		t.Errorf("managed certificate %s %s %v", mc.Type, mc.Name, mc.DomainNames)
	}
	if got := c.LoadBalancerOf(t, managed).Services[0].HTTP.Certificates; len(got) != 1 || got[0].ID != mc.ID {
		t.Errorf("service certificates %v, want the managed one %d", got, mc.ID)
	}
	// Deleting the Service removes the certificate made for it, and only that one.
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", managed); err != nil {
		t.Fatal(err)
	}
	left, _ := c.Client.Certificate.All(t.Context())
	if len(left) != 1 || left[0].ID != cert.ID {
		t.Errorf("certificates left %d, want only the uploaded one", len(left))
	}
}

func TestLBPublicNetworkDisabledAndHostnameStatus(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	private := lbService("internal", []int32{80}, "disable-public-network", "true", "use-private-ip", "true")
	st, _ := c.ensure(t, private, c.nodes)
	lb := c.LoadBalancerOf(t, private)
	if lb.PublicNet.Enabled {
		t.Error("public interface enabled")
	}
	if diff := cmp.Diff([]string{lb.PrivateNet[0].IP.String()}, ingressIPs(st)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	named := lbService("named", []int32{80}, "hostname", "lb.example.com", "disable-private-ingress", "true")
	st, _ = c.ensure(t, named, c.nodes)
	if len(st.Ingress) != 1 || st.Ingress[0].Hostname != "lb.example.com" || st.Ingress[0].IP != "" {
		t.Errorf("status %+v, want only the hostname", st.Ingress)
	}
	// Turning the public interface back on is one action.
	private.Annotations[annotation.Prefix+"disable-public-network"] = "false"
	if _, n := c.ensure(t, private, c.nodes); n != 1 || !c.LoadBalancerOf(t, private).PublicNet.Enabled {
		t.Errorf("enabling the public interface: %d requests, enabled=%v", n, c.LoadBalancerOf(t, private).PublicNet.Enabled)
	}
	// Turning it off on a load balancer whose targets use public IPs moves
	// the targets to private IPs first; the API refuses it the other way round.
	public := lbService("public", []int32{80})
	c.ensure(t, public, c.nodes)
	public.Annotations[annotation.Prefix+"disable-public-network"] = "true"
	public.Annotations[annotation.Prefix+"use-private-ip"] = "true"
	c.ensure(t, public, c.nodes)
	lb = c.LoadBalancerOf(t, public)
	if lb.PublicNet.Enabled || len(lb.Targets) != 2 || !lb.Targets[0].UsePrivateIP || !lb.Targets[1].UsePrivateIP {
		t.Errorf("public interface %v, targets %+v; want off, with 2 private targets", lb.PublicNet.Enabled, lb.Targets)
	}
}

// TestLBEmptyNameAndHostnameAreUnset: an empty name keeps the default
// name and an empty hostname publishes the addresses, at creation and
// after, as the official CCM since its annotation refactor.
func TestLBEmptyNameAndHostnameAreUnset(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	svc := lbService("web", []int32{80}, "name", "", "hostname", "")
	st, _ := c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	if lb.Name != defaultLBName(svc) {
		t.Errorf("name %q, want the default %q", lb.Name, defaultLBName(svc))
	}
	if len(st.Ingress) == 0 || st.Ingress[0].Hostname != "" || st.Ingress[0].IP != lb.PublicNet.IPv4.IP.String() {
		t.Errorf("status %+v, want the addresses, no hostname", st.Ingress)
	}
	svc.Annotations[annotation.Prefix+"name"] = " "
	if _, n := c.ensure(t, svc, c.nodes); n != 0 || c.LoadBalancerOf(t, svc).Name != lb.Name {
		t.Errorf("a blank name sent %d requests, name %q; want none, %q", n, c.LoadBalancerOf(t, svc).Name, lb.Name)
	}
}

func TestLBBadAnnotationsAreEventsAndTouchNothing(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	svc := lbService("web", []int32{80}, "algorithm-type", "fastest", "health-check-interval", "5", "uses-proxyprotocol", "yes please")
	before := c.Requests()
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes); err == nil {
		t.Fatal("bad annotations accepted")
	}
	if n := c.Requests() - before; n != 0 {
		t.Errorf("%d requests sent for a Service with bad annotations, want 0", n)
	}
	want := map[string]string{
		"algorithm-type":        "round_robin, least_connections",
		"health-check-interval": "whole seconds",
		"uses-proxyprotocol":    "true or false",
	}
	fakecloudtest.Eventually(t, 20*time.Second, "an event per bad annotation", func() bool {
		found := 0
		for _, e := range c.rec.about("web") {
			for name, accepted := range want {
				if e.Reason == eventBadAnnotation && e.Type == corev1.EventTypeWarning &&
					strings.Contains(e.Message, annotation.Prefix+name) && strings.Contains(e.Message, accepted) {
					found++
				}
			}
		}
		return found == len(want)
	})
	// An unknown type is checked against the catalog before anything is made.
	typo := lbService("typo", []int32{80}, "type", "lb99")
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", typo, c.nodes); err == nil || !strings.Contains(err.Error(), "lb11, lb21, lb31") {
		t.Errorf("type lb99: %v, want the accepted types", err)
	}
	if len(c.LoadBalancers(t)) != 0 {
		t.Error("a load balancer was created for a Service with bad annotations")
	}
}

func TestLBTargetsFollowTheNodes(t *testing.T) {
	c := newLBCluster(t, 30, fakecloud.Options{})
	nodes := slices.Clone(c.nodes)
	nodes[0] = nodes[0].DeepCopy()
	nodes[0].Labels = map[string]string{excludeLabel: ""}
	nodes[1] = nodes[1].DeepCopy()
	nodes[1].Spec.ProviderID = "" // not initialised yet
	nodes[2] = nodes[2].DeepCopy()
	nodes[2].Spec.ProviderID = "hrobot://4711"
	svc := lbService("web", []int32{80, 53})
	svc.Spec.Ports[1].Protocol = corev1.ProtocolUDP
	c.ensure(t, svc, nodes)
	lb := c.LoadBalancerOf(t, svc)
	// lb11 takes 25 targets: the 25 oldest eligible nodes.
	if diff := cmp.Diff(serverIDs(c.nodes[3:28]), sorted(targetIDs(lb))); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if len(lb.Services) != 1 || lb.Services[0].ListenPort != 80 {
		t.Errorf("services %v, want only TCP port 80", lb.Services)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "events for the UDP port, the Robot node and the full load balancer", func() bool {
		return c.hasEvent(t, corev1.EventTypeWarning, eventPortSkipped, "web") && c.hasEvent(t, corev1.EventTypeWarning, eventNodeSkipped, nodes[2].Name) &&
			c.hasEvent(t, corev1.EventTypeWarning, eventMaxTargets, "node-0028") && c.hasEvent(t, corev1.EventTypeWarning, eventMaxTargets, "node-0029")
	})
	// The node selector narrows the targets.
	for _, n := range nodes[3:] {
		n.Labels = map[string]string{"pool": "a"}
	}
	nodes[3].Labels["pool"] = "b"
	svc.Annotations[annotation.Prefix+"node-selector"] = "pool=b"
	c.ensure(t, svc, nodes)
	if got := targetIDs(c.LoadBalancerOf(t, svc)); !slices.Equal(got, serverIDs(nodes[3:4])) {
		t.Errorf("targets %v, want only node-0003's server", got)
	}
}

func TestLBTypeIsUpgradedNeverDowngraded(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	svc := lbService("web", []int32{80}, "type", "lb21")
	c.ensure(t, svc, c.nodes)
	svc.Annotations[annotation.Prefix+"type"] = "lb31"
	if _, n := c.ensure(t, svc, c.nodes); n != 1 || c.LoadBalancerOf(t, svc).LoadBalancerType.Name != "lb31" {
		t.Errorf("upgrade: %d requests, type %s", n, c.LoadBalancerOf(t, svc).LoadBalancerType.Name)
	}
	svc.Annotations[annotation.Prefix+"type"] = "lb11"
	if _, n := c.ensure(t, svc, c.nodes); n != 0 || c.LoadBalancerOf(t, svc).LoadBalancerType.Name != "lb31" {
		t.Errorf("downgrade: %d requests, type %s; want no change", n, c.LoadBalancerOf(t, svc).LoadBalancerType.Name)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "TypeNotDowngraded event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventTypeDowngrade, "web") })
}

// selfSigned is a certificate and key for an uploaded certificate.
func selfSigned(t *testing.T, host string) (string, string) {
	t.Helper()
	p := testcert.New(t, host)
	return p.CertPEM, p.KeyPEM
}

func TestLBPlacementAndHTTPSHealthCheckAnnotations(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	certPEM, keyPEM := selfSigned(t, "api.example.com")
	cert, _, err := c.Client.Certificate.Create(t.Context(), hcloud.CertificateCreateOpts{Name: "api-tls", Certificate: certPEM, PrivateKey: keyPEM})
	if err != nil {
		t.Fatal(err)
	}
	// An empty location annotation clears the environment's, so the zone applies.
	svc := lbService("api", []int32{443}, "location", "", "network-zone", "eu-central", "protocol", "https",
		"http-certificates", "4711", "ipv6-rdns", "v6.example.com", "private-subnet-ip-range", "10.0.0.0/16",
		"health-check-protocol", "https", "health-check-http-validate-certificate", "true", "health-check-http-path", "/ready")
	svc.Annotations[annotation.Prefix+"http-certificates"] = strconv.FormatInt(cert.ID, 10)
	c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	if lb.Location.NetworkZone != "eu-central" || lb.PublicNet.IPv6.DNSPtr != "v6.example.com" {
		t.Errorf("zone %s, IPv6 rDNS %s", lb.Location.NetworkZone, lb.PublicNet.IPv6.DNSPtr)
	}
	if len(lb.PrivateNet) != 1 || !netip.MustParsePrefix("10.0.0.0/16").Contains(netip.MustParseAddr(lb.PrivateNet[0].IP.String())) {
		t.Errorf("private networks %+v, want an address in 10.0.0.0/16", lb.PrivateNet)
	}
	hc := lb.Services[0].HealthCheck
	if hc.Protocol != "https" || hc.HTTP == nil || !hc.HTTP.TLS || hc.HTTP.Path != "/ready" || lb.Services[0].HTTP.Certificates[0].ID != cert.ID {
		t.Errorf("health check %+v %+v", hc, hc.HTTP)
	}
	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("resync sent %d requests, want 0", n)
	}
}
