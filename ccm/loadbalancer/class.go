package loadbalancer

import corev1 "k8s.io/api/core/v1"

// DefaultClass is the spec.loadBalancerClass this CCM serves unless
// HCLOUD_LOAD_BALANCERS_CLASS names another.
const DefaultClass = "hetzner.cloud/load-balancer"

// Class says which Services' load balancers this CCM makes, by their
// spec.loadBalancerClass.
type Class struct {
	Name string // the class served
	// WithoutClass serves Services without a class too, as the official
	// CCM does; off, they are left to another implementation.
	WithoutClass bool
}

// OrDefault is c, or when unset the default: DefaultClass and Services
// without a class.
func (c Class) OrDefault() Class {
	if c == (Class{}) {
		return Class{Name: DefaultClass, WithoutClass: true}
	}
	return c
}

// Serves reports whether svc's load balancer is this CCM's to make: a
// LoadBalancer Service of the class, or of none when WithoutClass.
func (c Class) Serves(svc *corev1.Service) bool {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return false
	}
	if svc.Spec.LoadBalancerClass == nil {
		return c.WithoutClass
	}
	return *svc.Spec.LoadBalancerClass == c.Name
}

// Serves reports whether svc is the Manager's to serve (Class.Serves).
func (l *Manager) Serves(svc *corev1.Service) bool { return l.class.Serves(svc) }
