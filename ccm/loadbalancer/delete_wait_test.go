package loadbalancer

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestLBRecreatedOnItsPrimaryIP: deleting a Service on a Primary IP
// returns only once the API has finished deleting its load balancer, so a
// Service created right after on the same Primary IP gets its address;
// the wait costs a poll of the action, and a single DELETE.
func TestLBRecreatedOnItsPrimaryIP(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{ActionDuration: 500 * time.Millisecond})
	pip := c.primaryIP(t, "web", "ipv4", "fsn1")
	web := lbService("web", []int32{80}, "public-net-ipv4", id(pip))
	c.ensure(t, web, c.nodes)
	c.FC.ResetCounters()
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", web); err != nil {
		t.Fatalf("deletion: %v", err)
	}
	if dels, polls := c.FC.Requests("DELETE", "/load_balancers/{id}"), c.FC.Requests("GET", "/load_balancers/actions"); dels != 1 || polls == 0 {
		t.Errorf("%d DELETEs and %d polls of actions, want 1 and some", dels, polls)
	}
	again := lbService("web-again", []int32{80}, "public-net-ipv4", id(pip))
	st, err := c.lbs.EnsureLoadBalancer(t.Context(), "", again, c.nodes)
	if err != nil {
		t.Fatalf("a Service on the Primary IP right after the deletion: %v", err)
	}
	if len(st.Ingress) == 0 || st.Ingress[0].IP != pip.IP.String() {
		t.Errorf("status %+v, want the Primary IP's address %s again", st.Ingress, pip.IP)
	}
}

// TestLBDeletionAwaitsItsAction: a delete action that outlasts a try
// keeps the Service's finalizer (an api.RetryError; the load balancer
// still exists for the controller) until it ends, without a second
// DELETE; one that fails is the deletion's error; one the API never
// finishes lets the Service go after deleteWaitMax, with a Warning.
func TestLBDeletionAwaitsItsAction(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   fakecloud.ActionFault
		advance time.Duration // the Manager's clock between tries
		failed  bool          // a try's error is the action's failure: the first, or a later one
		first   bool
		warning bool // LoadBalancerDeletionUnconfirmed
	}{
		{name: "outlasts a try", fault: fakecloud.ActionFault{Delay: fakecloud.Duration(1500 * time.Millisecond)}},
		{name: "fails at once", fault: fakecloud.ActionFault{ErrorCode: "server_error"}, failed: true, first: true},
		{name: "fails while awaited", fault: fakecloud.ActionFault{ErrorCode: "server_error", Delay: fakecloud.Duration(300 * time.Millisecond)}, failed: true},
		{name: "never ends", fault: fakecloud.ActionFault{Delay: fakecloud.Duration(time.Hour)}, advance: deleteWaitMax + time.Minute, warning: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newLBCluster(t, 1, fakecloud.Options{})
			c.lbs.actionWait = 200 * time.Millisecond
			svc := lbService("web", []int32{80})
			c.ensure(t, svc, c.nodes)
			tc.fault.Command = "delete_load_balancer"
			if _, err := c.FC.AddActionFault(tc.fault); err != nil {
				t.Fatal(err)
			}
			now := metav1.Now()
			svc.DeletionTimestamp = &now
			c.FC.ResetCounters()
			err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc)
			switch {
			case err == nil:
				t.Fatal("the first try let the Service go while the delete action had not ended")
			case tc.first != strings.Contains(err.Error(), "server_error"):
				t.Fatalf("first try: %v; want the action's failure: %v", err, tc.first)
			case !tc.first && !isRetry(err):
				t.Fatalf("first try: %v, want an api.RetryError", err)
			}
			if _, exists, err := c.lbs.GetLoadBalancer(t.Context(), "", svc); err != nil || exists == tc.first {
				t.Errorf("GetLoadBalancer after the first try: exists %v, %v; want %v", exists, err, !tc.first)
			}
			c.clock.Advance(tc.advance)
			failed := tc.first
			for range 20 { // the controller's tries, 200 ms apart here
				if err = c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err == nil {
					break
				}
				failed = failed || strings.Contains(err.Error(), "server_error")
				time.Sleep(200 * time.Millisecond)
			}
			if err != nil || failed != tc.failed {
				t.Fatalf("the last try: %v; a try failed with the action: %v, want %v", err, failed, tc.failed)
			}
			if n := c.FC.Requests("DELETE", "/load_balancers/{id}"); n != 1 {
				t.Errorf("%d DELETEs, want 1", n)
			}
			if got := c.hasEvent(t, corev1.EventTypeWarning, eventLBDeleteUnconfirmed, "web"); got != tc.warning {
				t.Errorf("LoadBalancerDeletionUnconfirmed: %v, want %v", got, tc.warning)
			}
			if _, exists, err := c.lbs.GetLoadBalancer(t.Context(), "", svc); err != nil || exists {
				t.Errorf("GetLoadBalancer once the Service may go: exists %v, %v", exists, err)
			}
		})
	}
}

// TestLBRecreatedWhileItsDeletionRuns: a Service that wants a load
// balancer again while the deletion of its last one still runs (its type
// changed back) gets a new one, and its next deletion deletes that one,
// even when the CCM no longer keeps it.
func TestLBRecreatedWhileItsDeletionRuns(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	c.lbs.actionWait = 100 * time.Millisecond
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes)
	if _, err := c.FC.AddActionFault(fakecloud.ActionFault{Command: "delete_load_balancer", Delay: fakecloud.Duration(time.Hour), Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err == nil || !isRetry(err) {
		t.Fatalf("deletion while its action runs: %v, want an api.RetryError", err)
	}
	c.ensure(t, svc, c.nodes)
	c.lbs.store.invalidate(string(svc.UID))
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
		t.Fatalf("deleting the new load balancer: %v", err)
	}
	if lbs := c.LoadBalancers(t); len(lbs) != 0 {
		t.Errorf("%d load balancers left, want none", len(lbs))
	}
}
