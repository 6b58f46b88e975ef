package loadbalancer

import (
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// createBehindTheBack makes a load balancer as an operator would.
func (c *lbCluster) createBehindTheBack(t *testing.T, name string, labels map[string]string) *hcloud.LoadBalancer {
	t.Helper()
	res, _, err := c.Client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: name, Labels: labels,
		LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"},
		Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: "tcp", ListenPort: hcloud.Ptr(9999), DestinationPort: hcloud.Ptr(9999)}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.LoadBalancer
}

func TestLBAdoptedByNameThenLabelled(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{})
	existing := c.createBehindTheBack(t, "shop", map[string]string{"team": "shop"})
	svc := lbService("shop", []int32{80}, "name", "shop")
	c.ensure(t, svc, c.nodes)
	all := c.LoadBalancers(t)
	if len(all) != 1 {
		t.Fatalf("%d load balancers, want the adopted one only", len(all))
	}
	lb := all[0]
	if lb.ID != existing.ID || lb.Labels[uidLabel] != string(svc.UID) || lb.Labels["team"] != "shop" {
		t.Errorf("adopted load balancer %d labels %v, want %d with the Service UID added and team kept", lb.ID, lb.Labels, existing.ID)
	}
	if len(lb.Services) != 1 || lb.Services[0].ListenPort != 80 || len(lb.Targets) != 3 {
		t.Errorf("adopted load balancer not reconciled: %d services, %d targets", len(lb.Services), len(lb.Targets))
	}
	fakecloudtest.Eventually(t, 20*time.Second, "AdoptedLoadBalancer event", func() bool { return c.hasEvent(t, corev1.EventTypeNormal, "AdoptedLoadBalancer", "shop") })
}

func TestLBNameOfAnotherServiceIsNotTaken(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	c.createBehindTheBack(t, "shop", map[string]string{uidLabel: "someone-else"})
	svc := lbService("shop", []int32{80}, "name", "shop")
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes); err == nil {
		t.Fatal("EnsureLoadBalancer took another Service's load balancer")
	}
	if lb := c.LoadBalancers(t)[0]; lb.Labels[uidLabel] != "someone-else" || len(lb.Services) != 1 || lb.Services[0].ListenPort != 9999 {
		t.Errorf("the other Service's load balancer was changed: %v", lb.Labels)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "LoadBalancerNameTaken event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, "LoadBalancerNameTaken", "shop") })
}

func TestLBDeletedOnlyByLabel(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes)
	// A load balancer with the Service's name but not its label is not its own.
	other := lbService("other", []int32{80}, "name", "not-mine")
	c.createBehindTheBack(t, "not-mine", nil)

	c.FC.ResetCounters()
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
		t.Fatal(err)
	}
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", other); err != nil {
		t.Fatal(err)
	}
	// Per Service: the DELETE of the load balancer the CCM keeps for it,
	// or, where it keeps none, one listing by label.
	if n, lists := c.Requests(), c.FC.Requests("GET", "/load_balancers"); n != 2 || lists != 1 {
		t.Errorf("deleting sent %d requests (%v), want 2: a DELETE for web, a label listing for other", n, c.FC.Counters())
	}
	all := c.LoadBalancers(t)
	if len(all) != 1 || all[0].Name != "not-mine" {
		t.Errorf("load balancers left: %v, want only not-mine", names(all))
	}
	if _, exists, err := c.lbs.GetLoadBalancer(t.Context(), "", svc); err != nil || exists {
		t.Errorf("GetLoadBalancer after delete: exists=%v err=%v", exists, err)
	}
}

func TestLBDeleteProtectedIsKept(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	if _, _, err := c.Client.LoadBalancer.ChangeProtection(t.Context(), lb, hcloud.LoadBalancerChangeProtectionOpts{Delete: hcloud.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
		t.Fatalf("a protected load balancer must not block the Service's deletion: %v", err)
	}
	// The CCM's copy predates the protection: its DELETE is refused.
	if n := c.FC.Requests("DELETE", "/load_balancers/{id}"); n > 1 {
		t.Errorf("%d DELETEs were sent for a protected load balancer", n)
	}
	if kept, _, err := c.Client.LoadBalancer.GetByID(t.Context(), lb.ID); err != nil || kept == nil || kept.Labels[uidLabel] != "" {
		t.Errorf("the protected load balancer: %+v, %v; want it kept without the Service's label", kept, err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "LoadBalancerProtected event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventLBProtected, "web") })
}

func TestLBCreateAnsweredWithAnErrorAfterCommitMakesNoDuplicate(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{})
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "POST", Path: "/load_balancers", Status: 503, AfterCommit: true, Count: 1}); err != nil {
		t.Fatal(err)
	}
	svc := lbService("web", []int32{80})
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes); err == nil {
		t.Fatal("the lost answer was not reported")
	}
	st, _ := c.ensure(t, svc, c.nodes)
	if all := c.LoadBalancers(t); len(all) != 1 {
		t.Fatalf("%d load balancers after a retried create, want 1", len(all))
	}
	if len(st.Ingress) == 0 {
		t.Error("no status after the retry")
	}
	if n := c.FC.Requests("POST", "/load_balancers"); n != 1 {
		t.Errorf("%d POSTs, want 1: the retry finds the load balancer by its label", n)
	}
}

