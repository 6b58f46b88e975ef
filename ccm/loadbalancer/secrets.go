package loadbalancer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// Secrets reads the TLS Secrets Services name (http-certificate-secrets).
// The CCM gives the Manager one that watches only the Secrets named, in
// their Services' namespaces, and calls SecretChanged when one changes.
type Secrets interface {
	// Use says which Secrets, as namespace/name, the Service uid names
	// now; none: it names none any more.
	Use(uid string, keys []string)
	// Get is the Secret namespace/name, or nil when there is none.
	Get(ctx context.Context, key string) (*corev1.Secret, error)
}

// Labels of a certificate uploaded from a Secret: which Secret (a hash of
// namespace/name, which may be longer than a label value) and which
// certificate (its fingerprint).
const (
	secretLabel      = "hcloud-ccm/secret"
	fingerprintLabel = "hcloud-ccm/fingerprint"
)

// SetSecrets gives the Manager what reads Secrets; without, a Service
// naming one gets a Warning event.
func (l *Manager) SetSecrets(s Secrets) {
	l.mu.Lock()
	l.secrets = s
	l.mu.Unlock()
}

// secretKeys are the Secrets svc's https ports name, as namespace/name.
func secretKeys(svc *corev1.Service, o annotation.Options) []string {
	var keys []string
	for _, p := range o.Ports {
		if p.Protocol != "https" || p.HTTP.CertificateType == "managed" {
			continue
		}
		for _, name := range p.HTTP.CertificateSecrets {
			if k := svc.Namespace + "/" + name; !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// useSecrets tells the Secrets source, and SecretChanged, which Secrets
// the Service names now. dropped are those it named before that no
// Service names any more.
func (l *Manager) useSecrets(uid string, keys []string) (src Secrets, dropped []string) {
	return l.moveSecrets(uid, nil, keys)
}

// moveSecrets is useSecrets for a Service that named the Secrets it was
// last seen with and had, besides, before (a Service deleted before this
// process synced it).
func (l *Manager) moveSecrets(uid string, had, keys []string) (src Secrets, dropped []string) {
	l.mu.Lock()
	src = l.secrets
	before := slices.Concat(l.secretUsers[uid], had)
	if len(keys) == 0 {
		delete(l.secretUsers, uid)
	} else {
		l.secretUsers[uid] = keys
	}
	named := map[string]bool{}
	for _, ks := range l.secretUsers {
		for _, k := range ks {
			named[k] = true
		}
	}
	for _, k := range before {
		if !named[k] && !slices.Contains(dropped, k) {
			dropped = append(dropped, k)
		}
	}
	l.mu.Unlock()
	if src != nil && (len(keys) > 0 || len(before) > 0) {
		src.Use(uid, keys)
	}
	return src, dropped
}

// SecretChanged syncs again, with the node set of its last sync, every
// Service that names the Secret namespace/name: a renewed certificate is
// uploaded and replaces the old one at once.
func (l *Manager) SecretChanged(key string) {
	var syncs []due
	l.mu.Lock()
	for uid, keys := range l.secretUsers {
		if last, ok := l.last[uid]; ok && slices.Contains(keys, key) {
			syncs = append(syncs, due{uid, last.gen})
		}
	}
	l.mu.Unlock()
	l.resumeAll(syncs)
}

// tlsPair is a Secret's certificate chain and key, checked.
type tlsPair struct {
	chain, key  string
	fingerprint string // of the leaf certificate, sha256, hex
}

// secretHash is the label value naming the Secret key.
func secretHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16])
}

// secretCerts resolves the Secrets of one https port to the IDs of the
// certificates uploaded from them, uploading a Secret's certificate the
// first time it is seen. A Secret that is missing or holds no TLS pair is
// an annotation error naming the key it came from.
func (c *certs) secretCerts(ctx context.Context, src Secrets, svc *corev1.Service, p annotation.PortOptions) ([]int64, error) {
	var ids []int64
	for _, name := range p.HTTP.CertificateSecrets {
		key := svc.Namespace + "/" + name
		bad := func(why string) error {
			return &annotation.Error{Key: p.HTTP.SecretsFrom, Value: name, Accepted: "a kubernetes.io/tls Secret in namespace " + svc.Namespace + ": " + why}
		}
		if src == nil {
			return nil, bad("this CCM reads no Secrets")
		}
		sec, err := src.Get(ctx, key)
		if err != nil {
			return nil, err
		}
		if sec == nil {
			return nil, bad("there is none (yet)")
		}
		pair, err := readTLS(sec)
		if err != nil {
			return nil, err
		}
		id, err := c.uploaded(ctx, key, pair)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.current[key] = pair.fingerprint[:32]
		c.mu.Unlock()
		ids = append(ids, id)
	}
	return ids, nil
}

