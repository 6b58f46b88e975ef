package webhookcert

import (
	"crypto/x509"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

const (
	ns, secretName, vwcName = "kube-system", "hcloud-ccm-webhook-tls", "hcloud-ccm"
	dnsName                 = "hcloud-ccm-webhook.kube-system.svc"
)

var dnsNames = []string{dnsName, "hcloud-ccm-webhook.kube-system.svc.cluster.local"}

// cluster is a fake clientset with the Secret and the configuration the
// chart renders: both without certificates.
func cluster(objs ...runtime.Object) *fake.Clientset {
	if objs == nil {
		objs = []runtime.Object{
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secretName}},
			&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: vwcName},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "services.hcloud-ccm.hetzner.cloud"}}},
		}
	}
	return fake.NewClientset(objs...)
}

type counter struct{ n atomic.Int32 }

func (c *counter) Enqueue() { c.n.Add(1) }

func replica(t *testing.T, client *fake.Clientset, clock *fakecloudtest.Clock) (*Rotator, *counter) {
	t.Helper()
	r, err := New(Options{Client: client, SecretNamespace: ns, SecretName: secretName, Configuration: vwcName,
		DNSNames: dnsNames, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	r.AddListener(c)
	return r, c
}

func secret(t *testing.T, client *fake.Clientset) map[string][]byte {
	t.Helper()
	s, err := client.CoreV1().Secrets(ns).Get(t.Context(), secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Data
}

func caBundle(t *testing.T, client *fake.Clientset) []byte {
	t.Helper()
	v, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(t.Context(), vwcName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v.Webhooks[0].ClientConfig.CABundle
}

// verify checks that certPEM is trusted by bundle for dnsName at now.
func verify(t *testing.T, certPEM, bundle []byte, now time.Time) error {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(bundle) {
		t.Fatal("CA bundle without certificates")
	}
	certs, err := parseCerts(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	_, err = certs[0].Verify(x509.VerifyOptions{DNSName: dnsName, Roots: pool, CurrentTime: now})
	return err
}

func updates(client *fake.Clientset, resource string) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "update" && a.GetResource().Resource == resource {
			n++
		}
	}
	return n
}

// TestSyncShared: the first replica fills the Secret the chart made and
// the caBundle; a second serves the same certificate and writes nothing.
func TestSyncShared(t *testing.T) {
	client, clock := cluster(), fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	a, aHeard := replica(t, client, clock)
	b, bHeard := replica(t, client, clock)
	ephemeral, _ := a.CurrentCertKeyContent()
	if err := a.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	data := secret(t, client)
	for _, k := range []string{KeyCABundle, KeyCAKey, KeyCert, KeyKey} {
		if len(data[k]) == 0 {
			t.Errorf("Secret without %s", k)
		}
	}
	cert, key := a.CurrentCertKeyContent()
	if string(cert) != string(data[KeyCert]) || string(key) != string(data[KeyKey]) || string(cert) == string(ephemeral) {
		t.Error("the replica does not serve the Secret's certificate")
	}
	if aHeard.n.Load() != 1 {
		t.Errorf("the server was told %d times of the new certificate, want once", aHeard.n.Load())
	}
	if err := verify(t, cert, caBundle(t, client), clock.Now()); err != nil {
		t.Errorf("the served certificate is not trusted by the caBundle: %v", err)
	}
	if err := b.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := b.CurrentCertKeyContent(); string(got) != string(cert) || bHeard.n.Load() != 1 {
		t.Error("the second replica serves another certificate")
	}
	if err := a.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, m := updates(client, "secrets"), updates(client, "validatingwebhookconfigurations"); n != 1 || m != 1 || aHeard.n.Load() != 1 {
		t.Errorf("%d Secret and %d configuration updates, %d reloads; want 1, 1, 1", n, m, aHeard.n.Load())
	}
}

// TestSyncRenews: the serving certificate is renewed after 60 of its 90
// days under the same CA; the CA after two thirds of a year, with the old
// CA kept in the bundle while a replica may still serve a certificate it
// signed, and dropped once it expired.
func TestSyncRenews(t *testing.T) {
	client, clock := cluster(), fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	a, heard := replica(t, client, clock)
	sync := func() {
		t.Helper()
		if err := a.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	first := secret(t, client)

	clock.Advance(59 * 24 * time.Hour)
	sync()
	if string(secret(t, client)[KeyCert]) != string(first[KeyCert]) {
		t.Fatal("renewed after 59 days")
	}
	clock.Advance(2 * 24 * time.Hour)
	sync()
	second := secret(t, client)
	if string(second[KeyCert]) == string(first[KeyCert]) || string(second[KeyCABundle]) != string(first[KeyCABundle]) {
		t.Fatal("after 61 days: want a new serving certificate under the same CA")
	}
	if cert, _ := a.CurrentCertKeyContent(); string(cert) != string(second[KeyCert]) || heard.n.Load() != 2 {
		t.Errorf("the renewed certificate is not served (%d reloads)", heard.n.Load())
	}
	if n := updates(client, "validatingwebhookconfigurations"); n != 1 {
		t.Errorf("%d configuration updates for a new serving certificate, want 1 (the first)", n)
	}

	// Day by day until the CA is renewed (day 61 + 183 = 244 of its 365).
	day := 61
	var before, after map[string][]byte
	for ; day < 400; day++ {
		before = secret(t, client)
		clock.Advance(24 * time.Hour)
		sync()
		if after = secret(t, client); string(after[KeyCABundle]) != string(before[KeyCABundle]) {
			break
		}
	}
	if day != 243 {
		t.Errorf("CA renewed on day %d, want 244", day+1)
	}
	bundle := caBundle(t, client)
	cas, _ := parseCerts(after[KeyCABundle])
	if len(cas) != 2 || string(bundle) != string(after[KeyCABundle]) {
		t.Fatalf("%d CAs in the bundle (want the new and the old), caBundle written %v", len(cas), string(bundle) == string(after[KeyCABundle]))
	}
	for name, cert := range map[string][]byte{"new": after[KeyCert], "old (another replica's)": before[KeyCert]} {
		if err := verify(t, cert, bundle, clock.Now()); err != nil {
			t.Errorf("the %s certificate is not trusted: %v", name, err)
		}
	}

	clock.Advance(130 * 24 * time.Hour) // the old CA expired; the serving certificate is due
	sync()
	if cas, _ := parseCerts(secret(t, client)[KeyCABundle]); len(cas) != 1 {
		t.Errorf("%d CAs in the bundle after the old one expired, want 1", len(cas))
	}
}

// TestSyncCreatesSecret: without the Secret (a cluster where the operator
// granted create), the first Sync makes it.
func TestSyncCreatesSecret(t *testing.T) {
	client := cluster(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: vwcName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "a"}, {Name: "b"}}})
	a, _ := replica(t, client, fakecloudtest.NewClock(time.Now()))
	if err := a.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(secret(t, client)[KeyCert]) == 0 {
		t.Error("no certificate in the created Secret")
	}
	v, _ := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(t.Context(), vwcName, metav1.GetOptions{})
	for _, w := range v.Webhooks {
		if len(w.ClientConfig.CABundle) == 0 {
			t.Errorf("webhook %s without caBundle", w.Name)
		}
	}
}

// TestSyncLosesRace: when another replica writes the Secret first, the
// update fails with a conflict and this one serves the winner's.
func TestSyncLosesRace(t *testing.T) {
	client, clock := cluster(), fakecloudtest.NewClock(time.Now())
	winner, _ := replica(t, cluster(), clock)
	won, _, err := winner.renew(nil)
	if err != nil {
		t.Fatal(err)
	}
	raced := false
	client.PrependReactor("update", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if raced {
			return false, nil, nil
		}
		raced = true
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secretName}, Data: won}
		if err := client.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, s, ns); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "secrets"}, secretName, nil)
	})
	a, _ := replica(t, client, clock)
	if err := a.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if cert, _ := a.CurrentCertKeyContent(); string(cert) != string(won[KeyCert]) {
		t.Error("the loser serves its own certificate")
	}
	if err := verify(t, won[KeyCert], caBundle(t, client), clock.Now()); err != nil {
		t.Errorf("caBundle does not trust the winner's certificate: %v", err)
	}
}

