package loadbalancer

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestLBBusyLoadBalancerHandsOff: a sync that finds its load balancer
// busy with an earlier action returns at once, sending nothing, and the
// CCM applies the Service once the action ends, with no further sync.
func TestLBBusyLoadBalancerHandsOff(t *testing.T) {
	c := newLBCluster(t, 6, fakecloud.Options{ActionDuration: 400 * time.Millisecond})
	svc := lbService("web", []int32{80})
	start := time.Now()
	st, n := c.ensure(t, svc, c.nodes[:2])
	if n != 3 || len(st.Ingress) == 0 {
		t.Errorf("create: %d requests, status %v; want 3 and the addresses at once", n, st.Ingress)
	}
	if n := c.update(t, svc, c.nodes); n != 0 {
		t.Errorf("update during the create action sent %d requests, want 0", n)
	}
	if took := time.Since(start); took > 300*time.Millisecond {
		t.Errorf("create and update waited %s for the action", took)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "6 targets", func() bool { return len(c.LoadBalancerOf(t, svc).Targets) == 6 })
	fakecloudtest.Eventually(t, 20*time.Second, "the actions done", func() bool { return c.lbs.ActionsRunning() == 0 })
	// Polls: each of the create and the first three add_target actions
	// once 500 ms old (the hand-off hurries them), the last add_target at
	// 3 s old.
	if polls := c.FC.Requests("GET", "/load_balancers/actions"); polls > 5 {
		t.Errorf("%d polls, want at most 5", polls)
	}
	if adds := c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target"); adds != 4 {
		t.Errorf("%d add_target requests, want 4", adds)
	}
}

// TestLBResumedSyncFailureIsRetried: what fails after a hand-off is a
// Warning event and is tried again with back-off until it is done.
func TestLBResumedSyncFailureIsRetried(t *testing.T) {
	c := newLBCluster(t, 4, fakecloud.Options{ActionDuration: 200 * time.Millisecond})
	c.lbs.retryUnit = 50 * time.Millisecond
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes[:2])
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "POST", Path: "/load_balancers/*/actions/add_target", Status: 503, Count: 6}); err != nil {
		t.Fatal(err)
	}
	c.update(t, svc, c.nodes)
	fakecloudtest.Eventually(t, 20*time.Second, "SyncLoadBalancerFailed event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventLBSyncFailed, "web") })
	fakecloudtest.Eventually(t, 20*time.Second, "4 targets", func() bool { return len(c.LoadBalancerOf(t, svc).Targets) == 4 })
	if n := c.FC.Requests("DELETE", "/load_balancers/{id}"); n != 0 {
		t.Errorf("%d DELETEs", n)
	}
}

// TestLBFailedActionIsApplied again: an action that fails after the sync
// returned is undone by the API; the CCM notices and re-applies.
func TestLBFailedActionIsAppliedAgain(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{ActionDuration: 100 * time.Millisecond})
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes[:2])
	fakecloudtest.Eventually(t, 20*time.Second, "create action done", func() bool { return !c.lbs.actions.Busy(c.LoadBalancerOf(t, svc).ID) })
	if _, err := c.FC.AddActionFault(fakecloud.ActionFault{Command: "add_target", Count: 1, ErrorCode: "server_error", ErrorMessage: "simulated"}); err != nil {
		t.Fatal(err)
	}
	if err := c.lbs.UpdateLoadBalancer(t.Context(), "", svc, c.nodes); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "LoadBalancerActionFailed event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventLBActionFailed, "web") })
	fakecloudtest.Eventually(t, 20*time.Second, "the target added again", func() bool { return c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target") == 2 })
	fakecloudtest.Eventually(t, 20*time.Second, "the second add_target done", func() bool { return !c.lbs.actions.Busy(c.LoadBalancerOf(t, svc).ID) })
	if n := len(c.LoadBalancerOf(t, svc).Targets); n != 3 {
		t.Errorf("%d targets, want 3", n)
	}
}

// TestLBOutageDeletesNothingAndConverges: through 500s and hanging
// requests the syncs fail, nothing is deleted or duplicated, and the first
// sync after the outage converges.
func TestLBOutageDeletesNothingAndConverges(t *testing.T) {
	c := newLBCluster(t, 5, fakecloud.Options{})
	web := lbService("web", []int32{80})
	c.ensure(t, web, c.nodes[:3])
	c.clock.Advance(10 * time.Minute) // the store's listing is stale: the next sync lists
	for _, r := range []fakecloud.Rule{{Path: "/load_balancers/**", Status: 500}, {Path: "/load_balancers", Hang: true}} {
		if _, err := c.FC.AddFault(r); err != nil {
			t.Fatal(err)
		}
		for _, svc := range []*corev1.Service{web, lbService("api", []int32{80})} {
			if _, err := c.lbs.EnsureLoadBalancer(hangingCall(t), "", svc, c.nodes); err == nil {
				t.Errorf("fault %+v: EnsureLoadBalancer(%s) succeeded", r, svc.Name)
			}
		}
		if err := c.lbs.UpdateLoadBalancer(hangingCall(t), "", web, c.nodes); err == nil {
			t.Errorf("fault %+v: UpdateLoadBalancer succeeded", r)
		}
		c.FC.ClearFaults()
	}
	if n := c.FC.Requests("DELETE", "/load_balancers/{id}"); n != 0 {
		t.Errorf("%d DELETEs during the outage", n)
	}
	c.ensure(t, web, c.nodes)
	c.ensure(t, lbService("api", []int32{80}), c.nodes)
	if all := c.LoadBalancers(t); len(all) != 2 {
		t.Fatalf("%d load balancers, want 2", len(all))
	}
	if got := len(c.LoadBalancerOf(t, web).Targets); got != 5 {
		t.Errorf("%d targets after the outage, want 5", got)
	}
}

// TestLBOneResumePerService: resumes asked for again before the first
// runs replace it, so failures reaching resume from two sides (a failed
// action and the failed sync waiting on it) do not multiply the retries.
func TestLBOneResumePerService(t *testing.T) {
	c := newLBCluster(t, 4, fakecloud.Options{})
	c.lbs.retryUnit = time.Hour // a failed resume is not tried again within the test
	svc := lbService("web", []int32{80})
	uid := string(svc.UID)
	c.ensure(t, svc, c.nodes[:2])
	c.lbs.mu.Lock()
	c.lbs.last[uid] = lastSync{svc: svc, nodes: c.nodes, gen: c.lbs.last[uid].gen} // two more targets wanted
	c.lbs.mu.Unlock()
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "POST", Path: "/load_balancers/*/actions/add_target", Status: 503}); err != nil {
		t.Fatal(err)
	}
	const addTarget = "/load_balancers/{id}/actions/add_target"
	for range 5 {
		c.lbs.resume(uid, 20*time.Millisecond, 0)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "the resumed sync", func() bool { return c.FC.Requests("POST", addTarget) > 0 })
	time.Sleep(200 * time.Millisecond) // room for the other four, were they still pending
	if n := c.FC.Requests("POST", addTarget); n != 1 {
		t.Errorf("%d add_target requests from 5 resumes asked for at once, want 1", n)
	}
}

