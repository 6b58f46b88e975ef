package loadbalancer

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
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
	// ExternallyManaged: the load balancer named Name is only read.
	ExternallyManaged bool
	Name              string
	// CertificateSecrets are the TLS Secrets its https ports name, as
	// namespace/name.
	CertificateSecrets []string
	// PublicNet are the IDs of the Primary IPs a new load balancer takes:
	// IPv4, IPv6; 0 for none.
	PublicNet [2]int64
}

// CertificateRef is an uploaded certificate a Service names.
type CertificateRef struct {
	Ref        string         // ID or name
	Annotation annotation.Key // the annotation that names it, such as load-balancer.hetzner.cloud/port-443.http-certificates
}

// ValidateService reads svc's annotations over d with the code a sync
// uses and returns every configuration error a sync would report before
// it calls the API. networkID and networkZone are HCLOUD_NETWORK's (0 and
// "" for none). The type and certificates are not looked up.
func ValidateService(svc *corev1.Service, d annotation.Defaults, networkID int64, networkZone string) (ServiceConfig, error) {
	o, err := annotation.Parse(svc, d)
	if err != nil {
		return ServiceConfig{}, err
	}
	want, _, err := desiredLB(svc, o, nil, lbEnv{NetworkID: networkID, NetworkZone: networkZone})
	c := ServiceConfig{Type: o.Type, Location: want.Location, NetworkZone: want.NetworkZone, ExternallyManaged: o.ExternallyManaged, Name: o.Name,
		CertificateSecrets: secretKeys(svc, o), PublicNet: want.PublicNet}
	for _, n := range slices.Sorted(maps.Keys(o.Ports)) {
		p := o.Ports[n]
		switch {
		case p.Protocol != "https":
		case p.HTTP.CertificateType == "managed":
			c.ManagedCertificate = true
		default:
			for _, ref := range p.HTTP.Certificates {
				if !slices.ContainsFunc(c.Certificates, func(r CertificateRef) bool { return r.Ref == ref }) {
					c.Certificates = append(c.Certificates, CertificateRef{Ref: ref, Annotation: annotation.Key(annotation.Prefix + p.HTTP.CertificatesFrom)})
				}
			}
		}
	}
	return c, err
}