func TestLBRejectedTargetDoesNotBlockTheRest(t *testing.T) {
	c := newLBCluster(t, 4, fakecloud.Options{})
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes[:2])
	// node-0002's server is deleted before the CCM hears of it.
	if err := c.FC.Apply(fakecloud.Event{Type: "delete_server", ServerName: "node-0002"}); err != nil {
		t.Fatal(err)
	}
	if n := c.update(t, svc, c.nodes); n != 2 {
		t.Errorf("update sent %d requests, want 2 (one rejected target, one added)", n)
	}
	got := sorted(targetIDs(c.LoadBalancerOf(t, svc)))
	want := sorted(append(serverIDs(c.nodes[:2]), serverIDs(c.nodes[3:])...))
	if len(got) != 3 || got[2] != want[2] {
		t.Errorf("targets %v, want %v", got, want)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "TargetRejected event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventTargetRejected, "web") })
}

func names(lbs []*hcloud.LoadBalancer) []string {
	var n []string
	for _, lb := range lbs {
		n = append(n, lb.Name)
	}
	return n
}

// TestLBTargetLimitIsTheLoadBalancersOwn: the limit is that of the type
// the load balancer has, and reaching it never removes a target.
func TestLBTargetLimitIsTheLoadBalancersOwn(t *testing.T) {
	c := newLBCluster(t, 30, fakecloud.Options{})
	svc := lbService("web", []int32{80}, "type", "lb21")
	c.ensure(t, svc, c.nodes[:28])
	// The annotation goes: lb11 (25 targets) is only the default now, not a downgrade.
	delete(svc.Annotations, annotation.Prefix+"type")
	if _, n := c.ensure(t, svc, c.nodes); n != 2 {
		t.Errorf("%d requests, want 2: the two new nodes fit lb21", n)
	}
	if got := len(c.LoadBalancerOf(t, svc).Targets); got != 30 {
		t.Errorf("%d targets, want 30", got)
	}
	// On a full lb11, leaving nodes make room for joining ones.
	small := lbService("small", []int32{80})
	c.ensure(t, small, c.nodes[:25])
	before := targetIDs(c.LoadBalancerOf(t, small))
	if _, n := c.ensure(t, small, c.nodes[5:]); n != 10 {
		t.Errorf("%d requests, want 10: 5 leave, 5 of the 5 new nodes join", n)
	}
	after := targetIDs(c.LoadBalancerOf(t, small))
	if len(after) != 25 || len(before) != 25 {
		t.Errorf("targets %d then %d, want 25", len(before), len(after))
	}
}

// TestLBServerOutsideTheNetwork: a node whose server the API will not take
// as a private target does not hold back the create or the other nodes.
func TestLBServerOutsideTheNetwork(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{})
	c.CreateServer(t, "outsider") // not in the network
	servers, _ := c.Client.Server.All(t.Context())
	nodes := append([]*corev1.Node{}, c.nodes...)
	for _, s := range servers {
		if s.Name == "outsider" {
			n := c.nodes[0].DeepCopy()
			n.Name, n.Spec.ProviderID = "outsider", providerid.FromServerID(s.ID)
			nodes = append([]*corev1.Node{n}, nodes...)
		}
	}
	svc := lbService("web", []int32{80}, "use-private-ip", "true")
	c.ensure(t, svc, nodes)
	if got := sorted(targetIDs(c.LoadBalancerOf(t, svc))); len(got) != 3 {
		t.Errorf("targets %v, want the 3 servers in the network", got)
	}
	if n := c.FC.Requests("POST", "/load_balancers"); n != 2 {
		t.Errorf("%d creates, want 2: with inline targets, refused, then without", n)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "TargetRejected event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventTargetRejected, "web") })
}
