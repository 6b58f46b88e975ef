package loadbalancer

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// release lets the Service's load balancer outlive it (retain-on-delete,
// or delete protection): its services, targets and addresses stay; the
// CCM's labels go, so no Service owns it until one adopts it by name.
// It is read first: labels set since the CCM last read it stay.
func (l *Manager) release(ctx context.Context, lb *hcloud.LoadBalancer) error {
	lb, _, err := l.client.LoadBalancer.GetByID(ctx, lb.ID)
	if err != nil {
		return fmt.Errorf("releasing load balancer: %w", err)
	}
	if lb == nil {
		return nil // gone: nothing to release
	}
	labels := maps.Clone(lb.Labels)
	delete(labels, uidLabel)
	delete(labels, portsLabel)
	if !maps.Equal(labels, lb.Labels) {
		if _, _, err := l.client.LoadBalancer.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Labels: labels}); err != nil && !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
			return fmt.Errorf("releasing load balancer %s: %w", lb.Name, err)
		}
	}
	return nil
}

// retained says that the Service's load balancer was released with its
// addresses, and which Service adopts it.
func (l *Manager) retained(svc *corev1.Service, lb *hcloud.LoadBalancer) {
	var ips []string
	for _, ip := range []string{lb.PublicNet.IPv4.IP.String(), lb.PublicNet.IPv6.IP.String()} {
		if ip != "" && ip != "<nil>" {
			ips = append(ips, ip)
		}
	}
	l.event(svc, corev1.EventTypeNormal, eventLBRetained, fmt.Sprintf(
		"Load balancer %s (ID %d) is kept with its addresses %s (annotation %s); a Service with the annotation %s: %s adopts it",
		lb.Name, lb.ID, strings.Join(ips, ", "), annotation.RetainOnDelete, annotation.Name, lb.Name))
}

// releaseManagedCert takes the Service's label off the managed
// certificate the CCM created for it, which a retained load balancer
// still serves; a Service naming it (http-managed-certificate-name)
// adopts it.
func (l *Manager) releaseManagedCert(ctx context.Context, svc *corev1.Service) error {
	found, err := l.client.Certificate.AllWithOpts(ctx, hcloud.CertificateListOpts{
		ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + string(svc.UID)}})
	if err != nil {
		return err
	}
	for _, c := range found {
		labels := maps.Clone(c.Labels)
		delete(labels, uidLabel)
		if _, _, err := l.client.Certificate.Update(ctx, c, hcloud.CertificateUpdateOpts{Labels: labels}); err != nil && !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
			return fmt.Errorf("releasing managed certificate %s: %w", c.Name, err)
		}
	}
	l.certs.forget(string(svc.UID))
	return nil
}
