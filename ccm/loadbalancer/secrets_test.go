package loadbalancer

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// fakeSecrets are Secrets in memory, and what the Manager said it uses.
type fakeSecrets struct {
	mu      sync.Mutex
	secrets map[string]*corev1.Secret
	used    map[string][]string
}

func (f *fakeSecrets) Use(uid string, keys []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.used[uid] = keys
}

func (f *fakeSecrets) Get(_ context.Context, key string) (*corev1.Secret, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.secrets[key], nil
}

func (f *fakeSecrets) put(ns, name, crt, key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.secrets[ns+"/"+name] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte(crt), corev1.TLSPrivateKeyKey: []byte(key)}}
}

// secretsCluster is newLBCluster whose Manager reads Secrets from memory,
// with default/shop-tls holding a certificate, and Service shop naming it
// on its https port 443 beside port 80.
func secretsCluster(t *testing.T, opts fakecloud.Options) (*lbCluster, *fakeSecrets, *corev1.Service) {
	t.Helper()
	c := newLBCluster(t, 2, opts)
	secrets := &fakeSecrets{secrets: map[string]*corev1.Secret{}, used: map[string][]string{}}
	c.lbs.SetSecrets(secrets)
	crt, key := selfSigned(t, "shop.example.com")
	secrets.put("default", "shop-tls", crt, key)
	return c, secrets, lbService("shop", []int32{80, 443}, "port-443.protocol", "https", "port-443.http-certificate-secrets", "shop-tls")
}

// httpsCerts are the certificate IDs of lb's service on port.
func httpsCerts(lb *hcloud.LoadBalancer, port int) []int64 {
	for _, s := range lb.Services {
		if s.ListenPort == port {
			return certIDs(s.HTTP.Certificates)
		}
	}
	return nil
}

// TestCertificatesFromSecrets: a Service names a cert-manager Secret; the
// CCM uploads it and serves it on 443; the Secret renewed, the new
// certificate replaces the old, which is deleted; the Service deleted, so
// is the upload. The private key appears in no event.
func TestCertificatesFromSecrets(t *testing.T) {
	c, secrets, svc := secretsCluster(t, fakecloud.Options{})
	c.ensure(t, svc, c.nodes)
	certs, _ := c.Client.Certificate.All(t.Context())
	if len(certs) != 1 || certs[0].Type != hcloud.CertificateTypeUploaded || !strings.HasPrefix(certs[0].Name, "k8s-default-shop-tls-") {
		t.Fatalf("certificates %d, want one uploaded k8s-default-shop-tls-…", len(certs))
	}
	first := certs[0].ID
	if got := httpsCerts(c.LoadBalancerOf(t, svc), 443); len(got) != 1 || got[0] != first {
		t.Errorf("port 443 serves %v, want %d", got, first)
	}
	if got := secrets.used[string(svc.UID)]; len(got) != 1 || got[0] != "default/shop-tls" {
		t.Errorf("the Manager uses %v, want default/shop-tls", got)
	}
	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("resync sent %d requests, want 0", n)
	}

	// cert-manager renews: the Secret changes, the CCM is told.
	renewed, renewedKey := selfSigned(t, "shop.example.com")
	secrets.put("default", "shop-tls", renewed, renewedKey)
	c.FC.ResetCounters()
	c.lbs.SecretChanged("default/shop-tls")
	fakecloudtest.Eventually(t, 20*time.Second, "the renewed certificate served and the old one deleted", func() bool {
		all, _ := c.Client.Certificate.All(t.Context())
		got := httpsCerts(c.LoadBalancerOf(t, svc), 443)
		return len(all) == 1 && all[0].ID != first && len(got) == 1 && got[0] == all[0].ID
	})
	// Besides two listings of the Secret's uploads: one upload, one
	// update_service, one deletion.
	for _, r := range []struct{ method, path string }{{"POST", "/certificates"},
		{"POST", "/load_balancers/{id}/actions/update_service"}, {"DELETE", "/certificates/{id}"}} {
		if n := c.FC.Requests(r.method, r.path); n != 1 {
			t.Errorf("the renewal sent %d %s %s, want 1 (%v)", n, r.method, r.path, c.FC.Counters())
		}
	}

	// A Secret that holds no key is refused naming the Secret, never its
	// data.
	secrets.put("default", "broken", renewed, "not a key "+renewedKey[:40])
	bad := lbService("bad", []int32{443}, "protocol", "https", "http-certificate-secrets", "broken,nowhere")
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", bad, c.nodes); err == nil || !strings.Contains(err.Error(), "tls.key holds no PEM private key") {
		t.Errorf("broken Secret: %v", err)
	}
	for _, e := range c.rec.about("bad") {
		if strings.Contains(e.Message, "PRIVATE KEY") || strings.Contains(e.Message, renewedKey[40:80]) {
			t.Errorf("an event shows the key: %s", e.Message)
		}
	}
	if !c.hasEvent(t, corev1.EventTypeWarning, eventBadCertSecret, "bad") {
		t.Error("no InvalidCertificateSecret event for the broken Secret")
	}

	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
		t.Fatal(err)
	}
	if all, _ := c.Client.Certificate.All(t.Context()); len(all) != 0 {
		t.Errorf("%d certificates left after the Service went, want 0", len(all))
	}
	if got := secrets.used[string(svc.UID)]; len(got) != 0 {
		t.Errorf("the Manager still uses %v", got)
	}
}

// TestSecretCertificatesGoWithTheirPort: with actions that take time, as
// the API's do, a Secret's uploads still go once the port naming it is
// removed: the deletion waits for the action that let go of them, and a
// renewal's old upload goes the same way.
func TestSecretCertificatesGoWithTheirPort(t *testing.T) {
	c, secrets, svc := secretsCluster(t, fakecloud.Options{ActionDuration: 300 * time.Millisecond})
	c.ensure(t, svc, c.nodes)
	fakecloudtest.Eventually(t, 20*time.Second, "the create action done", func() bool { return c.lbs.ActionsRunning() == 0 })

	renewed, renewedKey := selfSigned(t, "shop.example.com")
	secrets.put("default", "shop-tls", renewed, renewedKey)
	c.ensure(t, svc, c.nodes)
	if all, _ := c.Client.Certificate.All(t.Context()); len(all) != 1 {
		t.Errorf("%d certificates after the renewal's sync, want the new one only", len(all))
	}

	svc.Spec.Ports = svc.Spec.Ports[:1]
	delete(svc.Annotations, annotationKey("port-443.protocol"))
	delete(svc.Annotations, annotationKey("port-443.http-certificate-secrets"))
	c.ensure(t, svc, c.nodes)
	if all, _ := c.Client.Certificate.All(t.Context()); len(all) != 0 {
		t.Errorf("%d certificates once no port names the Secret, want 0", len(all))
	}
	if got := secrets.used[string(svc.UID)]; len(got) != 0 {
		t.Errorf("the Manager still uses %v", got)
	}
}