// uploaded is the ID of the certificate uploaded from the Secret key with
// pair's certificate: remembered, found by its labels, or uploaded now.
// Older uploads of the Secret are marked for cleanOldSecretCerts.
func (c *certs) uploaded(ctx context.Context, key string, pair tlsPair) (int64, error) {
	cacheKey := "secret:" + key + ":" + pair.fingerprint
	if id, ok := c.cached(cacheKey); ok {
		return id, nil
	}
	h, fp := secretHash(key), pair.fingerprint[:32]
	found, err := c.client.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{ListOpts: hcloud.ListOpts{LabelSelector: secretLabel + "=" + h}})
	if err != nil {
		return 0, err
	}
	var id int64
	for _, cert := range found {
		if cert.Labels[fingerprintLabel] == fp {
			id = cert.ID
		} else {
			c.markOld(key)
		}
	}
	if id == 0 {
		name := certName(key, fp)
		cert, _, err := c.client.Certificate.Create(ctx, hcloud.CertificateCreateOpts{Name: name, Type: hcloud.CertificateTypeUploaded,
			Certificate: pair.chain, PrivateKey: pair.key, Labels: map[string]string{secretLabel: h, fingerprintLabel: fp}})
		if err != nil {
			return 0, fmt.Errorf("uploading the certificate of Secret %s as %s: %w", key, name, err)
		}
		id = cert.ID
	}
	c.remember(cacheKey, id)
	return id, nil
}

// certName is the name of the certificate uploaded from the Secret key:
// its namespace and name, cut to fit, and the fingerprint's start.
func certName(key, fp string) string {
	base := "k8s-" + strings.ReplaceAll(key, "/", "-")
	if len(base) > 54 {
		base = base[:54]
	}
	return base + "-" + fp[:8]
}

// markOld records that the Secret key has uploads of older certificates.
func (c *certs) markOld(key string) {
	c.mu.Lock()
	c.old[key] = true
	c.mu.Unlock()
}

// cleanOldSecretCerts deletes the certificates uploaded from the Secrets
// keys that hold not the Secret's current certificate and that no load
// balancer uses any more, once a sync moved its services to the current
// one. One still in use (another Service's load balancer not yet moved)
// stays for a later sync. With all, every upload of the Secret goes once
// unused: no Service names it any more.
func (c *certs) cleanOldSecretCerts(ctx context.Context, keys []string, all bool) error {
	for _, key := range keys {
		c.mu.Lock()
		old, current := c.old[key], c.current[key]
		if all {
			delete(c.current, key)
		}
		c.mu.Unlock()
		if !old && !all {
			continue
		}
		found, err := c.client.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{ListOpts: hcloud.ListOpts{LabelSelector: secretLabel + "=" + secretHash(key)}})
		if err != nil {
			return err
		}
		left := false
		for _, cert := range found {
			if !all && cert.Labels[fingerprintLabel] == current {
				continue
			}
			if len(cert.UsedBy) > 0 {
				left = true
				continue
			}
			_, err := c.client.Certificate.Delete(ctx, cert)
			switch {
			case hcloud.IsError(err, "resource_in_use"): // a running action still holds it
				left = true
				continue
			case err != nil && !hcloud.IsError(err, hcloud.ErrorCodeNotFound):
				return fmt.Errorf("deleting certificate %s, an older one of Secret %s: %w", cert.Name, key, err)
			}
			c.forgetID(cert.ID)
		}
		c.mu.Lock()
		switch {
		case left && all: // the Service that dropped it tries again at its next sync
		case left:
			c.old[key] = true
		case all:
			delete(c.gone, key)
		default:
			delete(c.old, key)
		}
		c.mu.Unlock()
	}
	return nil
}

// forgetID drops every remembered name that resolves to id.
func (c *certs) forgetID(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	maps.DeleteFunc(c.known, func(_ string, e certEntry) bool { return e.id == id })
}

// cleanSecretCerts deletes, once unused, the older uploads of the Secrets
// keys and every upload of the Secrets no Service names any more
// (dropped now, or before and not yet cleaned). It waits, a bounded time,
// for lb's running action, which holds what the sync replaced; still
// running, it tries again at a resume.
func (l *Manager) cleanSecretCerts(ctx context.Context, uid string, lb *hcloud.LoadBalancer, keys, dropped []string) error {
	old, gone := l.certs.toClean(uid, keys, dropped)
	if len(old) == 0 && len(gone) == 0 {
		return nil
	}
	if err := l.actions.Settle(ctx, lb.ID, l.actionWait); err != nil {
		l.mu.Lock()
		gen := l.last[uid].gen
		l.mu.Unlock()
		l.resume(uid, l.retryUnit, gen)
		return nil
	}
	if err := l.certs.cleanOldSecretCerts(ctx, old, false); err != nil {
		return err
	}
	return l.certs.cleanOldSecretCerts(ctx, gone, true)
}

// toClean records dropped as Secrets whose uploads the Service uid is to
// delete, forgets that of keys (named again), and returns the keys with
// older uploads and the Secrets whose uploads uid is to delete.
func (c *certs) toClean(uid string, keys, dropped []string) (old, gone []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range dropped {
		c.gone[k] = uid
	}
	for _, k := range keys {
		delete(c.gone, k)
		if c.old[k] {
			old = append(old, k)
		}
	}
	for k, by := range c.gone {
		if by == uid {
			gone = append(gone, k)
		}
	}
	slices.Sort(gone)
	return old, gone
}

// forgetGone drops the Secrets whose uploads the Service uid was to
// delete: it is gone, and its load balancer with it or kept.
func (c *certs) forgetGone(uid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	maps.DeleteFunc(c.gone, func(_, by string) bool { return by == uid })
}
