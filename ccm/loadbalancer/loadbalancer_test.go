package loadbalancer

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func TestLBCreateIsOnePOSTAndANoOpSyncSendsNothing(t *testing.T) {
	c := newLBCluster(t, 10, fakecloud.Options{})
	svc := lbService("web", []int32{80, 443})
	st, n := c.ensure(t, svc, c.nodes)
	// The first sync lists the labelled load balancers and the types, then POSTs.
	if n != 3 || c.FC.Requests("POST", "/load_balancers") != 1 {
		t.Errorf("create sent %d requests (%d POSTs), want 3 with 1 POST", n, c.FC.Requests("POST", "/load_balancers"))
	}
	lb := c.LoadBalancerOf(t, svc)
	if lb.Name != defaultLBName(svc) || lb.LoadBalancerType.Name != "lb11" || lb.Location.Name != "fsn1" {
		t.Errorf("load balancer %s %s %s", lb.Name, lb.LoadBalancerType.Name, lb.Location.Name)
	}
	var ports [][3]int
	for _, s := range lb.Services {
		if s.Protocol != hcloud.LoadBalancerServiceProtocolTCP || s.HealthCheck.Protocol != hcloud.LoadBalancerServiceProtocolTCP {
			t.Errorf("service %d: protocol %s, health check %s, want tcp", s.ListenPort, s.Protocol, s.HealthCheck.Protocol)
		}
		ports = append(ports, [3]int{s.ListenPort, s.DestinationPort, s.HealthCheck.Port})
	}
	slices.SortFunc(ports, func(a, b [3]int) int { return a[0] - b[0] })
	if diff := cmp.Diff([][3]int{{80, 30080, 30080}, {443, 30443, 30443}}, ports); diff != "" {
		t.Errorf("services (listen, destination, health check port) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(serverIDs(c.nodes), sorted(targetIDs(lb))); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if len(lb.PrivateNet) != 1 || lb.PrivateNet[0].Network.ID != c.networkID {
		t.Errorf("private networks %+v, want the cluster network", lb.PrivateNet)
	}
	want := []string{lb.PublicNet.IPv4.IP.String(), lb.PublicNet.IPv6.IP.String(), lb.PrivateNet[0].IP.String()}
	if diff := cmp.Diff(want, ingressIPs(st)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}

	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("a no-op EnsureLoadBalancer sent %d requests, want 0", n)
	}
	if n := c.update(t, svc, c.nodes); n != 0 {
		t.Errorf("a no-op UpdateLoadBalancer sent %d requests, want 0", n)
	}
}

func TestLBUpdatesSendOnlyTheDifference(t *testing.T) {
	c := newLBCluster(t, 25, fakecloud.Options{})
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes[:5])

	steps := []struct {
		name  string
		svc   *corev1.Service
		nodes []*corev1.Node
		want  uint64
		check func(lb *hcloud.LoadBalancer) bool
	}{
		{"a node joins", svc, c.nodes[:6], 1, func(lb *hcloud.LoadBalancer) bool { return len(lb.Targets) == 6 }},
		{"ten nodes join at once", svc, c.nodes[:16], 10, func(lb *hcloud.LoadBalancer) bool { return len(lb.Targets) == 16 }},
		{"a node leaves", svc, c.nodes[1:16], 1, func(lb *hcloud.LoadBalancer) bool { return !slices.Contains(targetIDs(lb), serverIDs(c.nodes[:1])[0]) }},
		{"the port changes", lbService("web", []int32{8080}), c.nodes[1:16], 2, func(lb *hcloud.LoadBalancer) bool {
			return len(lb.Services) == 1 && lb.Services[0].ListenPort == 8080
		}},
		{"the nodePort changes", withNodePort(lbService("web", []int32{8080}), 31111), c.nodes[1:16], 1, func(lb *hcloud.LoadBalancer) bool {
			return lb.Services[0].DestinationPort == 31111 && lb.Services[0].HealthCheck.Port == 31111
		}},
		{"the algorithm annotation changes", withNodePort(lbService("web", []int32{8080}, "algorithm-type", "least_connections"), 31111), c.nodes[1:16], 1,
			func(lb *hcloud.LoadBalancer) bool {
				return lb.Algorithm.Type == hcloud.LoadBalancerAlgorithmTypeLeastConnections
			}},
	}
	for _, s := range steps {
		var n uint64
		if s.svc == svc {
			n = c.update(t, s.svc, s.nodes)
		} else {
			_, n = c.ensure(t, s.svc, s.nodes)
		}
		if n != s.want {
			t.Errorf("%s: %d requests, want %d", s.name, n, s.want)
		}
		if !s.check(c.LoadBalancerOf(t, svc)) {
			t.Errorf("%s: not reflected in the load balancer", s.name)
		}
		if _, n := c.ensure(t, s.svc, s.nodes); n != 0 {
			t.Errorf("after %s a resync sent %d requests, want 0", s.name, n)
		}
	}
}

func withNodePort(svc *corev1.Service, port int32) *corev1.Service {
	svc.Spec.Ports[0].NodePort = port
	return svc
}

func ingressIPs(st *corev1.LoadBalancerStatus) []string {
	var ips []string
	for _, in := range st.Ingress {
		ips = append(ips, in.IP)
	}
	return ips
}

func sorted(ids []int64) []int64 {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return ids
}
