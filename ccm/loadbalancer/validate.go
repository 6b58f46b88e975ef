package loadbalancer

import (
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
	Protocol              string   // tcp, http or https
	Certificates          []string // uploaded certificates by ID or name (https)
	ManagedCertificate    bool     // https with a certificate the CCM requests
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
	c := ServiceConfig{Type: o.Type, Location: want.Location, NetworkZone: want.NetworkZone, Protocol: o.Protocol}
	if o.Protocol == "https" {
		c.ManagedCertificate = o.HTTP.CertificateType == "managed"
		if !c.ManagedCertificate {
			c.Certificates = o.HTTP.Certificates
		}
	}
	return c, err
}
