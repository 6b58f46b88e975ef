//go:build !race

package ccm

import (
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// sweepCluster is a cluster for one run of the fault matrix, with what
// its invariants look at.
type sweepCluster struct {
	*cluster
	servers int
	joined  []string // the Nodes registered, which must stay while their servers exist
	// What runs, so the invariants check its part of the state.
	lifecycle, routes, lbs, addresses bool
}

// The client as cmd/ccm builds it, but with hcloud-go's five retries
// where cmd/ccm has three, waits of 50 ms doubling to 3 s, and a request
// given up after a second instead of 30 s: the matrix's outages then
// cost seconds, and its retries are as many as hcloud-go's own default.
var sweepBuild = buildOptions{httpTimeout: time.Second, retry: &hcloud.RetryOpts{MaxRetries: 5,
	BackoffFunc: hcloud.ExponentialBackoffWithOpts(hcloud.ExponentialBackoffOpts{Base: 50 * time.Millisecond, Multiplier: 2, Cap: 3 * time.Second})}}

// sweepReserve is HCLOUD_BUDGET_RESERVE in the matrix: after a 429 the
// CCM's background work waits for a second per reserved request (200 by
// default), so a run keeps 5.
const sweepReserve = 5

// sweepActionDuration is how long fakecloud's actions run, so the CCM
// follows them as it follows the API's, which take seconds.
const sweepActionDuration = 500 * time.Millisecond

// newSweepCluster starts fakecloud with the API's rate limit (so every
// answer carries the RateLimit headers the CCM paces by) and the CCM with
// load balancers and routes on the network k8s.
func newSweepCluster(t *testing.T, op sweepOp) *sweepCluster {
	t.Helper()
	fx := newCloud(t, op.servers, fakecloud.Options{RateLimit: 3600, ActionDuration: sweepActionDuration,
		Realism: fakecloud.Realism{Mode: *faultsReal}})
	clk := fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	c := newClusterWith(t, clk, fx, sweepBuild, func(c *Config) {
		c.LoadBalancers = annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1"}
		c.BudgetReserve = sweepReserve
	})
	return &sweepCluster{cluster: c, servers: op.servers}
}

// join registers server i's Node as the node controller leaves it:
// initialised and Ready.
func (c *sweepCluster) join(t *testing.T, i int) {
	t.Helper()
	s := c.Server(t, name(i))
	c.joinServer(t, s)
	c.joined = append(c.joined, s.Name)
}

// joinAll joins the first n servers' Nodes.
func (c *sweepCluster) joinAll(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		c.join(t, i)
	}
}

func (c *sweepCluster) createService(t *testing.T, svc *corev1.Service) {
	t.Helper()
	if _, err := c.kube.CoreV1().Services(svc.Namespace).Create(c.ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (c *sweepCluster) updateService(t *testing.T, name string, change func(*corev1.Service)) {
	t.Helper()
	s, err := c.kube.CoreV1().Services("default").Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	change(s)
	if _, err := c.kube.CoreV1().Services("default").Update(c.ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// await waits, in a setup, until every invariant holds.
func (c *sweepCluster) await(t *testing.T, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		broken := c.broken(t)
		if len(broken) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("setup: %s never converged: %v", what, broken)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// warned reports whether the Service has a Warning event.
func (c *sweepCluster) warned(t *testing.T, service string) bool {
	t.Helper()
	l, err := c.kube.CoreV1().Events("").List(c.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Items {
		if e.Type == corev1.EventTypeWarning && e.InvolvedObject.Kind == "Service" && e.InvolvedObject.Name == service {
			return true
		}
	}
	return false
}

// network reads the network k8s, behind the CCM's back.
func (c *sweepCluster) network(t *testing.T) *hcloud.Network {
	t.Helper()
	nw, _, err := c.Client.Network.GetByName(c.ctx, "k8s")
	if err != nil || nw == nil {
		t.Fatalf("network k8s: %v %v", nw, err)
	}
	return nw
}
