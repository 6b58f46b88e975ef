package loadbalancer

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// ingressService is an ingress controller's Service: http on 80, https on
// 443, ssh on 22, each port named.
func ingressService(annotations ...string) *corev1.Service {
	svc := lbService("ingress", []int32{80, 443, 22}, annotations...)
	for i, name := range []string{"http", "https", "ssh"} {
		svc.Spec.Ports[i].Name = name
	}
	return svc
}

// TestPortOptionsInvalid: each per-port mistake is reported with the key
// as written and what is accepted, and the webhook's check refuses it.
func TestPortOptionsInvalid(t *testing.T) {
	tests := []struct {
		key, value, accepted string
	}{
		{"port-8080.protocol", "https", "a TCP port of the Service by number or name: 80 (http), 443 (https), 22 (ssh)"},
		{"port-grpc.protocol", "https", "80 (http), 443 (https), 22 (ssh)"},
		{"port-443.type", "lb21", "an annotation a port can set: certificate-type, health-check-http-domain"},
		{"port-22.http-sticky-sessions", "true", "port 22's protocol is tcp: it applies to http or https ports only (set port-22.protocol)"},
		{"port-80.http-certificates", "shop-tls", "port 80's protocol is tcp: it applies to https ports only"},
		{"port-443.protocol", "quic", "one of tcp, http, https"},
		{"port-443.health-check-port", "0", "a whole number from 1 to 65535"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			svc := ingressService(tt.key, tt.value)
			_, err := ValidateService(svc, lbDefaults, 0, "")
			var ae *annotation.Error
			if !errors.As(err, &ae) || ae.Key != tt.key || !strings.Contains(err.Error(), tt.accepted) {
				t.Errorf("error %v, want one naming %s and accepting %q", err, tt.key, tt.accepted)
			}
		})
	}
	// The same setting for a port by number and by name.
	_, err := ValidateService(ingressService("port-443.protocol", "https", "port-https.protocol", "http", "http-certificates", "a"), lbDefaults, 0, "")
	if err == nil || !strings.Contains(err.Error(), "one value for port 443: port-443.protocol sets protocol too") {
		t.Errorf("twice set: %v", err)
	}
	// https on one port needs that port's certificates, named by its own key.
	_, err = ValidateService(ingressService("port-443.protocol", "https"), lbDefaults, 0, "")
	if err == nil || !strings.Contains(err.Error(), "port-443.http-certificates") {
		t.Errorf("https without certificates: %v", err)
	}
	// A mistake in an annotation without a port is reported once, not once a port.
	_, err = ValidateService(ingressService("health-check-retries", "9"), lbDefaults, 0, "")
	if err == nil || strings.Count(err.Error(), "health-check-retries") != 1 {
		t.Errorf("error %v, want the one mistake once", err)
	}
}

// TestPortOptionsReachTheCloud: an ingress controller's Service with
// PROXY on 80 and 443, plain TCP on 22, HTTPS on 443 with its
// certificate; changing one port's option updates that service only.
func TestPortOptionsReachTheCloud(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	certPEM, keyPEM := selfSigned(t, "shop.example.com")
	cert, _, err := c.Client.Certificate.Create(t.Context(), hcloud.CertificateCreateOpts{Name: "shop-tls", Certificate: certPEM, PrivateKey: keyPEM})
	if err != nil {
		t.Fatal(err)
	}
	svc := ingressService("uses-proxyprotocol", "true", "port-ssh.uses-proxyprotocol", "false",
		"port-https.protocol", "https", "port-https.http-certificates", "shop-tls", "port-443.health-check-protocol", "tcp")
	st, _ := c.ensure(t, svc, c.nodes)
	type service struct {
		Protocol     hcloud.LoadBalancerServiceProtocol
		Proxy        bool
		Certs        int
		HealthCheck  hcloud.LoadBalancerServiceProtocol
		CertificateN int64
	}
	services := func() map[int]service {
		out := map[int]service{}
		for _, s := range c.LoadBalancerOf(t, svc).Services {
			v := service{Protocol: s.Protocol, Proxy: s.Proxyprotocol, Certs: len(s.HTTP.Certificates), HealthCheck: s.HealthCheck.Protocol}
			if len(s.HTTP.Certificates) > 0 {
				v.CertificateN = s.HTTP.Certificates[0].ID
			}
			out[s.ListenPort] = v
		}
		return out
	}
	want := map[int]service{
		80:  {Protocol: "tcp", Proxy: true, HealthCheck: "tcp"},
		443: {Protocol: "https", Proxy: true, Certs: 1, CertificateN: cert.ID, HealthCheck: "tcp"},
		22:  {Protocol: "tcp", HealthCheck: "tcp"},
	}
	if diff := cmp.Diff(want, services()); diff != "" {
		t.Errorf("services (-want +got):\n%s", diff)
	}
	for _, in := range st.Ingress {
		if in.IPMode == nil || *in.IPMode != corev1.LoadBalancerIPModeProxy {
			t.Errorf("ingress %s: ipMode %v, want Proxy: ports 80 and 443 send PROXY", in.IP, in.IPMode)
		}
	}
	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("resync sent %d requests, want 0", n)
	}
	svc.Annotations[annotation.Prefix+"port-http.protocol"] = "http"
	if _, n := c.ensure(t, svc, c.nodes); n != 1 || c.FC.Requests("POST", "/load_balancers/{id}/actions/update_service") != 1 {
		t.Errorf("changing port 80's protocol: %d requests (%v), want one update_service", n, c.FC.Counters())
	}
	want[80] = service{Protocol: "http", Proxy: true, HealthCheck: "tcp"}
	if diff := cmp.Diff(want, services()); diff != "" {
		t.Errorf("services after the change (-want +got):\n%s", diff)
	}
}
