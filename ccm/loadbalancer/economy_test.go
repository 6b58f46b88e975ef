// The figures of a load balancer's creation in BENCHMARKS.md; make
// economy prints them.

package loadbalancer

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// actionTime is how long each fakecloud action runs in these figures.
const actionTime = time.Second

func TestLBEconomyCreate(t *testing.T) {
	c := newLBCluster(t, 10, fakecloud.Options{ActionDuration: actionTime})
	start := time.Now()
	st, n := c.ensure(t, lbService("web", []int32{80, 443}), c.nodes)
	took := time.Since(start)
	lb := c.LoadBalancerOf(t, lbService("web", []int32{80, 443}))
	if len(st.Ingress) != 3 || len(lb.Targets) != 10 || len(lb.Services) != 2 || len(lb.PrivateNet) != 1 {
		t.Fatalf("incomplete load balancer: status %v, %d targets, %d services, %d networks", st.Ingress, len(lb.Targets), len(lb.Services), len(lb.PrivateNet))
	}
	// The first create also lists the labelled load balancers and the types.
	if n != 3 {
		t.Errorf("create: %d requests, want 3", n)
	}
	_, second := c.ensure(t, lbService("api", []int32{80, 443}), c.nodes)
	if second != 1 {
		t.Errorf("a later create: %d requests, want 1", second)
	}
	t.Logf("create (2 ports, 10 targets, network; action time %s): %d requests (first of the process), %d after; status after %s",
		actionTime, n, second, took.Round(time.Millisecond))
}

// TestLBEconomyCreateManyAtOnce: Services created together (the service
// controller's workers run them at once) list the labelled load balancers
// and the types once between them, then send one create each.
func TestLBEconomyCreateManyAtOnce(t *testing.T) {
	c := newLBCluster(t, 10, fakecloud.Options{ActionDuration: actionTime})
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", lbService(fmt.Sprintf("web-%d", i), []int32{80}), c.nodes); err != nil {
				t.Errorf("web-%d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if types, lists, n := c.FC.Requests("GET", "/load_balancer_types"), c.FC.Requests("GET", "/load_balancers"), c.Requests(); types != 1 || lists != 1 || n != 12 {
		t.Errorf("10 creates at once: %d requests (%d type listings, %d load balancer listings), want 12: one of each, then 10 creates", n, types, lists)
	}
}

// TestLBEconomyNodeReplaced: a Node replaced under many load balancers
// (one sync each, ten at a time, as the service controller runs them)
// costs the two target changes of each, and a few polls between them all:
// each sync sends its first change and hands the second to the end of
// that action.
func TestLBEconomyNodeReplaced(t *testing.T) {
	const services = 20
	c := newLBCluster(t, 6, fakecloud.Options{ActionDuration: actionTime})
	svcs := make([]*corev1.Service, services)
	for i := range svcs {
		svcs[i] = lbService(fmt.Sprintf("web-%d", i), []int32{80})
		c.ensure(t, svcs[i], c.nodes[:5])
	}
	fakecloudtest.Eventually(t, 20*time.Second, "the creates done", func() bool { return c.lbs.ActionsRunning() == 0 })
	c.FC.ResetCounters()
	work := make(chan *corev1.Service)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for svc := range work {
				if err := c.lbs.UpdateLoadBalancer(t.Context(), "", svc, c.nodes[1:]); err != nil {
					t.Errorf("%s: %v", svc.Name, err)
				}
			}
		}()
	}
	for _, svc := range svcs {
		work <- svc
	}
	close(work)
	wg.Wait()
	fakecloudtest.Eventually(t, 20*time.Second, "every load balancer on the new nodes", func() bool {
		for _, svc := range svcs {
			if got := targetIDs(c.LoadBalancerOf(t, svc)); !sameIDs(got, serverIDs(c.nodes[1:])) {
				return false
			}
		}
		return c.lbs.ActionsRunning() == 0
	})
	n := c.Requests() - c.FC.Requests("GET", "/load_balancers") // the test's own reads
	if polls := c.FC.Requests("GET", "/load_balancers/actions"); n > 2*services+10 {
		t.Errorf("a Node replaced under %d load balancers: %d requests (%d polls), want at most %d", services, n, polls, 2*services+10)
	}
	t.Logf("a Node replaced under %d load balancers: %d requests, %d of them polls", services, n, c.FC.Requests("GET", "/load_balancers/actions"))
}

func sameIDs(a, b []int64) bool {
	return cmp.Equal(a, b, cmpopts.SortSlices(func(x, y int64) bool { return x < y }))
}

// TestLBEconomyDelete: a Service deleted costs at most 3 requests (the
// official CCM's figure): the delete alone when no action runs on its
// load balancer, the polls for the running one and the delete when it was
// just created; no listing, since the CCM knows its load balancer.
func TestLBEconomyDelete(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{ActionDuration: actionTime})
	for _, tt := range []struct {
		name string
		wait time.Duration // between the create and the delete
	}{
		{name: "at rest", wait: 2 * actionTime},
		{name: "its create action running", wait: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := lbService("web-"+strings.ReplaceAll(tt.name, " ", "-"), []int32{80})
			c.ensure(t, svc, c.nodes)
			time.Sleep(tt.wait)
			c.FC.ResetCounters()
			if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
				t.Fatal(err)
			}
			if n, deletes := c.Requests(), c.FC.Requests("DELETE", "/load_balancers/{id}"); n > 3 || deletes != 1 {
				t.Errorf("delete: %d requests (%v), want at most 3 with one delete", n, c.FC.Counters())
			}
			if lbs := c.LoadBalancers(t); len(lbs) != 0 {
				t.Errorf("%d load balancers left", len(lbs))
			}
		})
	}
}