// TestSyncWithoutConfiguration: a missing configuration is an error, and
// the shared certificate is served all the same.
func TestSyncWithoutConfiguration(t *testing.T) {
	client := cluster(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secretName}})
	a, heard := replica(t, client, fakecloudtest.NewClock(time.Now()))
	if err := a.Sync(t.Context()); err == nil || !apierrors.IsNotFound(err) {
		t.Errorf("err %v, want the configuration not found", err)
	}
	if cert, _ := a.CurrentCertKeyContent(); string(cert) != string(secret(t, client)[KeyCert]) || heard.n.Load() != 1 {
		t.Error("the Secret's certificate is not served")
	}
}

// TestBundleBeforeCertificate: a new certificate is served only once its
// CA is in the configuration's bundle, so the apiserver never meets a
// certificate it cannot trust yet.
func TestBundleBeforeCertificate(t *testing.T) {
	client, clock := cluster(), fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	var r *Rotator
	var servedAtUpdate []byte
	client.PrependReactor("update", "validatingwebhookconfigurations", func(k8stesting.Action) (bool, runtime.Object, error) {
		servedAtUpdate, _ = r.CurrentCertKeyContent()
		return false, nil, nil
	})
	r, _ = replica(t, client, clock)
	ephemeral, _ := r.CurrentCertKeyContent()
	if err := r.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if string(servedAtUpdate) != string(ephemeral) {
		t.Error("the new certificate was served before its CA was in the bundle")
	}
	if cert, _ := r.CurrentCertKeyContent(); string(cert) != string(secret(t, client)[KeyCert]) {
		t.Error("the new certificate is not served after the sync")
	}
}
