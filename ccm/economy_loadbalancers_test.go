//go:build !race

// The figures of a node joining and leaving 100 load balancers in
// BENCHMARKS.md, measured with the upstream service controller (which
// races with itself, see upstream_service_test.go); make economy prints
// them.

package ccm

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// actionTime is how long each fakecloud action runs in these figures.
const actionTime = time.Second

// TestLBEconomyNodeJoinAt100 runs 100 LoadBalancer Services through the
// upstream service controller (10 workers, as cmd/ccm), then a node joins
// and leaves.
func TestLBEconomyNodeJoinAt100(t *testing.T) {
	const services = 100
	c := newLBCluster(t, 11, fakecloud.Options{ActionDuration: actionTime})
	for _, n := range c.nodes[:10] {
		if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.runServices(t, 10)
	c.start(t)
	for i := range services {
		if _, err := c.kube.CoreV1().Services("default").Create(c.ctx, lbService(fmt.Sprintf("svc-%03d", i), []int32{80, 443}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fakecloudtest.Eventually(t, 20*time.Second, "100 load balancers with 10 targets", func() bool { return c.targetsEverywhere(t, services, 10) })
	fakecloudtest.Eventually(t, 20*time.Second, "every create action done", func() bool { return c.noActionRunning() })

	c.FC.ResetCounters()
	start := time.Now()
	if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, c.nodes[10], metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "the new node on all 100", func() bool { return c.targetsEverywhere(t, services, 11) })
	reached := time.Since(start)
	fakecloudtest.Eventually(t, 20*time.Second, "every add_target done", func() bool { return c.noActionRunning() })
	done := time.Since(start)
	join := c.Requests()
	if posts := c.FC.Requests("POST", "/load_balancers/{id}/actions/add_target"); posts != services {
		t.Errorf("%d add_target requests, want %d", posts, services)
	}

	c.FC.ResetCounters()
	if err := c.kube.CoreV1().Nodes().Delete(c.ctx, c.nodes[10].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "the node off all 100", func() bool { return c.targetsEverywhere(t, services, 10) })
	fakecloudtest.Eventually(t, 20*time.Second, "every remove_target done", func() bool { return c.noActionRunning() })
	leave := c.Requests()

	c.FC.ResetCounters()
	nodes := c.nodes[:10]
	for i := range services {
		if err := c.cloud.lbs.UpdateLoadBalancer(t.Context(), "", lbService(fmt.Sprintf("svc-%03d", i), []int32{80, 443}), nodes); err != nil {
			t.Fatal(err)
		}
	}
	noop := c.Requests()
	if noop != 0 {
		t.Errorf("100 no-op syncs sent %d requests, want 0", noop)
	}
	t.Logf("at %d load balancers (action time %s): join %d requests, on all after %s, actions done after %s; leave %d requests; 100 no-op syncs %d requests",
		services, actionTime, join, reached.Round(time.Millisecond), done.Round(time.Millisecond), leave, noop)
}

// targetsEverywhere reads fakecloud's state (no API request) and reports
// whether n load balancers exist, each with want targets.
func (c *lbCluster) targetsEverywhere(t *testing.T, n, want int) bool {
	t.Helper()
	raw, err := c.FC.Export()
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		LoadBalancers []struct {
			Targets []json.RawMessage `json:"targets"`
		} `json:"load_balancers"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.LoadBalancers) != n {
		return false
	}
	for _, lb := range st.LoadBalancers {
		if len(lb.Targets) != want {
			return false
		}
	}
	return true
}

func (c *lbCluster) noActionRunning() bool {
	return c.cloud.lbs.ActionsRunning() == 0
}
