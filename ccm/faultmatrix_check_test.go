//go:build !race

package ccm

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudproviderapi "k8s.io/cloud-provider/api"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
)

// uidLabelKey ties a load balancer or a managed certificate to its Service.
const uidLabelKey = cloudtest.ServiceUIDLabel

// broken lists the invariants that do not hold, each as a sentence. The
// desired state is derived from the cluster (Nodes, Services) and the
// cloud (servers), not from the operation, so one check serves all.
func (c *sweepCluster) broken(t *testing.T) []string {
	t.Helper()
	servers, err := c.Client.Server.All(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName, byID := map[string]*hcloud.Server{}, map[int64]*hcloud.Server{}
	for _, s := range servers {
		byName[s.Name], byID[s.ID] = s, s
	}
	nodes, err := c.kube.CoreV1().Nodes().List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := c.nodeInvariants(nodes.Items, byName, byID)
	if c.routes {
		out = append(out, c.routeInvariants(t, nodes.Items, byID)...)
	}
	if c.lbs {
		out = append(out, c.lbInvariants(t, nodes.Items)...)
	}
	return out
}

// nodeInvariants: no Node deleted whose server exists; each initialised;
// with the lifecycle controller, none left whose server is gone, and the
// shutdown taint exactly on the Nodes of servers that are off.
func (c *sweepCluster) nodeInvariants(nodes []corev1.Node, byName map[string]*hcloud.Server, byID map[int64]*hcloud.Server) []string {
	var out []string
	present := map[string]bool{}
	for _, n := range nodes {
		present[n.Name] = true
		if !initialised(&n) {
			out = append(out, fmt.Sprintf("Node %s is not initialised (provider ID %q)", n.Name, n.Spec.ProviderID))
			continue
		}
		id, err := providerid.ToServerID(n.Spec.ProviderID)
		if err != nil {
			out = append(out, fmt.Sprintf("Node %s has a bad provider ID %q", n.Name, n.Spec.ProviderID))
			continue
		}
		s := byID[id]
		switch {
		case s == nil && c.lifecycle:
			out = append(out, fmt.Sprintf("Node %s is left though its server %d is gone", n.Name, id))
		case s != nil && c.lifecycle && s.Status == hcloud.ServerStatusOff && !hasTaint(&n, cloudproviderapi.TaintNodeShutdown):
			out = append(out, fmt.Sprintf("Node %s has no shutdown taint though its server is off", n.Name))
		case s != nil && s.Status == hcloud.ServerStatusRunning && hasTaint(&n, cloudproviderapi.TaintNodeShutdown):
			out = append(out, fmt.Sprintf("Node %s has the shutdown taint though its server runs", n.Name))
		case s != nil && c.addresses && externalIP(&n) != s.PublicNet.IPv4.IP.String():
			out = append(out, fmt.Sprintf("Node %s has ExternalIP %q, its server %s", n.Name, externalIP(&n), s.PublicNet.IPv4.IP))
		}
	}
	for _, name := range c.joined {
		if !present[name] && byName[name] != nil {
			out = append(out, fmt.Sprintf("Node %s was deleted though its server %d exists", name, byName[name].ID))
		}
	}
	return out
}

// routeInvariants: the network's routes are exactly each Node's pod CIDR
// through its server's private IP.
func (c *sweepCluster) routeInvariants(t *testing.T, nodes []corev1.Node, byID map[int64]*hcloud.Server) []string {
	var want []string
	for _, n := range nodes {
		id, err := providerid.ToServerID(n.Spec.ProviderID)
		if n.Spec.PodCIDR == "" || err != nil || byID[id] == nil || len(byID[id].PrivateNet) == 0 {
			continue
		}
		want = append(want, n.Spec.PodCIDR+" via "+n.Name)
	}
	slices.Sort(want)
	if got := networkRoutes(t, c.cluster); !slices.Equal(got, want) {
		return []string{fmt.Sprintf("the network's routes are %q, want %q", got, want)}
	}
	return nil
}

// lbInvariants: each live LoadBalancer Service has exactly one load
// balancer with its label, its ports, every Node as a target and its
// address in the status, and one managed certificate if it asks for one;
// a deleted Service's finalizer is released; no load balancer or managed
// certificate belongs to no live Service.
func (c *sweepCluster) lbInvariants(t *testing.T, nodes []corev1.Node) []string {
	services, err := c.kube.CoreV1().Services("").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lbs, err := c.Client.LoadBalancer.All(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	certs, err := c.Client.Certificate.All(c.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	live := map[string]bool{}
	for _, svc := range services.Items {
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
			continue
		}
		if svc.DeletionTimestamp != nil {
			if slices.Contains(svc.Finalizers, finalizer) {
				out = append(out, fmt.Sprintf("Service %s is deleted but its finalizer is not released", svc.Name))
			}
			continue
		}
		live[string(svc.UID)] = true
		out = append(out, serviceInvariants(&svc, nodes, lbs, certs)...)
	}
	for _, lb := range lbs {
		if !live[lb.Labels[uidLabelKey]] {
			out = append(out, fmt.Sprintf("load balancer %s (%d) belongs to no Service", lb.Name, lb.ID))
		}
	}
	for _, cert := range certs {
		if uid, ok := cert.Labels[uidLabelKey]; ok && !live[uid] {
			out = append(out, fmt.Sprintf("certificate %s (%d) belongs to no Service", cert.Name, cert.ID))
		}
	}
	return out
}

func serviceInvariants(svc *corev1.Service, nodes []corev1.Node, lbs []*hcloud.LoadBalancer, certs []*hcloud.Certificate) []string {
	var mine []*hcloud.LoadBalancer
	for _, lb := range lbs {
		if lb.Labels[uidLabelKey] == string(svc.UID) {
			mine = append(mine, lb)
		}
	}
	if len(mine) != 1 {
		return []string{fmt.Sprintf("Service %s has %d load balancers, want 1", svc.Name, len(mine))}
	}
	lb := mine[0]
	var out []string
	var ports, wantPorts []int
	for _, s := range lb.Services {
		ports = append(ports, s.ListenPort)
	}
	for _, p := range svc.Spec.Ports {
		wantPorts = append(wantPorts, int(p.Port))
	}
	slices.Sort(ports)
	slices.Sort(wantPorts)
	if !slices.Equal(ports, wantPorts) {
		out = append(out, fmt.Sprintf("Service %s: load balancer ports %v, want %v", svc.Name, ports, wantPorts))
	}
	var targets, wantTargets []string
	for _, tg := range lb.Targets {
		if tg.Server != nil {
			targets = append(targets, providerid.FromServerID(tg.Server.Server.ID))
		}
	}
	for _, n := range nodes {
		wantTargets = append(wantTargets, n.Spec.ProviderID)
	}
	slices.Sort(targets)
	slices.Sort(wantTargets)
	if !slices.Equal(targets, wantTargets) {
		out = append(out, fmt.Sprintf("Service %s: targets %v, want %v", svc.Name, targets, wantTargets))
	}
	if in := svc.Status.LoadBalancer.Ingress; len(in) == 0 || in[0].IP != lb.PublicNet.IPv4.IP.String() {
		out = append(out, fmt.Sprintf("Service %s: status %v, want the load balancer's address %s", svc.Name, in, lb.PublicNet.IPv4.IP))
	}
	if !slices.Contains(svc.Finalizers, finalizer) {
		out = append(out, fmt.Sprintf("Service %s has no finalizer", svc.Name))
	}
	if svc.Annotations["load-balancer.hetzner.cloud/certificate-type"] == "managed" {
		n := 0
		for _, cert := range certs {
			if cert.Labels[uidLabelKey] == string(svc.UID) {
				n++
			}
		}
		if n != 1 {
			out = append(out, fmt.Sprintf("Service %s has %d managed certificates, want 1", svc.Name, n))
		}
	}
	for key, value := range map[string]string{"type": lb.LoadBalancerType.Name, "algorithm-type": string(lb.Algorithm.Type)} {
		if want, ok := svc.Annotations["load-balancer.hetzner.cloud/"+key]; ok && want != value {
			out = append(out, fmt.Sprintf("Service %s: load balancer %s %s, want %s", svc.Name, key, value, want))
		}
	}
	if want, ok := svc.Annotations["load-balancer.hetzner.cloud/health-check-interval"]; ok {
		d, _ := time.ParseDuration(want)
		for _, s := range lb.Services {
			if s.HealthCheck.Interval != d {
				out = append(out, fmt.Sprintf("Service %s: port %d health check every %s, want %s", svc.Name, s.ListenPort, s.HealthCheck.Interval, want))
			}
		}
	}
	return out
}

func externalIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeExternalIP {
			return a.Address
		}
	}
	return ""
}
