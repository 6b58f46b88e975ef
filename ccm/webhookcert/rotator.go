package webhookcert

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// The keys of the Secret.
const (
	KeyCABundle = "ca.crt"  // the current CA, then earlier ones not yet expired
	KeyCAKey    = "ca.key"  // the current CA's key
	KeyCert     = "tls.crt" // the serving certificate
	KeyKey      = "tls.key" // its key
)

// Options say where the certificate is kept and what it is for.
type Options struct {
	Client                      kubernetes.Interface
	SecretNamespace, SecretName string
	// Configuration is the ValidatingWebhookConfiguration whose webhooks
	// get the CA bundle; empty: none is written.
	Configuration string
	// DNSNames are the names the API server calls the webhook by
	// (<service>.<namespace>.svc first).
	DNSNames []string
	// CAValidity and Validity are the lifetimes of the CA (one year) and
	// of the serving certificate (90 days); each is renewed once two
	// thirds of it have passed.
	CAValidity, Validity time.Duration
	Now                  func() time.Time
}

// Rotator keeps the certificate and serves it to the webhook server.
type Rotator struct {
	o Options

	mu        sync.Mutex
	cert, key []byte
	listeners []dynamiccertificates.Listener
}

var _ dynamiccertificates.CertKeyContentProvider = (*Rotator)(nil)

// New is a Rotator serving a certificate of its own until the first Sync
// reads the shared one: the webhook answers from the start, and the API
// server, which does not trust that one, fails open.
func New(o Options) (*Rotator, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CAValidity == 0 {
		o.CAValidity = 365 * 24 * time.Hour
	}
	if o.Validity == 0 {
		o.Validity = 90 * 24 * time.Hour
	}
	if len(o.DNSNames) == 0 || o.SecretName == "" || o.SecretNamespace == "" {
		return nil, errors.New("webhook certificate: the Secret and the DNS names are required")
	}
	ca, err := newCA(o.Now(), o.Validity)
	if err != nil {
		return nil, err
	}
	leaf, err := newServing(ca, o.DNSNames, o.Now(), o.Validity)
	if err != nil {
		return nil, err
	}
	return &Rotator{o: o, cert: leaf.certPEM, key: leaf.keyPEM}, nil
}

// Name names the provider in the server's logs.
func (r *Rotator) Name() string { return "webhook-serving-cert" }

// CurrentCertKeyContent is the certificate served now.
func (r *Rotator) CurrentCertKeyContent() ([]byte, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cert, r.key
}

// AddListener is called by the server, which reloads on each change.
func (r *Rotator) AddListener(l dynamiccertificates.Listener) {
	r.mu.Lock()
	r.listeners = append(r.listeners, l)
	r.mu.Unlock()
}

// Run syncs every interval until ctx ends, and logs what fails.
func (r *Rotator) Run(ctx context.Context, interval time.Duration) {
	for {
		if err := r.Sync(ctx); err != nil && ctx.Err() == nil {
			klog.ErrorS(err, "Webhook certificate not synced; retrying", "secret", klog.KRef(r.o.SecretNamespace, r.o.SecretName),
				"validatingWebhookConfiguration", r.o.Configuration, "in", interval)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// Sync reads the Secret, renews what is due (or missing, or for other
// names) and writes it back, serves its certificate, and writes its CA
// bundle into the ValidatingWebhookConfiguration. Replicas that renew at
// once are told apart by the Secret's resourceVersion: the loser reads
// the winner's certificate.
func (r *Rotator) Sync(ctx context.Context) error {
	var data map[string][]byte
	var err error
	for range 3 {
		if data, err = r.syncSecret(ctx); !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) {
			break
		}
	}
	if err != nil {
		return err
	}
	// The bundle first: a renewed CA is trusted before its certificate is
	// served. A bundle that cannot be written is an error, but the
	// certificate is served all the same: the old one may be expiring.
	err = r.syncBundle(ctx, data[KeyCABundle])
	r.serve(data[KeyCert], data[KeyKey])
	return err
}

// syncSecret is the Secret's data, renewed and written back when due.
func (r *Rotator) syncSecret(ctx context.Context) (map[string][]byte, error) {
	secrets := r.o.Client.CoreV1().Secrets(r.o.SecretNamespace)
	sec, err := secrets.Get(ctx, r.o.SecretName, metav1.GetOptions{})
	missing := apierrors.IsNotFound(err)
	if err != nil && !missing {
		return nil, fmt.Errorf("get Secret %s/%s: %w", r.o.SecretNamespace, r.o.SecretName, err)
	}
	if missing {
		sec = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.o.SecretNamespace, Name: r.o.SecretName}}
	}
	data, changed, err := r.renew(sec.Data)
	if err != nil {
		return nil, err
	}
	if changed {
		sec.Data = data
		if missing {
			_, err = secrets.Create(ctx, sec, metav1.CreateOptions{})
		} else {
			_, err = secrets.Update(ctx, sec, metav1.UpdateOptions{})
		}
		if err != nil {
			return nil, fmt.Errorf("write Secret %s/%s: %w", r.o.SecretNamespace, r.o.SecretName, err)
		}
		klog.InfoS("Webhook certificate renewed", "secret", klog.KObj(sec), "dnsNames", r.o.DNSNames)
	}
	return data, nil
}

