package loadbalancer

import (
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

// lbStatus is the Service's status.loadBalancer, as the official CCM
// reports it: only the hostname annotation when it is set; else the public
// IPv4 and IPv6 (unless disabled), then the private IPs (unless private
// ingress is disabled). ipMode is VIP, or with proxy protocol on any port Proxy, so
// kube-proxy sends in-cluster traffic through the load balancer too. It is
// always set, as the apiserver defaults it: a status left without it would
// differ from the stored one at every sync and be patched again.
func lbStatus(lb *hcloud.LoadBalancer, o annotation.Options) *corev1.LoadBalancerStatus {
	if o.Hostname != "" {
		return &corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{Hostname: o.Hostname}}}
	}
	m := corev1.LoadBalancerIPModeVIP
	if o.AnyPort(func(p annotation.PortOptions) bool { return p.ProxyProtocol }) {
		m = corev1.LoadBalancerIPModeProxy
	}
	mode := &m
	st := &corev1.LoadBalancerStatus{}
	add := func(ip string) {
		if ip != "" && ip != "<nil>" {
			st.Ingress = append(st.Ingress, corev1.LoadBalancerIngress{IP: ip, IPMode: mode})
		}
	}
	if lb.PublicNet.Enabled {
		add(lb.PublicNet.IPv4.IP.String())
		if !o.IPv6Disabled {
			add(lb.PublicNet.IPv6.IP.String())
		}
	}
	if !o.DisablePrivateIngress {
		for _, pn := range lb.PrivateNet {
			add(pn.IP.String())
		}
	}
	return st
}
