package loadbalancer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// certs resolves the certificates of https services: uploaded ones by ID
// or name, and the managed one the CCM creates for a Service. Answers are
// kept for maxAge.
type certs struct {
	client *hcloud.Client
	now    func() time.Time
	maxAge time.Duration

	mu      sync.Mutex
	known   map[string]certEntry // by name, "uid:<UID>" for managed ones, "secret:<namespace/name>:<fingerprint>" for a Secret's
	missing map[string]certEntry // names found to name no certificate (admission.go)
	current map[string]string    // by Secret namespace/name: the fingerprint label of its certificate now
	old     map[string]bool      // by Secret namespace/name: older uploads may be left to delete
	gone    map[string]string    // by Secret namespace/name that no Service names: the UID of the one that dropped it, to delete its uploads
}

type certEntry struct {
	id int64
	at time.Time
}

func newCerts(client *hcloud.Client, now func() time.Time, maxAge time.Duration) *certs {
	return &certs{client: client, now: now, maxAge: maxAge, known: map[string]certEntry{}, current: map[string]string{}, old: map[string]bool{}, gone: map[string]string{}}
}

func (c *certs) cached(key string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.known[key]
	if !ok || c.now().Sub(e.at) >= c.maxAge {
		return 0, false
	}
	return e.id, true
}

func (c *certs) remember(key string, id int64) {
	c.mu.Lock()
	c.known[key] = certEntry{id: id, at: c.now()}
	c.mu.Unlock()
}

// resolve returns the certificate IDs of each https port of svc; src
// reads the Secrets they name.
func (c *certs) resolve(ctx context.Context, svc *corev1.Service, o annotation.Options, src Secrets) (map[int32][]int64, error) {
	out := map[int32][]int64{}
	for _, n := range slices.Sorted(maps.Keys(o.Ports)) {
		p := o.Ports[n]
		if p.Protocol != "https" {
			continue
		}
		ids, err := c.resolvePort(ctx, svc, o, p, src)
		if err != nil {
			return nil, err
		}
		out[n] = ids
	}
	return out, nil
}

// resolvePort returns the certificate IDs of the https port p: the
// managed one, or those named and those uploaded from its Secrets.
func (c *certs) resolvePort(ctx context.Context, svc *corev1.Service, o annotation.Options, p annotation.PortOptions, src Secrets) ([]int64, error) {
	if p.HTTP.CertificateType == "managed" {
		id, err := c.managed(ctx, svc, o)
		if err != nil {
			return nil, err
		}
		return []int64{id}, nil
	}
	var ids []int64
	for _, ref := range p.HTTP.Certificates {
		if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
			ids = append(ids, id)
			continue
		}
		id, ok := c.cached(ref)
		if !ok {
			cert, _, err := c.client.Certificate.GetByName(ctx, ref)
			if err != nil {
				return nil, err
			}
			if cert == nil {
				c.markMissing(ref)
				return nil, &annotation.Error{Key: p.HTTP.CertificatesFrom, Value: ref, Accepted: "the IDs or names of existing certificates"}
			}
			id = cert.ID
			c.remember(ref, id)
		}
		ids = append(ids, id)
	}
	fromSecrets, err := c.secretCerts(ctx, src, svc, p)
	if err != nil {
		return nil, err
	}
	return append(ids, fromSecrets...), nil
}

// managed finds the Service's managed certificate by its label, or
// creates it, as the official CCM does. An unlabelled managed certificate
// with its name (one a retained load balancer kept) is adopted.
func (c *certs) managed(ctx context.Context, svc *corev1.Service, o annotation.Options) (int64, error) {
	key := "uid:" + string(svc.UID)
	if id, ok := c.cached(key); ok {
		return id, nil
	}
	found, err := c.client.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{
		ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + string(svc.UID)}})
	if err != nil {
		return 0, err
	}
	if len(found) > 0 {
		c.remember(key, found[0].ID)
		return found[0].ID, nil
	}
	labels := map[string]string{uidLabel: string(svc.UID)}
	res, _, err := c.client.Certificate.CreateCertificate(ctx, hcloud.CertificateCreateOpts{
		Name: o.HTTP.ManagedCertName, Type: hcloud.CertificateTypeManaged, DomainNames: o.HTTP.ManagedCertDomains, Labels: labels})
	if hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		return c.adoptManaged(ctx, key, o, labels)
	}
	if err != nil {
		return 0, fmt.Errorf("creating managed certificate %q: %w", o.HTTP.ManagedCertName, err)
	}
	c.remember(key, res.Certificate.ID)
	return res.Certificate.ID, nil
}

// adoptManaged labels the managed certificate named as the Service's
// when no Service owns it.
func (c *certs) adoptManaged(ctx context.Context, key string, o annotation.Options, labels map[string]string) (int64, error) {
	name := o.HTTP.ManagedCertName
	cert, _, err := c.client.Certificate.GetByName(ctx, name)
	switch {
	case err != nil:
		return 0, err
	case cert == nil:
		return 0, fmt.Errorf("creating managed certificate %q: the name is taken, yet no certificate has it", name)
	case cert.Type != hcloud.CertificateTypeManaged || cert.Labels[uidLabel] != "":
		return 0, &annotation.Error{Key: annotation.HTTPManagedCertificateName.Short(), Value: name,
			Accepted: "the name of no other certificate: " + name + " is an uploaded certificate, or another Service's"}
	}
	all := maps.Clone(cert.Labels)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, labels)
	if _, _, err := c.client.Certificate.Update(ctx, cert, hcloud.CertificateUpdateOpts{Labels: all}); err != nil {
		return 0, fmt.Errorf("adopting managed certificate %q: %w", name, err)
	}
	c.remember(key, cert.ID)
	return cert.ID, nil
}

// forget drops what is known of svc's managed certificate.
func (c *certs) forget(uid string) {
	c.mu.Lock()
	delete(c.known, "uid:"+uid)
	c.mu.Unlock()
}
