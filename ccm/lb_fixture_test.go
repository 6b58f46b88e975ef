package ccm

import (
	"fmt"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// lbCluster is newCluster with load balancers on (in fsn1, lb11) and
// the servers' Nodes at hand.
type lbCluster struct {
	*cluster
	lbs   *loadBalancers
	nodes []*corev1.Node // one per server, node-0000...
}

func newLBCluster(t *testing.T, n int, opts fakecloud.Options, configure ...func(*Config)) *lbCluster {
	t.Helper()
	base := func(c *Config) {
		c.LoadBalancers = LoadBalancerDefaults{Enabled: true, Type: "lb11", Location: "fsn1"}
	}
	c := newCluster(t, n, opts, append([]func(*Config){base}, configure...)...)
	servers, err := c.client.Server.All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	lc := &lbCluster{cluster: c, lbs: c.cloud.lbs}
	for i, s := range servers {
		lc.nodes = append(lc.nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: s.Name,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC))},
			Spec: corev1.NodeSpec{ProviderID: providerID(s.ID)}})
	}
	c.fc.ResetCounters()
	return lc
}

// lbService is a LoadBalancer Service with TCP ports 80→30080, 443→30443, ...
// as given, and the annotations, short names prefixed.
func lbService(name string, ports []int32, annotations ...string) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
		UID: types.UID(fmt.Sprintf("%08x-1111-2222-3333-444455556666", hash(name))), Annotations: map[string]string{}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}
	for _, p := range ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Protocol: corev1.ProtocolTCP, Port: p, NodePort: 30000 + p%1000})
	}
	for i := 0; i+1 < len(annotations); i += 2 {
		svc.Annotations[annotationPrefix+annotations[i]] = annotations[i+1]
	}
	return svc
}

func hash(s string) uint32 {
	var h uint32 = 2166136261
	for _, c := range []byte(s) {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// ensure runs EnsureLoadBalancer and returns the status and the requests it sent.
func (c *lbCluster) ensure(t *testing.T, svc *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, uint64) {
	t.Helper()
	before := c.requests()
	st, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, nodes)
	if err != nil {
		t.Fatalf("EnsureLoadBalancer: %v", err)
	}
	return st, c.requests() - before
}

// update runs UpdateLoadBalancer and returns the requests it sent.
func (c *lbCluster) update(t *testing.T, svc *corev1.Service, nodes []*corev1.Node) uint64 {
	t.Helper()
	before := c.requests()
	if err := c.lbs.UpdateLoadBalancer(t.Context(), "", svc, nodes); err != nil {
		t.Fatalf("UpdateLoadBalancer: %v", err)
	}
	return c.requests() - before
}

// cloudLB reads svc's load balancer from fakecloud behind the CCM's back.
func (c *lbCluster) cloudLB(t *testing.T, svc *corev1.Service) *hcloud.LoadBalancer {
	t.Helper()
	all := c.allLBs(t)
	var found *hcloud.LoadBalancer
	for _, lb := range all {
		if lb.Labels[uidLabel] == string(svc.UID) {
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

func (c *lbCluster) allLBs(t *testing.T) []*hcloud.LoadBalancer {
	t.Helper()
	all, err := c.client.LoadBalancer.All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// targetIDs are the server IDs of lb's server targets, in order.
func targetIDs(lb *hcloud.LoadBalancer) []int64 {
	var ids []int64
	for _, tg := range lb.Targets {
		if tg.Server != nil {
			ids = append(ids, tg.Server.Server.ID)
		}
	}
	return ids
}

func serverIDs(nodes []*corev1.Node) []int64 {
	var ids []int64
	for _, n := range nodes {
		id, _ := serverIDFromProviderID(n.Spec.ProviderID)
		ids = append(ids, id)
	}
	return ids
}
