package admission

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

// TestAdmitPortsOverTheTypesLimit: more TCP ports than the type takes
// services is refused, naming the limit and the types that take them;
// with one of those types it passes. Never a request.
func TestAdmitPortsOverTheTypesLimit(t *testing.T) {
	w := newWorld(t)
	ports := make([]int32, 0, 2000)
	for p := int32(1000); p < 3000; p++ {
		ports = append(ports, p)
	}
	many := cloudtest.LBService("web", ports)
	resp, err := New(w.lbs, true).Admit(request(t, admissionv1.Create, many, nil))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Allowed || !strings.Contains(resp.Result.Message, "needs 2000 load balancer services (one per TCP port), but type lb11 takes at most 5") {
		t.Errorf("2,000 ports: allowed %v, %+v", resp.Allowed, resp.Result)
	}
	six := cloudtest.LBService("web", ports[:6], "type", "lb21")
	if resp, _ := New(w.lbs, true).Admit(request(t, admissionv1.Create, six, nil)); !resp.Allowed {
		t.Errorf("6 ports on lb21 refused: %+v", resp.Result)
	}
	if n := w.Requests(); n != 0 {
		t.Errorf("%d API requests, want none", n)
	}
}

// secretsAt are Secrets in memory, for loadbalancer.Manager.SetSecrets.
type secretsAt map[string]*corev1.Secret

func (s secretsAt) Use(string, []string) {}
func (s secretsAt) Get(_ context.Context, key string) (*corev1.Secret, error) {
	return s[key], nil
}

// TestAdmitWarnsOfABadSecret: a Service naming a TLS Secret whose key is
// not its certificate's is allowed (the Secret is what to fix) with a
// warning naming the Secret and the reason, as the sync's event does; a
// good Secret or one not there yet brings none.
func TestAdmitWarnsOfABadSecret(t *testing.T) {
	w := newWorld(t)
	good, other := testcert.New(t, "shop.example.com"), testcert.New(t, "other.example.com")
	tls := func(name, crt, key string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: []byte(crt), corev1.TLSPrivateKeyKey: []byte(key)}}
	}
	w.lbs.SetSecrets(secretsAt{"default/good": tls("good", good.CertPEM, good.KeyPEM), "default/bad": tls("bad", good.CertPEM, other.KeyPEM)})
	for _, tc := range []struct{ secret, warning string }{{"good", ""}, {"missing", ""},
		{"bad", "secret default/bad: tls.key does not belong to the first certificate of tls.crt"}} {
		s := svc("protocol", "https", "http-certificate-secrets", tc.secret)
		resp, err := New(w.lbs, true).Admit(request(t, admissionv1.Create, s, nil))
		if err != nil || !resp.Allowed {
			t.Fatalf("%s: refused %v %+v", tc.secret, err, resp.Result)
		}
		got := strings.Join(resp.Warnings, "; ")
		if (tc.warning == "") != (got == "") || !strings.Contains(got, tc.warning) {
			t.Errorf("%s: warnings %q, want %q", tc.secret, got, tc.warning)
		}
	}
}

// TestAdmitDeprecatedTypes: a deprecated type that can still be ordered
// is a warning with its date, as the sync's LoadBalancerTypeDeprecated;
// one past its date is refused for a new Service, and only a warning for
// one that already named it.
func TestAdmitDeprecatedTypes(t *testing.T) {
	w := newWorld(t)
	now := time.Now()
	for typ, after := range map[string]time.Duration{"lb21": 30 * 24 * time.Hour, "lb31": -24 * time.Hour} {
		if err := w.FC.Apply(fakecloud.Event{Type: "deprecate_load_balancer_type", LoadBalancerType: typ,
			Announced: now.Add(-90 * 24 * time.Hour), UnavailableAfter: now.Add(after)}); err != nil {
			t.Fatal(err)
		}
	}
	lbs := loadbalancer.New(w.Client, loadbalancer.Options{Defaults: annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1"}, MaxAge: time.Minute})
	if err := lbs.LoadTypes(t.Context()); err != nil {
		t.Fatal(err)
	}
	resp, _ := New(lbs, true).Admit(request(t, admissionv1.Create, svc("type", "lb21"), nil))
	if !resp.Allowed || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], `"lb21" is deprecated and will no longer be available for order as of`) {
		t.Errorf("lb21: allowed %v, warnings %q", resp.Allowed, resp.Warnings)
	}
	resp, _ = New(lbs, true).Admit(request(t, admissionv1.Create, svc("type", "lb31"), nil))
	if resp.Allowed || !strings.Contains(resp.Result.Message, `type="lb31"`) || !strings.Contains(resp.Result.Message, "can still be ordered: one of lb11, lb21") {
		t.Errorf("lb31 on create: allowed %v, %+v", resp.Allowed, resp.Result)
	}
	resp, _ = New(lbs, true).Admit(request(t, admissionv1.Update, svc("type", "lb31", "location", "nbg1"), svc("type", "lb31")))
	if !resp.Allowed || len(resp.Warnings) != 1 {
		t.Errorf("lb31 kept on update: allowed %v, warnings %q", resp.Allowed, resp.Warnings)
	}
}
