//go:build e2e

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
)

// world is one run of the leader-kill sweep: its system, and what the
// test did to it that the invariants depend on.
type world struct {
	ctx   context.Context
	env   *harness.Env
	cloud *harness.Cloud
	dir   string // the run's working directory: logs and journal
	// nodes are the Nodes the test registered; their servers exist and are
	// never deleted here, so each must stay.
	nodes []string
}

const (
	uidLabel    = "hcloud-ccm/service-uid"
	clusterCIDR = "10.244.0.0/16"
)

// settled is every invariant of the sweep that does not hold now, each a
// sentence, sorted; nothing when the CCM has converged:
//
//   - no Node deleted whose server exists, no Node left whose server is
//     gone, every Node initialised;
//   - exactly one load balancer per LoadBalancer Service, with the
//     Service's label and name, its ports as services, every initialised
//     Node as a target, in the network; the Service holds the finalizer
//     and its status is the load balancer's addresses;
//   - nothing in the cloud that belongs to no Service or Node: load
//     balancers, certificates, routes; every Node's pod CIDR routed to its
//     server.
func (w *world) settled() []string {
	c, err := w.read()
	if err != nil {
		return []string{"reading the state: " + err.Error()}
	}
	out := slices.Concat(c.nodeInvariants(w.nodes), c.lbInvariants(), c.routeInvariants())
	slices.Sort(out)
	return out
}

// state is the cluster and the cloud, read at once.
type state struct {
	nodes    map[string]*corev1.Node
	services []corev1.Service
	servers  map[string]*hcloud.Server // by name
	lbs      []*hcloud.LoadBalancer
	certs    []*hcloud.Certificate
	network  *hcloud.Network
}

