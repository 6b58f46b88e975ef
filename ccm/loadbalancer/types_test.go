package loadbalancer

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// deprecate marks a load balancer type deprecated, unavailable after the
// Manager's now plus after (negative: already unavailable).
func (c *lbCluster) deprecate(t *testing.T, lbType string, after time.Duration) time.Time {
	t.Helper()
	at := c.clock.Now().Add(after)
	if err := c.FC.Apply(fakecloud.Event{Type: "deprecate_load_balancer_type", LoadBalancerType: lbType,
		Announced: at.Add(-90 * 24 * time.Hour), UnavailableAfter: at}); err != nil {
		t.Fatal(err)
	}
	return at
}

// messages are the messages of the events of that reason on the object.
func (c *lbCluster) messages(reason, object string) []string {
	var out []string
	for _, e := range c.rec.about(object) {
		if e.Reason == reason && e.Type == corev1.EventTypeWarning {
			out = append(out, e.Message)
		}
	}
	return out
}

// TestLBTypeDeprecatedWarns: a type whose unavailable_after is ahead is
// ordered with the official CCM's warning, and the warning comes again at
// each sync of the load balancer, which sends nothing.
func TestLBTypeDeprecatedWarns(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	c.deprecate(t, "lb11", 30*24*time.Hour)
	svc := lbService("web", []int32{80})
	c.ensure(t, svc, c.nodes)
	if n := c.FC.Requests("POST", "/load_balancers"); n != 1 {
		t.Fatalf("%d creates, want 1", n)
	}
	want := `Load Balancer Type "lb11" is deprecated and will no longer be available for order as of 2026-12-21`
	if got := c.messages(eventTypeDeprecated, "web"); len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q, want one %q", got, want)
	}
	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("a sync of the load balancer sent %d requests, want 0", n)
	}
	if got := c.messages(eventTypeDeprecated, "web"); len(got) != 2 {
		t.Errorf("%d warnings after the second sync, want 2", len(got))
	}
}

// TestLBTypeUnavailableIsNotOrdered: past unavailable_after a type is
// neither created nor changed to, with a Warning naming the types that
// can be ordered; a load balancer that has it goes on, warned.
func TestLBTypeUnavailableIsNotOrdered(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	old := lbService("old", []int32{80})
	c.ensure(t, old, c.nodes) // lb11, before the deprecation
	c.deprecate(t, "lb11", -24*time.Hour)
	c.deprecate(t, "lb21", -24*time.Hour)
	c.clock.Advance(2 * time.Hour) // the types are listed again
	c.FC.ResetCounters()

	// A new load balancer of the type is refused before anything is sent.
	fresh := lbService("fresh", []int32{80})
	_, err := c.lbs.EnsureLoadBalancer(t.Context(), "", fresh, c.nodes)
	refusal := `Load Balancer Type "lb11" is unavailable and can no longer be ordered: set one of lb31 with the annotation load-balancer.hetzner.cloud/type or HCLOUD_LOAD_BALANCERS_TYPE`
	if err == nil || err.Error() != refusal {
		t.Errorf("create: %v, want %q", err, refusal)
	}
	if got := c.messages(eventTypeUnavailable, "fresh"); len(got) != 1 || got[0] != refusal {
		t.Errorf("warnings %q, want one %q", got, refusal)
	}
	if n := c.FC.Requests("POST", "/load_balancers"); n != 0 {
		t.Errorf("%d creates sent for an unavailable type, want 0", n)
	}

	// The load balancer that has the type goes on: its sync succeeds.
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", old, c.nodes[:1]); err != nil {
		t.Fatalf("the sync of a load balancer of an unavailable type failed: %v", err)
	}
	if got := len(c.LoadBalancerOf(t, old).Targets); got != 1 {
		t.Errorf("%d targets, want 1: the sync applied nothing", got)
	}
	if got := c.messages(eventTypeDeprecated, "old"); len(got) != 1 || !strings.Contains(got[0], `"lb11" is unavailable and can no longer be ordered: load balancers of the type go on`) ||
		!strings.Contains(got[0], "set one of lb31") {
		t.Errorf("warnings %q, want one that lb11 goes on and lb31 can be chosen", got)
	}

	// An upgrade to an unavailable type is not sent; the rest is.
	old.Annotations["load-balancer.hetzner.cloud/type"] = "lb21"
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", old, c.nodes); err != nil {
		t.Fatal(err)
	}
	lb := c.LoadBalancerOf(t, old)
	if n := c.FC.Requests("POST", "/load_balancers/{id}/actions/change_type"); n != 0 || lb.LoadBalancerType.Name != "lb11" || len(lb.Targets) != 2 {
		t.Errorf("%d change_type sent, type %s, %d targets; want none, lb11, 2", n, lb.LoadBalancerType.Name, len(lb.Targets))
	}
	if got := c.messages(eventTypeUnavailable, "old"); len(got) != 1 || !strings.Contains(got[0], `"lb21" is unavailable`) || !strings.Contains(got[0], "keeps type lb11") {
		t.Errorf("warnings %q, want one that lb21 is unavailable and lb11 kept", got)
	}

	// One that can be ordered still is.
	old.Annotations["load-balancer.hetzner.cloud/type"] = "lb31"
	c.ensure(t, old, c.nodes)
	if lb := c.LoadBalancerOf(t, old); lb.LoadBalancerType.Name != "lb31" {
		t.Errorf("type %s after asking lb31", lb.LoadBalancerType.Name)
	}
}

