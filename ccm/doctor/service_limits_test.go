package doctor

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

// TestServiceLimitsAndSecrets: doctor refuses, as the sync and the
// webhook do, a Service with more ports than its type takes services, and
// a TLS Secret the API would not take (naming it, never its data); a
// good Secret passes and a missing one is named.
func TestServiceLimitsAndSecrets(t *testing.T) {
	const shopUID = "0b1c2d3e-8888-2222-3333-444455556666"
	f := newFixture().start(t)
	many := lbService("many", "0b1c2d3e-9999-2222-3333-444455556666", "location", "fsn1")
	for p := int32(81); p < 2080; p++ {
		many.Spec.Ports = append(many.Spec.Ports, corev1.ServicePort{Protocol: corev1.ProtocolTCP, Port: p, NodePort: 30000 + p%2000})
	}
	good, other := testcert.New(t, "shop.example.com"), testcert.New(t, "other.example.com")
	secret := func(name, crt, key string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: []byte(crt), corev1.TLSPrivateKeyKey: []byte(key)}}
	}
	f.objects["Secret/good"] = secret("good", good.CertPEM, good.KeyPEM)
	f.objects["Secret/bad"] = secret("bad", good.CertPEM, other.KeyPEM)
	f.services = append(f.services, many,
		lbService("shop", shopUID, "location", "fsn1", "protocol", "https", "http-certificate-secrets", "good,bad,gone"))
	r := f.run(t)
	for _, w := range []want{
		{"service", Fail, "service/default/many", "needs 2000 load balancer services (one per TCP port), but type lb11 takes at most 5"},
		{"service", Fail, "service/default/shop", "secret default/bad: tls.key does not belong to the first certificate of tls.crt"},
		{"service", Fail, "service/default/shop", "TLS Secret default/gone does not exist"},
	} {
		if !has(r, w.check, w.status, w.subject, w.message) {
			t.Errorf("no %s %s finding on %s with %q in:\n%s", w.status, w.check, w.subject, w.message, dump(r))
		}
	}
	for _, f := range r.Findings {
		if f.Subject == "service/default/shop" && (has(r, "service", Fail, f.Subject, "default/good") || has(r, "service", Fail, f.Subject, "PRIVATE KEY")) {
			t.Errorf("finding %q: names the good Secret or shows a key", f.Message)
		}
	}
	if has(r, "service", OK, "service/default/many", "annotations valid") {
		t.Errorf("2,000 ports called valid:\n%s", dump(r))
	}
}
