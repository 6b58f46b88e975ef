package annotation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
)

// ingressService is an ingress controller's Service: http on 80, https on
// 443, ssh on 22, each port named.
func ingressService(annotations ...string) *corev1.Service {
	svc := cloudtest.LBService("ingress", []int32{80, 443, 22}, annotations...)
	for i, name := range []string{"http", "https", "ssh"} {
		svc.Spec.Ports[i].Name = name
	}
	return svc
}

// TestPortOptions: a port's own annotations, by number or by name,
// override the Service's for that port only.
func TestPortOptions(t *testing.T) {
	o, err := Parse(ingressService("uses-proxyprotocol", "true", "health-check-interval", "5s",
		"port-ssh.uses-proxyprotocol", "false",
		"port-443.protocol", "https", "port-https.http-certificates", "shop-tls", "port-443.http-redirect-http", "true",
		"port-http.protocol", "http", "port-80.http-sticky-sessions", "true", "port-80.health-check-http-path", "/ready"), lbDefaults)
	if err != nil {
		t.Fatal(err)
	}
	type port struct {
		Protocol       string
		Proxy          bool
		Certs          []string
		Sticky, Redir  bool
		Path, Interval string
	}
	got := map[int32]port{}
	for n, p := range o.Ports {
		got[n] = port{p.Protocol, p.ProxyProtocol, p.HTTP.Certificates, p.HTTP.StickySessions != nil && *p.HTTP.StickySessions,
			p.HTTP.RedirectHTTP != nil && *p.HTTP.RedirectHTTP, p.HealthCheck.HTTPPath, p.HealthCheck.Interval.String()}
	}
	want := map[int32]port{
		80:  {Protocol: "http", Proxy: true, Sticky: true, Path: "/ready", Interval: "5s"},
		443: {Protocol: "https", Proxy: true, Certs: []string{"shop-tls"}, Redir: true, Interval: "5s"},
		22:  {Protocol: "tcp", Interval: "5s"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	if o.Protocol != "tcp" || !o.ProxyProtocol {
		t.Errorf("the Service's options changed: protocol %s, proxy %v", o.Protocol, o.ProxyProtocol)
	}
}
