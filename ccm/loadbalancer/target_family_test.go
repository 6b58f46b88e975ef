package loadbalancer

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// withAddresses gives each Node the ExternalIPs the CCM writes with
// HCLOUD_INSTANCES_ADDRESS_FAMILY dualstack: its server's public IPv4,
// when it has one, and the ::1 of its /64.
func (c *lbCluster) withAddresses(t *testing.T, nodes []*corev1.Node) []*corev1.Node {
	t.Helper()
	out := make([]*corev1.Node, 0, len(nodes))
	for _, n := range nodes {
		n = n.DeepCopy()
		s := c.Server(t, n.Name)
		n.Status.Addresses = nil
		if !s.PublicNet.IPv4.IsUnspecified() && s.PublicNet.IPv4.IP != nil {
			n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: s.PublicNet.IPv4.IP.String()})
		}
		if s.PublicNet.IPv6.IP != nil {
			n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: hostOne(s)})
		}
		out = append(out, n)
	}
	return out
}

// hostOne is the ::1 of the server's /64.
func hostOne(s *hcloud.Server) string {
	a, _ := netip.AddrFromSlice(s.PublicNet.IPv6.IP)
	b := a.As16()
	b[15] = 1
	return netip.AddrFrom16(b).String()
}

// rawTargets are the load balancer's server targets as the API names
// them, "<id>" on the IPv4 and "<id>@<ipv6>" on an IPv6, sorted; read
// from the body, as hcloud-go does not read server.ip.
func (c *lbCluster) rawTargets(t *testing.T, svc *corev1.Service) []string {
	t.Helper()
	lb := c.LoadBalancerOf(t, svc)
	req, _ := http.NewRequestWithContext(t.Context(), "GET", fmt.Sprintf("%s/load_balancers/%d", c.URL, lb.ID), nil)
	req.Header.Set("Authorization", "Bearer "+fakecloud.DefaultToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		LoadBalancer rawLB `json:"load_balancer"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tg := range body.LoadBalancer.Targets {
		if tg.Server == nil {
			continue
		}
		if a, err := netip.ParseAddr(tg.Server.IP); err == nil && a.Is6() {
			out = append(out, fmt.Sprintf("%d@%s", tg.Server.ID, a))
		} else {
			out = append(out, fmt.Sprint(tg.Server.ID))
		}
	}
	slices.Sort(out)
	return out
}

// wantTargets are the targets nodes make in a family, sorted as rawTargets.
func (c *lbCluster) wantTargets(t *testing.T, nodes []*corev1.Node, v4, v6 bool) []string {
	var out []string
	for _, n := range nodes {
		id, _ := providerid.ToServerID(n.Spec.ProviderID)
		if v4 {
			out = append(out, fmt.Sprint(id))
		}
		if v6 {
			out = append(out, fmt.Sprintf("%d@%s", id, hostOne(c.Server(t, n.Name))))
		}
	}
	slices.Sort(out)
	return out
}

// TestLBTargetAddressFamily: each Node is a target on the family's
// addresses, one request a target; a sync with nothing to change sends
// none, so the CCM tells a server's IPv6 target from its IPv4 one; a
// change of family moves only what differs.
func TestLBTargetAddressFamily(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{})
	nodes := c.withAddresses(t, c.nodes)
	svc := lbService("web", []int32{80}, "target-address-family", "dualstack")
	c.ensure(t, svc, nodes)
	if got, want := c.rawTargets(t, svc), c.wantTargets(t, nodes, true, true); !slices.Equal(got, want) {
		t.Fatalf("dualstack targets %v, want %v", got, want)
	}
	// The IPv4 targets go inline with the create, the IPv6 ones after.
	if n := c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target"); n != 3 {
		t.Errorf("%d add_target, want 3 (the IPv6 ones)", n)
	}
	if n := c.update(t, svc, nodes); n != 0 {
		t.Errorf("a sync with nothing to change sent %d requests", n)
	}
	// Once the CCM's copy is old it lists the load balancers again: one
	// request, and it still tells each IPv6 target from the IPv4 one.
	c.clock.Advance(6 * time.Minute)
	if n := c.update(t, svc, nodes); n != 1 {
		t.Errorf("a sync after a listing sent %d requests, want 1 (the listing)", n)
	}
	for _, step := range []struct {
		family   string
		v4, v6   bool
		requests uint64
	}{
		{"ipv6", false, true, 3},     // three IPv4 targets go
		{"ipv4", true, false, 6},     // three come, three IPv6 go
		{"dualstack", true, true, 3}, // three IPv6 come
		{"IPv4", true, false, 3},     // any case
	} {
		svc.Annotations["load-balancer.hetzner.cloud/target-address-family"] = step.family
		if n := c.update(t, svc, nodes); n != step.requests {
			t.Errorf("%s: %d requests, want %d", step.family, n, step.requests)
		}
		if got, want := c.rawTargets(t, svc), c.wantTargets(t, nodes, step.v4, step.v6); !slices.Equal(got, want) {
			t.Errorf("%s: targets %v, want %v", step.family, got, want)
		}
		c.clock.Advance(6 * time.Minute)
		if n := c.update(t, svc, nodes); n != 1 {
			t.Errorf("%s: a sync after a listing sent %d requests, want 1 (the listing)", step.family, n)
		}
	}
	if n := c.countEvents(t, corev1.EventTypeWarning, eventTargetRejected, "web"); n != 0 {
		t.Errorf("%d TargetRejected events", n)
	}
}

// TestLBIPv6OnlyNodeIsATarget: a server without public IPv4 is a target
// on its IPv6 when its Node shows it (HCLOUD_INSTANCES_ADDRESS_FAMILY
// dualstack), not a TargetRejected every sync; a Node with no IPv6
// ExternalIP where the family asks for one is left out with an event.
func TestLBIPv6OnlyNodeIsATarget(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	c.lbs.instancesFamily = instancesDualStack
	if _, _, err := c.Client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: "v6only", ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Location: &hcloud.Location{Name: "fsn1"},
		PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: false, EnableIPv6: true}}); err != nil {
		t.Fatal(err)
	}
	all := c.withAddresses(t, c.Nodes(t))
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, all)
	var v6only, dual []*corev1.Node
	for _, n := range all {
		if n.Name == "v6only" {
			v6only = append(v6only, n)
		} else {
			dual = append(dual, n)
		}
	}
	want := append(c.wantTargets(t, dual, true, false), c.wantTargets(t, v6only, false, true)...)
	slices.Sort(want)
	if got := c.rawTargets(t, svc); !slices.Equal(got, want) {
		t.Errorf("targets %v, want %v", got, want)
	}
	if c.hasEvent(t, corev1.EventTypeWarning, eventTargetRejected, "web") {
		t.Error("the IPv6-only Node was rejected")
	}
	c.clock.Advance(6 * time.Minute)
	if n := c.update(t, svc, all); n != 1 {
		t.Errorf("a sync after a listing sent %d requests, want 1 (the listing)", n)
	}
	// ipv6 for a Node whose addresses have no IPv6: left out, told.
	bare := c.nodes[0].DeepCopy()
	svc6 := lbService("six", []int32{80}, "target-address-family", "ipv6")
	c.ensure(t, svc6, append([]*corev1.Node{bare}, v6only...))
	if got, want := c.rawTargets(t, svc6), c.wantTargets(t, v6only, false, true); !slices.Equal(got, want) {
		t.Errorf("ipv6 targets %v, want %v", got, want)
	}
	if !c.hasEvent(t, corev1.EventTypeWarning, eventNodeSkipped, bare.Name) {
		t.Error("no NodeNotTargeted event on the Node without an IPv6 ExternalIP")
	}
}

// TestLBDedicatedTargetAddressFamily: a dedicated server's Node is an ip
// target on each address of the family.
func TestLBDedicatedTargetAddressFamily(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	c.lbs.robot = true
	ext := func(ip string) corev1.NodeAddress {
		return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ip}
	}
	ded := dedicatedNode("ded-1", "hrobot://321", ext("2a01:4f8:111:4221::1"), ext("198.51.100.7"))
	for _, c2 := range []struct {
		family string
		want   []string
	}{
		{"dualstack", []string{"198.51.100.7", "2a01:4f8:111:4221::1"}},
		{"ipv6", []string{"2a01:4f8:111:4221::1"}},
		{"ipv4", []string{"198.51.100.7"}},
	} {
		svc := lbService("web", []int32{80}, "target-address-family", c2.family)
		if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, []*corev1.Node{ded}); err != nil {
			t.Fatalf("%s: %v", c2.family, err)
		}
		if got := ipTargets(c.LoadBalancerOf(t, svc)); !slices.Equal(got, c2.want) {
			t.Errorf("%s: ip targets %v, want %v", c2.family, got, c2.want)
		}
	}
}

// TestLBIPv6TargetFollowsTheNodesAddress: a Node whose IPv6 ExternalIP
// comes after the controller's sync (the CCM writes it at initialisation)
// becomes an IPv6 target at once, without a sync from the controller; an
// address change that moves no target sends nothing.
func TestLBIPv6TargetFollowsTheNodesAddress(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	full := c.withAddresses(t, c.nodes)
	bare := []*corev1.Node{full[0], full[1].DeepCopy()}
	bare[1].Status.Addresses = bare[1].Status.Addresses[:1] // its IPv4 only, so far
	svc := lbService("web", []int32{80}, "target-address-family", "dualstack")
	c.ensure(t, svc, bare)
	adds := c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target")
	c.lbs.NodeChanged(bare[1], full[1])
	want := c.wantTargets(t, full, true, true)
	fakecloudtest.Eventually(t, 20*time.Second, "the IPv6 target of node 1", func() bool { return slices.Equal(c.rawTargets(t, svc), want) })
	if n := c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target") - adds; n != 1 {
		t.Errorf("%d add_target after the address came, want 1", n)
	}
	// The same addresses again, or a Service on IPv4 only: nothing to move.
	n := c.Requests()
	c.lbs.NodeChanged(full[1], full[1].DeepCopy())
	if got := c.Requests(); got != n {
		t.Errorf("%d requests for an update that moves no target", got-n)
	}
}
