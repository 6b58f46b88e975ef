package loadbalancer

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

// TestBadSecretIsNeverUploaded: a Secret whose key is another
// certificate's, or too big for the API, is refused before the API sees
// it: no upload, a Warning InvalidCertificateSecret naming the Secret and
// the reason, and the load balancer keeps the certificate it had. Fixed,
// it is uploaded and served.
func TestBadSecretIsNeverUploaded(t *testing.T) {
	c, secrets, svc := secretsCluster(t, fakecloud.Options{})
	c.ensure(t, svc, c.nodes)
	served := httpsCerts(c.LoadBalancerOf(t, svc), 443)
	good := testcert.NewChain(t, "shop.example.com", 1)
	other := testcert.New(t, "other.example.com")
	for _, tc := range []struct{ name, crt, key, why string }{
		{"another certificate's key", good.PEM(), other.KeyPEM, "does not belong to the first certificate"},
		{"a key over 5,000 bytes", good.PEM(), good.KeyPEM + strings.Repeat("# padding\n", 500), "more than the 5000 the API takes"},
		{"a chain upside down", good.Certs[1] + good.Certs[0], good.KeyPEM, "is out of order"},
	} {
		secrets.put("default", "shop-tls", tc.crt, tc.key)
		c.FC.ResetCounters()
		_, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes)
		if err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: sync error %v, want one saying %q", tc.name, err, tc.why)
		}
		if n := c.FC.Requests("POST", "/certificates"); n != 0 {
			t.Errorf("%s: %d uploads, want none", tc.name, n)
		}
		if got := httpsCerts(c.LoadBalancerOf(t, svc), 443); fmt.Sprint(got) != fmt.Sprint(served) {
			t.Errorf("%s: port 443 serves %v, want %v as before", tc.name, got, served)
		}
	}
	if n := c.countEvents(t, corev1.EventTypeWarning, eventBadCertSecret, "shop"); n < 3 {
		t.Errorf("%d Warnings %s, want one a sync", n, eventBadCertSecret)
	}
	for _, e := range c.rec.about("shop") {
		if e.Reason == eventBadCertSecret && (!strings.Contains(e.Message, "default/shop-tls") || strings.Contains(e.Message, "PRIVATE KEY")) {
			t.Errorf("event %q: want it to name the Secret and never show its data", e.Message)
		}
	}

	secrets.put("default", "shop-tls", good.PEM(), good.KeyPEM)
	c.ensure(t, svc, c.nodes)
	if got := httpsCerts(c.LoadBalancerOf(t, svc), 443); len(got) != 1 || fmt.Sprint(got) == fmt.Sprint(served) {
		t.Errorf("fixed Secret: port 443 serves %v, want its new upload", got)
	}
}

// TestTooManyPortsChangeNothing: a Service with more TCP ports than its
// type takes services is refused before the API sees it: no load
// balancer is made, a Warning TooManyPorts names the limit and the types
// that take them; with a bigger type it is made.
func TestTooManyPortsChangeNothing(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	ports := []int32{80, 81, 82, 83, 84, 85}
	svc := lbService("many", ports)
	_, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes)
	if err == nil || !strings.Contains(err.Error(), "needs 6 load balancer services (one per TCP port), but type lb11 takes at most 5") ||
		!strings.Contains(err.Error(), "lb21") {
		t.Fatalf("sync error %v", err)
	}
	if n := c.FC.Requests("POST", "/load_balancers"); n != 0 {
		t.Errorf("%d load balancers created, want none", n)
	}
	if !c.hasEvent(t, corev1.EventTypeWarning, eventTooManyPorts, "many") {
		t.Error("no Warning TooManyPorts")
	}
	svc.Annotations["load-balancer.hetzner.cloud/type"] = "lb21"
	c.ensure(t, svc, c.nodes)
	if lb := c.LoadBalancerOf(t, svc); len(lb.Services) != len(ports) {
		t.Errorf("lb21 has %d services, want %d", len(lb.Services), len(ports))
	}
}
