package loadbalancer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// Validate reads svc's annotations with the Manager's defaults and
// HCLOUD_NETWORK, as a sync does (ValidateService), for an admission
// webhook.
func (l *Manager) Validate(svc *corev1.Service) (ServiceConfig, error) {
	return ValidateService(svc, l.defaults, l.networkID, l.networkZone)
}

// CheckCached checks the type and location that svc's annotations name
// (c is Validate's answer) against what the Manager already holds: the
// load balancer types and the locations they are priced in, once listed
// (LoadTypes, or a sync). It never sends a request; what it does not
// know passes. Values from HCLOUD_LOAD_BALANCERS_* are
// the operator's, not the Service's, and are not checked.
func (l *Manager) CheckCached(svc *corev1.Service, c ServiceConfig) error {
	var errs []error
	l.store.mu.Lock()
	types := l.store.types
	l.store.mu.Unlock()
	if types != nil {
		_, named := svc.Annotations[string(annotation.Type)]
		switch {
		case named && types[c.Type] == nil:
			errs = append(errs, &annotation.Error{Key: annotation.Type.Short(), Value: c.Type, Accepted: "one of " + strings.Join(slices.Sorted(maps.Keys(types)), ", ")})
		case named && unavailable(types[c.Type], l.now()) && l.store.known(string(svc.UID)) == nil:
			// A new load balancer would be of it: the sync refuses to
			// order it (typeNotices).
			errs = append(errs, &annotation.Error{Key: annotation.Type.Short(), Value: c.Type,
				Accepted: "a type that can still be ordered: one of " + strings.Join(types.orderable(l.now()), ", ")})
		}
		typ := c.Type
		if lb := l.store.known(string(svc.UID)); lb != nil && lb.LoadBalancerType != nil && types[typ] != nil &&
			lb.LoadBalancerType.MaxServices > types[typ].MaxServices {
			typ = lb.LoadBalancerType.Name // types only grow: the bigger one is kept
		}
		if err := PortsOverLimit(TCPPorts(svc), typ, types.list()); err != nil {
			errs = append(errs, err)
		}
		if _, ok := svc.Annotations[string(annotation.Location)]; ok && c.Location != "" {
			locations := types.locations()
			if !slices.Contains(locations, c.Location) {
				errs = append(errs, &annotation.Error{Key: annotation.Location.Short(), Value: c.Location, Accepted: "one of " + strings.Join(locations, ", ")})
			}
		}
	}
	return errors.Join(errs...)
}

// CertificatesMissing are warnings for the uploaded certificate names in
// c (Validate's answer) that a sync found no certificate by within
// MaxAge, and none since. Not a refusal: the certificate may have been
// uploaded since, which only the next sync sees. Never a request.
func (l *Manager) CertificatesMissing(c ServiceConfig) []string {
	var out []string
	for _, c := range c.Certificates {
		if _, err := strconv.ParseInt(c.Ref, 10, 64); err != nil && l.certs.missingNow(c.Ref) {
			out = append(out, fmt.Sprintf("%s: no certificate %q was found when the CCM last looked; upload it, or the load balancer gets no HTTPS", c.Annotation, c.Ref))
		}
	}
	return out
}

// TypeDeprecated is the warning the sync gives for a deprecated type the
// Service names (LoadBalancerTypeDeprecated), from the types the Manager
// holds; "" when it is not deprecated or not known. Never a request.
func (l *Manager) TypeDeprecated(c ServiceConfig) string {
	l.store.mu.Lock()
	types := l.store.types
	l.store.mu.Unlock()
	lt := types[c.Type]
	if lt == nil || !lt.IsDeprecated() || unavailable(lt, l.now()) {
		return ""
	}
	return deprecationNotice(lt, l.now(), "")[0].Message
}

// SecretsRefused are warnings for the TLS Secrets in c (Validate's
// answer) that the API would not take (CheckTLSSecret), read as a sync
// reads them: from the CCM's watch, else the Kubernetes API. Not a
// refusal: the fix is to the Secret, which may change at any time. A
// Secret that cannot be read, or is not there yet, passes.
func (l *Manager) SecretsRefused(ctx context.Context, c ServiceConfig) []string {
	l.mu.Lock()
	src := l.secrets
	l.mu.Unlock()
	if src == nil {
		return nil
	}
	var out []string
	for _, key := range c.CertificateSecrets {
		sec, err := src.Get(ctx, key)
		if err != nil || sec == nil {
			continue
		}
		if err := CheckTLSSecret(sec); err != nil {
			out = append(out, err.Error()+": the CCM uploads nothing from it and changes nothing of the load balancer until it is fixed")
		}
	}
	return out
}

// locations are where the types are offered (priced), sorted.
func (t lbTypes) locations() []string {
	seen := map[string]bool{}
	for _, lt := range t {
		for _, p := range lt.Pricings {
			if p.Location != nil {
				seen[p.Location.Name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// markMissing records that no certificate is named name, for CheckCached.
func (c *certs) markMissing(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.missing == nil {
		c.missing = map[string]certEntry{}
	}
	c.missing[name] = certEntry{at: c.now()}
}

// missingNow reports whether a sync found no certificate named name
// within maxAge, and none since.
func (c *certs) missingNow(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.missing[name]
	if !ok || c.now().Sub(m.at) >= c.maxAge {
		return false
	}
	found, ok := c.known[name]
	return !ok || found.at.Before(m.at)
}

// LoadTypes lists the load balancer types unless a sync did within the
// last hour, so that every replica serving the webhook, leader or not,
// can check the type and location a Service names.
func (l *Manager) LoadTypes(ctx context.Context) error {
	_, err := l.store.loadTypes(ctx)
	return err
}
