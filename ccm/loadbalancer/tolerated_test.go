package loadbalancer

import (
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestRemovingATargetAlreadyGone: a target someone else removed after the
// CCM read the load balancer is a removal done, not a failed sync.
func TestRemovingATargetAlreadyGone(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	gone := c.Server(t, c.nodes[1].Name)
	action, _, err := c.Client.LoadBalancer.RemoveServerTarget(t.Context(), lb, gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Client.Action.WaitFor(t.Context(), action); err != nil {
		t.Fatal(err)
	}
	c.FC.ResetCounters()
	// The CCM still holds the load balancer as it read it, with both.
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes[:1]); err != nil {
		t.Fatalf("the sync failed on a target already removed: %v", err)
	}
	if n := c.FC.Requests("POST", "/load_balancers/{id}/actions/remove_target"); n != 1 {
		t.Errorf("%d remove_target sent by the CCM, want 1 (it did not know)", n)
	}
	if got := c.LoadBalancerOf(t, svc).Targets; len(got) != 1 || got[0].Server == nil || got[0].Server.Server.ID == gone.ID {
		t.Errorf("targets %+v, want the first Node's alone", got)
	}
}