func (w *world) read() (*state, error) {
	s := &state{nodes: map[string]*corev1.Node{}, servers: map[string]*hcloud.Server{}}
	nodes, err := w.env.Kube.CoreV1().Nodes().List(w.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range nodes.Items {
		s.nodes[nodes.Items[i].Name] = &nodes.Items[i]
	}
	svcs, err := w.env.Kube.CoreV1().Services("default").List(w.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	s.services = svcs.Items
	api := w.cloud.Client
	servers, err := api.Server.All(w.ctx)
	if err != nil {
		return nil, err
	}
	for _, sv := range servers {
		s.servers[sv.Name] = sv
	}
	if s.lbs, err = api.LoadBalancer.All(w.ctx); err != nil {
		return nil, err
	}
	if s.certs, err = api.Certificate.All(w.ctx); err != nil {
		return nil, err
	}
	if s.network, _, err = api.Network.Get(w.ctx, "cluster"); err != nil {
		return nil, err
	}
	if s.network == nil {
		return nil, fmt.Errorf("no network cluster")
	}
	return s, nil
}

func (s *state) nodeInvariants(registered []string) []string {
	var out []string
	for _, name := range registered {
		if s.nodes[name] == nil && s.servers[name] != nil {
			out = append(out, fmt.Sprintf("Node %s was deleted; its server %d exists", name, s.servers[name].ID))
		}
	}
	for name, n := range s.nodes {
		sv := s.servers[name]
		switch {
		case sv == nil:
			out = append(out, fmt.Sprintf("Node %s is left; its server is gone", name))
		case n.Spec.ProviderID != "hcloud://"+strconv.FormatInt(sv.ID, 10) || tainted(n, uninitializedTaint):
			out = append(out, fmt.Sprintf("Node %s not initialised: provider ID %q, server %d", name, n.Spec.ProviderID, sv.ID))
		}
	}
	return out
}

// targets is the server IDs every load balancer should target: those of
// the initialised Nodes.
func (s *state) targets() []int64 {
	var ids []int64
	for _, n := range s.nodes {
		if id, ok := strings.CutPrefix(n.Spec.ProviderID, "hcloud://"); ok && !tainted(n, uninitializedTaint) {
			if v, err := strconv.ParseInt(id, 10, 64); err == nil {
				ids = append(ids, v)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

func (s *state) lbInvariants() []string {
	var out []string
	owners := map[string]bool{} // UIDs of live LoadBalancer Services
	for i := range s.services {
		svc := &s.services[i]
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
			continue
		}
		var mine []*hcloud.LoadBalancer
		for _, lb := range s.lbs {
			if lb.Labels[uidLabel] == string(svc.UID) {
				mine = append(mine, lb)
			}
		}
		if svc.DeletionTimestamp != nil {
			out = append(out, fmt.Sprintf("Service %s is being deleted and still holds finalizers %v (%d load balancers left)", svc.Name, svc.Finalizers, len(mine)))
			continue
		}
		owners[string(svc.UID)] = true
		if !slices.Contains(svc.Finalizers, lbFinalizer) {
			out = append(out, fmt.Sprintf("Service %s lacks the finalizer %s", svc.Name, lbFinalizer))
		}
		if len(mine) != 1 {
			out = append(out, fmt.Sprintf("Service %s has %d load balancers, want 1", svc.Name, len(mine)))
			continue
		}
		out = append(out, s.lbMatches(svc, mine[0])...)
	}
	for _, lb := range s.lbs {
		if !owners[lb.Labels[uidLabel]] {
			out = append(out, fmt.Sprintf("load balancer %s (%d, %s=%q) belongs to no Service", lb.Name, lb.ID, uidLabel, lb.Labels[uidLabel]))
		}
	}
	for _, c := range s.certs {
		if !owners[c.Labels[uidLabel]] {
			out = append(out, fmt.Sprintf("certificate %s (%d) belongs to no Service", c.Name, c.ID))
		}
	}
	return out
}

// lbMatches is what differs between the Service's load balancer and what
// the Service and the Nodes call for, the Service's status included.
func (s *state) lbMatches(svc *corev1.Service, lb *hcloud.LoadBalancer) []string {
	var out []string
	bad := func(format string, a ...any) {
		out = append(out, fmt.Sprintf("Service %s's load balancer %d: ", svc.Name, lb.ID)+fmt.Sprintf(format, a...))
	}
	if want := "a" + strings.ReplaceAll(string(svc.UID), "-", ""); lb.Name != want[:min(32, len(want))] {
		bad("named %s, want %s", lb.Name, want[:min(32, len(want))])
	}
	proto := cmp.Or(svc.Annotations["load-balancer.hetzner.cloud/protocol"], "tcp")
	var want, got []string
	for _, p := range svc.Spec.Ports {
		want = append(want, fmt.Sprintf("%s %d->%d", proto, p.Port, p.NodePort))
	}
	for _, ls := range lb.Services {
		got = append(got, fmt.Sprintf("%s %d->%d", ls.Protocol, ls.ListenPort, ls.DestinationPort))
		if ls.Protocol != hcloud.LoadBalancerServiceProtocolHTTPS {
			continue
		}
		// A managed certificate is the Service's own.
		var certs []int64
		for _, c := range ls.HTTP.Certificates {
			certs = append(certs, c.ID)
		}
		mine := slices.ContainsFunc(s.certs, func(c *hcloud.Certificate) bool {
			return slices.Contains(certs, c.ID) && c.Labels[uidLabel] == string(svc.UID)
		})
		if len(certs) != 1 || !mine {
			bad("port %d has certificates %v, want the Service's one", ls.ListenPort, certs)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		bad("services %v, want %v", got, want)
	}
	var targets []int64
	for _, t := range lb.Targets {
		if t.Type != hcloud.LoadBalancerTargetTypeServer || t.Server == nil {
			bad("a %s target", t.Type)
			continue
		}
		targets = append(targets, t.Server.Server.ID)
	}
	slices.Sort(targets)
	if wantT := s.targets(); !slices.Equal(targets, wantT) {
		bad("targets %v, want %v", targets, wantT)
	}
	if !slices.ContainsFunc(lb.PrivateNet, func(p hcloud.LoadBalancerPrivateNet) bool { return p.Network.ID == s.network.ID }) {
		bad("not in network %s", s.network.Name)
	}
	// The status: the public addresses, then the private ones.
	var addrs, ingress []string
	for _, ip := range []net.IP{lb.PublicNet.IPv4.IP, lb.PublicNet.IPv6.IP} {
		if ip != nil {
			addrs = append(addrs, ip.String())
		}
	}
	for _, p := range lb.PrivateNet {
		addrs = append(addrs, p.IP.String())
	}
	for _, in := range svc.Status.LoadBalancer.Ingress {
		ingress = append(ingress, in.IP)
	}
	if !slices.Equal(ingress, addrs) {
		bad("Service status %v, load balancer's addresses %v", ingress, addrs)
	}
	return out
}

// routeInvariants: every Node with a pod CIDR has its route through its
// server's address in the network, and every route into the cluster CIDR
// is a Node's.
func (s *state) routeInvariants() []string {
	want := map[string]string{} // destination → gateway
	for name, n := range s.nodes {
		if n.Spec.PodCIDR == "" {
			continue
		}
		gw := "(no server)"
		if sv := s.servers[name]; sv != nil {
			for _, pn := range sv.PrivateNet {
				if pn.Network.ID == s.network.ID {
					gw = pn.IP.String()
				}
			}
		}
		want[n.Spec.PodCIDR] = gw
	}
	got := map[string]string{}
	_, cluster, _ := net.ParseCIDR(clusterCIDR)
	for _, r := range s.network.Routes {
		if cluster.Contains(r.Destination.IP) {
			got[r.Destination.String()] = r.Gateway.String()
		}
	}
	var out []string
	for _, dest := range slices.Sorted(maps.Keys(want)) {
		switch g, ok := got[dest]; {
		case !ok:
			out = append(out, fmt.Sprintf("no route for pod CIDR %s", dest))
		case g != want[dest]:
			out = append(out, fmt.Sprintf("route %s via %s, want via %s", dest, g, want[dest]))
		}
	}
	for _, dest := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[dest]; !ok {
			out = append(out, fmt.Sprintf("route %s via %s belongs to no Node", dest, got[dest]))
		}
	}
	return out
}

// lbOf is the Service's one load balancer, nil when it has none.
func (w *world) lbOf(svc *corev1.Service) (*hcloud.LoadBalancer, error) {
	all, err := w.cloud.Client.LoadBalancer.AllWithOpts(w.ctx, hcloud.LoadBalancerListOpts{
		ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + string(svc.UID)}})
	if err != nil || len(all) == 0 {
		return nil, err
	}
	return all[0], nil
}
