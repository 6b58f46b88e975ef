package loadbalancer

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// ServiceUIDLabel is the label that ties a load balancer (and a managed
// certificate) to the UID of its Service.
const ServiceUIDLabel = uidLabel

// ServiceConfig is what a Service's annotations ask of the cloud, for
// checks outside a sync such as ccm doctor's.
type ServiceConfig struct {
	Type string // load balancer type, such as lb11
	// Location or NetworkZone after the defaults and HCLOUD_NETWORK's zone;
	// both empty: a new load balancer cannot be placed.
	Location, NetworkZone string
	Certificates          []CertificateRef // uploaded certificates of https ports, each once
	ManagedCertificate    bool             // an https port has the certificate the CCM requests
}

// CertificateRef is an uploaded certificate a Service names.
type CertificateRef struct {
	Ref        string     // ID or name
	Annotation Annotation // the annotation that names it, such as load-balancer.hetzner.cloud/port-443.http-certificates
}

// ValidateService reads svc's annotations over d with the code a sync
// uses and returns every configuration error a sync would report before
// it calls the API. networkID and networkZone are HCLOUD_NETWORK's (0 and
// "" for none). The type and certificates are not looked up.
func ValidateService(svc *corev1.Service, d Defaults, networkID int64, networkZone string) (ServiceConfig, error) {
	o, err := parseLBOptions(svc, d)
	if err != nil {
		return ServiceConfig{}, err
	}
	want, _, err := desiredLB(svc, o, nil, lbEnv{NetworkID: networkID, NetworkZone: networkZone})
	c := ServiceConfig{Type: o.Type, Location: want.Location, NetworkZone: want.NetworkZone}
	for _, n := range slices.Sorted(maps.Keys(o.Ports)) {
		p := o.Ports[n]
		switch {
		case p.Protocol != "https":
		case p.HTTP.CertificateType == "managed":
			c.ManagedCertificate = true
		default:
			for _, ref := range p.HTTP.Certificates {
				if !slices.ContainsFunc(c.Certificates, func(r CertificateRef) bool { return r.Ref == ref }) {
					c.Certificates = append(c.Certificates, CertificateRef{Ref: ref, Annotation: Annotation(annotationPrefix + p.HTTP.CertificatesFrom)})
				}
			}
		}
	}
	return c, err
}

// CheckDefaults refuses HCLOUD_LOAD_BALANCERS_* values that the
// annotations they stand for would refuse, naming the variable and what
// it accepts, so a bad default stops the CCM at start instead of failing
// every Service's sync.
func CheckDefaults(d Defaults) error {
	var errs []error
	bad := func(name Annotation, v any) {
		s := specs[name]
		errs = append(errs, fmt.Errorf("%s=%v: want %s, as annotation %s", s.env, v, s.accepted(), name))
	}
	for name, v := range map[Annotation]time.Duration{AnnotationHealthCheckInterval: d.HealthCheckInterval, AnnotationHealthCheckTimeout: d.HealthCheckTimeout} {
		if s := specs[name]; v != 0 && (v%time.Second != 0 || v < s.min || v > s.max) {
			bad(name, v)
		}
	}
	if s := specs[AnnotationHealthCheckRetries]; d.HealthCheckRetries != nil && (*d.HealthCheckRetries < s.lo || *d.HealthCheckRetries > s.hi) {
		bad(AnnotationHealthCheckRetries, *d.HealthCheckRetries)
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}