// TestLBTypesListedHourly: the types are listed once an hour, each ask
// counted a hit or a miss, so a deprecation announced while the CCM runs
// is seen within the hour, and a sync within it sends no listing.
func TestLBTypesListedHourly(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	var hits, misses int
	c.lbs.store.typesCounted = func(hit bool) {
		if hit {
			hits++
		} else {
			misses++
		}
	}
	svc := lbService("web", []int32{80}, "type", "lb11")
	for range 3 {
		c.ensure(t, svc, c.nodes)
	}
	if n := c.FC.Requests("GET", "/load_balancer_types"); n != 1 || hits != 2 || misses != 1 {
		t.Errorf("3 syncs: %d listings, %d hits, %d misses; want 1, 2, 1", n, hits, misses)
	}
	c.deprecate(t, "lb11", 30*24*time.Hour)
	c.clock.Advance(59 * time.Minute)
	c.ensure(t, svc, c.nodes)
	if n := c.FC.Requests("GET", "/load_balancer_types"); n != 1 || len(c.messages(eventTypeDeprecated, "web")) != 0 {
		t.Errorf("within the hour: %d listings, want 1 and no warning yet", n)
	}
	c.clock.Advance(2 * time.Minute)
	c.ensure(t, svc, c.nodes)
	if n := c.FC.Requests("GET", "/load_balancer_types"); n != 2 || misses != 2 || hits != 3 {
		t.Errorf("after the hour: %d listings, %d hits, %d misses; want 2, 3, 2", n, hits, misses)
	}
	if got := c.messages(eventTypeDeprecated, "web"); len(got) != 1 {
		t.Errorf("warnings %q, want the deprecation seen once listed again", got)
	}
	// A listing that fails keeps the last one in use.
	c.clock.Advance(2 * time.Hour)
	if _, err := c.FC.AddFault(fakecloud.Rule{Method: "GET", Path: "/load_balancer_types", Status: 500}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes); err != nil {
		t.Errorf("a sync while the types cannot be listed: %v", err)
	}
}

// TestLBTypeUnconfiguredWarns: with neither the type annotation nor
// HCLOUD_LOAD_BALANCERS_TYPE, each sync warns as the official CCM does;
// either one, even lb11, silences it.
func TestLBTypeUnconfiguredWarns(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	want := `Load Balancer Type unconfigured: this will be required in the future, set it with the annotation "load-balancer.hetzner.cloud/type" or cluster-wide with the environment variable "HCLOUD_LOAD_BALANCERS_TYPE"`
	bare := lbService("bare", []int32{80})
	c.ensure(t, bare, c.nodes)
	c.ensure(t, bare, c.nodes)
	if got := c.messages(eventTypeUnconfigured, "bare"); len(got) != 2 || got[0] != want {
		t.Errorf("warnings %q, want %q at each of 2 syncs", got, want)
	}
	typed := lbService("typed", []int32{80}, "type", "lb11")
	c.ensure(t, typed, c.nodes)
	c.lbs.defaults.TypeSet = true // HCLOUD_LOAD_BALANCERS_TYPE=lb11
	other := lbService("other", []int32{80})
	c.ensure(t, other, c.nodes)
	for _, name := range []string{"typed", "other"} {
		if got := c.messages(eventTypeUnconfigured, name); len(got) != 0 {
			t.Errorf("%s: warnings %q, want none", name, got)
		}
	}
	// An update of a Service without a load balancer warns of nothing.
	gone := lbService("gone", []int32{80})
	c.lbs.defaults.TypeSet = false
	c.update(t, gone, c.nodes)
	if got := c.messages(eventTypeUnconfigured, "gone"); len(got) != 0 {
		t.Errorf("warnings %q for a Service with no load balancer", got)
	}
}
