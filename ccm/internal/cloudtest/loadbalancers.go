package cloudtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
)

// ServiceUIDLabel is the label that ties a load balancer to its Service;
// clouds carry it, so it never changes.
const ServiceUIDLabel = "hcloud-ccm/service-uid"

// LBService is a LoadBalancer Service in default with TCP ports 80→30080,
// 443→30443, ... as given, a UID derived from its name, and the
// annotations (name, value, ...), names short for
// load-balancer.hetzner.cloud/<name>.
func LBService(name string, ports []int32, annotations ...string) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
		UID: types.UID(fmt.Sprintf("%08x-1111-2222-3333-444455556666", hash(name))), Annotations: map[string]string{}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}
	for _, p := range ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Protocol: corev1.ProtocolTCP, Port: p, NodePort: 30000 + p%1000})
	}
	for i := 0; i+1 < len(annotations); i += 2 {
		svc.Annotations["load-balancer.hetzner.cloud/"+annotations[i]] = annotations[i+1]
	}
	return svc
}

// hash is FNV-1a.
func hash(s string) uint32 {
	var h uint32 = 2166136261
	for _, c := range []byte(s) {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// Nodes are one Node per server, as the node controller leaves them:
// named as the server, with its provider ID, created a second apart.
func (c *Cloud) Nodes(t testing.TB) []*corev1.Node {
	t.Helper()
	servers, err := c.Client.Server.All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*corev1.Node
	for i, s := range servers {
		nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: s.Name,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC))},
			Spec: corev1.NodeSpec{ProviderID: providerid.FromServerID(s.ID)}})
	}
	return nodes
}

// LoadBalancerOf reads svc's load balancer, found by its label, behind
// the CCM's back; it fails the test unless there is exactly one.
func (c *Cloud) LoadBalancerOf(t testing.TB, svc *corev1.Service) *hcloud.LoadBalancer {
	t.Helper()
	var found *hcloud.LoadBalancer
	for _, lb := range c.LoadBalancers(t) {
		if lb.Labels[ServiceUIDLabel] == string(svc.UID) {
			if found != nil {
				t.Fatalf("two load balancers for %s", svc.Name)
			}
			found = lb
		}
	}
	if found == nil {
		t.Fatalf("no load balancer for %s", svc.Name)
	}
	return found
}

// LoadBalancers are all load balancers in the cloud.
func (c *Cloud) LoadBalancers(t testing.TB) []*hcloud.LoadBalancer {
	t.Helper()
	all, err := c.Client.LoadBalancer.All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return all
}