// renew is data with a CA and a serving certificate that are valid and
// not due; changed when it had to make either.
func (r *Rotator) renew(data map[string][]byte) (map[string][]byte, bool, error) {
	now := r.o.Now()
	var older []*x509.Certificate // CAs still in the bundle
	ca, err := parsePair(data[KeyCABundle], data[KeyCAKey])
	if err == nil {
		all, _ := parseCerts(data[KeyCABundle])
		older = all[1:]
	}
	renewCA := err != nil || due(ca.cert, now)
	if renewCA {
		if err == nil {
			older = append([]*x509.Certificate{ca.cert}, older...)
		}
		if ca, err = newCA(now, r.o.CAValidity); err != nil {
			return nil, false, err
		}
	}
	leaf, err := parsePair(data[KeyCert], data[KeyKey])
	if !renewCA && err == nil && !due(leaf.cert, now) && serves(leaf.cert, ca.cert, r.o.DNSNames, now) {
		return data, false, nil
	}
	if leaf, err = newServing(ca, r.o.DNSNames, now, r.o.Validity); err != nil {
		return nil, false, err
	}
	// The bundle keeps earlier CAs until they expire: a replica that has
	// not yet read the new certificate serves one signed by them.
	bundle := []*x509.Certificate{ca.cert}
	for _, c := range older {
		if now.Before(c.NotAfter) {
			bundle = append(bundle, c)
		}
	}
	return map[string][]byte{KeyCABundle: encodeCerts(bundle), KeyCAKey: ca.keyPEM, KeyCert: leaf.certPEM, KeyKey: leaf.keyPEM}, true, nil
}

// serve makes cert the one served, and tells the server when it changed.
func (r *Rotator) serve(cert, key []byte) {
	r.mu.Lock()
	if bytes.Equal(cert, r.cert) && bytes.Equal(key, r.key) {
		r.mu.Unlock()
		return
	}
	r.cert, r.key = cert, key
	listeners := append([]dynamiccertificates.Listener(nil), r.listeners...)
	r.mu.Unlock()
	for _, l := range listeners {
		l.Enqueue()
	}
}

// syncBundle writes bundle into every webhook of the configuration.
func (r *Rotator) syncBundle(ctx context.Context, bundle []byte) error {
	if r.o.Configuration == "" {
		return nil
	}
	configs := r.o.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	for range 3 {
		vwc, err := configs.Get(ctx, r.o.Configuration, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get ValidatingWebhookConfiguration %s: %w", r.o.Configuration, err)
		}
		changed := false
		for i := range vwc.Webhooks {
			if cc := &vwc.Webhooks[i].ClientConfig; !bytes.Equal(cc.CABundle, bundle) {
				cc.CABundle, changed = bundle, true
			}
		}
		if !changed {
			return nil
		}
		if _, err = configs.Update(ctx, vwc, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			if err != nil {
				return fmt.Errorf("update ValidatingWebhookConfiguration %s: %w", r.o.Configuration, err)
			}
			klog.InfoS("Webhook CA bundle written", "validatingWebhookConfiguration", r.o.Configuration)
			return nil
		}
	}
	return fmt.Errorf("update ValidatingWebhookConfiguration %s: conflicts", r.o.Configuration)
}