// TestLBHandedOffSyncWarnsWhenActionsCannotBeRead: a sync handed off to
// the end of an action counts as done, so when the API fails the polls
// that would see that end, the Service gets one Warning event (not one a
// poll), and the change is applied once the API answers again.
func TestLBHandedOffSyncWarnsWhenActionsCannotBeRead(t *testing.T) {
	c := newLBCluster(t, 4, fakecloud.Options{ActionDuration: 200 * time.Millisecond})
	c.lbs.actions.Every = 100 * time.Millisecond
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes[:2])
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "GET", Path: "/load_balancers/actions", Status: 500}); err != nil {
		t.Fatal(err)
	}
	c.update(t, svc, c.nodes)
	fakecloudtest.Eventually(t, 20*time.Second, "SyncLoadBalancerFailed event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventLBSyncFailed, "web") })
	fakecloudtest.Eventually(t, 20*time.Second, "three failed polls", func() bool { return c.FC.Requests("GET", "/load_balancers/actions") >= 3 })
	if n := c.countEvents(t, corev1.EventTypeWarning, eventLBSyncFailed, "web"); n != 1 {
		t.Errorf("%d Warning events, want 1 for the whole outage", n)
	}
	c.FC.ClearFaults()
	fakecloudtest.Eventually(t, 20*time.Second, "4 targets", func() bool { return len(c.LoadBalancerOf(t, svc).Targets) == 4 })
}

// TestLBLockedByAnotherWarnsAtTheSecondTry: a load balancer locked by an
// action the CCM did not start is retried quietly once, then with a
// Warning event at every try until the lock goes.
func TestLBLockedByAnotherWarnsAtTheSecondTry(t *testing.T) {
	c := newLBCluster(t, 4, fakecloud.Options{ActionDuration: 200 * time.Millisecond})
	c.lbs.retryUnit = 50 * time.Millisecond
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes[:2])
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "POST", Path: "/load_balancers/*/actions/add_target", Code: "locked"}); err != nil {
		t.Fatal(err)
	}
	c.update(t, svc, c.nodes) // handed off to the create action's end
	fakecloudtest.Eventually(t, 20*time.Second, "two locked tries", func() bool { return c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target") >= 2 })
	fakecloudtest.Eventually(t, 20*time.Second, "SyncLoadBalancerFailed event", func() bool { return c.hasEvent(t, corev1.EventTypeWarning, eventLBSyncFailed, "web") })
	tries := c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target")
	if n := c.countEvents(t, corev1.EventTypeWarning, eventLBSyncFailed, "web"); n < 1 || uint64(n) >= tries {
		t.Errorf("%d Warning events after %d tries, want one fewer at most", n, tries)
	}
	c.FC.ClearFaults()
	fakecloudtest.Eventually(t, 20*time.Second, "4 targets", func() bool { return len(c.LoadBalancerOf(t, svc).Targets) == 4 })
}
