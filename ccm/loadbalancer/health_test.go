package loadbalancer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

const healthInterval = time.Minute

// healthCluster is an lbCluster whose Manager writes the condition into a
// fake Kubernetes holding svcs, each synced to the cluster's Nodes.
func healthCluster(t *testing.T, n int, svcs ...*corev1.Service) (*lbCluster, *fake.Clientset) {
	t.Helper()
	c := newLBCluster(t, n, fakecloud.Options{})
	kube := fake.NewClientset()
	for _, svc := range svcs {
		if _, err := kube.CoreV1().Services(svc.Namespace).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.ensure(t, svc, c.nodes)
	}
	c.lbs.healthOpts = HealthOptions{Services: kube.CoreV1(), Interval: healthInterval}
	return c, kube
}

// read advances the clock by an interval, reads the health and returns
// the requests it sent.
func (c *lbCluster) read(t *testing.T) uint64 {
	t.Helper()
	c.clock.Advance(healthInterval)
	before := c.Requests()
	if err := c.lbs.readHealth(t.Context()); err != nil {
		t.Fatalf("readHealth: %v", err)
	}
	return c.Requests() - before
}

// condition is the Service's target health condition in Kubernetes.
func condition(t *testing.T, kube *fake.Clientset, svc *corev1.Service) *metav1.Condition {
	t.Helper()
	got, err := kube.CoreV1().Services(svc.Namespace).Get(t.Context(), svc.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return findCondition(got.Status.Conditions)
}

// patches counts the status patches sent to Kubernetes.
func patches(kube *fake.Clientset) int {
	n := 0
	for _, a := range kube.Actions() {
		if a.GetVerb() == "patch" && a.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

func (c *lbCluster) setHealth(t *testing.T, svc *corev1.Service, node int, port int, health string) {
	t.Helper()
	id, _ := providerid.ToServerID(c.nodes[node].Spec.ProviderID)
	if err := c.FC.Apply(fakecloud.Event{Type: "set_target_health", LoadBalancer: c.LoadBalancerOf(t, svc).ID, Server: id, ListenPort: port, Health: health}); err != nil {
		t.Fatal(err)
	}
}

// gather is every health and traffic series, as name{label=value,...}.
func gather(t *testing.T, l *Manager) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(l.HealthCollector())
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, lp := range m.GetLabel() {
				labels = append(labels, lp.GetName()+"="+lp.GetValue())
			}
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	return out
}

// TestTargetHealthFollowsTheAPI: the condition, the events and the metrics
// follow the targets' health as the API reports it, from healthy to some
// unhealthy, none healthy, and back; a reading that changes nothing
// writes nothing.
func TestTargetHealthFollowsTheAPI(t *testing.T) {
	svc := lbService("web", []int32{80, 443})
	// Another controller's condition and the service controller's status stay.
	other := metav1.Condition{Type: "example.com/Other", Status: metav1.ConditionTrue, Reason: "Other", LastTransitionTime: metav1.Now()}
	svc.Status = corev1.ServiceStatus{Conditions: []metav1.Condition{other}, LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}}}
	c, kube := healthCluster(t, 3, svc)
	c.read(t)
	if got, err := kube.CoreV1().Services("default").Get(t.Context(), "web", metav1.GetOptions{}); err != nil ||
		len(got.Status.Conditions) != 2 || !slices.ContainsFunc(got.Status.Conditions, func(c metav1.Condition) bool { return c.Type == other.Type }) ||
		len(got.Status.LoadBalancer.Ingress) != 1 {
		t.Fatalf("status after the condition was written: %+v (%v)", got.Status, err)
	}
	cond := condition(t, kube, svc)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != ReasonAllTargetsHealthy || cond.Message != "3 of 3 targets healthy on every port" {
		t.Fatalf("condition %+v, want True %s", cond, ReasonAllTargetsHealthy)
	}
	if c.countEvents(t, corev1.EventTypeWarning, eventTargetsUnhealthy, "web")+c.countEvents(t, corev1.EventTypeNormal, eventTargetsHealthy, "web") != 0 {
		t.Errorf("events for a first healthy reading: %v", c.rec.about("web"))
	}
	c.read(t)
	if n := patches(kube); n != 1 {
		t.Errorf("%d status patches after two equal readings, want 1", n)
	}

	c.setHealth(t, svc, 1, 443, "unhealthy")
	c.read(t)
	cond = condition(t, kube, svc)
	want := "1 of 3 targets unhealthy: node-0001 (port 443: unspecified)"
	if cond.Status != metav1.ConditionFalse || cond.Reason != ReasonSomeTargetsUnhealthy || cond.Message != want {
		t.Fatalf("condition %s %s %q, want False %s %q", cond.Status, cond.Reason, cond.Message, ReasonSomeTargetsUnhealthy, want)
	}
	if n := c.countEvents(t, corev1.EventTypeWarning, eventTargetsUnhealthy, "web"); n != 1 {
		t.Errorf("%d Warning %s events, want 1", n, eventTargetsUnhealthy)
	}
	m := gather(t, c.lbs)
	for series, v := range map[string]float64{
		"hcloud_ccm_load_balancer_target_health{namespace=default,node=node-0001,service=web,status=unhealthy}": 1,
		"hcloud_ccm_load_balancer_target_health{namespace=default,node=node-0001,service=web,status=healthy}":   0,
		"hcloud_ccm_load_balancer_target_health{namespace=default,node=node-0000,service=web,status=healthy}":   1,
		"hcloud_ccm_load_balancer_targets{namespace=default,service=web,status=unhealthy}":                      1,
		"hcloud_ccm_load_balancer_targets{namespace=default,service=web,status=healthy}":                        2,
	} {
		if got, ok := m[series]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", series, got, ok, v)
		}
	}

	for i := range 3 {
		c.setHealth(t, svc, i, 0, "unhealthy")
	}
	c.read(t)
	if cond = condition(t, kube, svc); cond.Status != metav1.ConditionFalse || cond.Reason != ReasonNoHealthyTarget {
		t.Fatalf("condition %s %s, want False %s", cond.Status, cond.Reason, ReasonNoHealthyTarget)
	}
	// Two more Nodes turned unhealthy: told again.
	if n := c.countEvents(t, corev1.EventTypeWarning, eventTargetsUnhealthy, "web"); n != 2 {
		t.Errorf("%d Warning %s events, want 2", n, eventTargetsUnhealthy)
	}
	transition := cond.LastTransitionTime

	for i := range 3 {
		c.setHealth(t, svc, i, 0, "checked")
	}
	c.read(t)
	if cond = condition(t, kube, svc); cond.Status != metav1.ConditionTrue || cond.Reason != ReasonAllTargetsHealthy || !transition.Before(&cond.LastTransitionTime) {
		t.Fatalf("condition %+v, want True %s with a later transition than %v", cond, ReasonAllTargetsHealthy, transition)
	}
	if n := c.countEvents(t, corev1.EventTypeNormal, eventTargetsHealthy, "web"); n != 1 {
		t.Errorf("%d Normal %s events, want 1", n, eventTargetsHealthy)
	}
}

// TestTargetHealthCostsNoRequest: the health of many load balancers is
// one listing an interval, whatever their number, shared with the syncs:
// a sync after it sends nothing, and a reading after a sync's listing
// sends nothing either. With no Service, nothing is read.
func TestTargetHealthCostsNoRequest(t *testing.T) {
	var svcs []*corev1.Service
	for i := range 5 {
		svcs = append(svcs, lbService(fmt.Sprintf("web-%d", i), []int32{80}))
	}
	c, kube := healthCluster(t, 3, svcs...)
	lists := c.FC.Requests("GET", "/load_balancers")
	if n := c.read(t); n != 1 || c.FC.Requests("GET", "/load_balancers") != lists+1 {
		t.Errorf("a reading of 5 load balancers' health: %d requests, want 1 listing", n)
	}
	for _, svc := range svcs {
		if n := c.update(t, svc, c.nodes); n != 0 {
			t.Errorf("a sync after the health's listing: %d requests, want 0", n)
		}
		if cond := condition(t, kube, svc); cond == nil || cond.Status != metav1.ConditionTrue {
			t.Errorf("%s: condition %+v, want True", svc.Name, cond)
		}
	}
	// A sync lists when its max age (5 minutes) is past; the reading
	// half an interval later uses that listing.
	c.clock.Advance(5 * time.Minute)
	c.update(t, svcs[0], c.nodes)
	c.clock.Advance(-healthInterval / 2)
	if n := c.read(t); n != 0 {
		t.Errorf("a reading after a sync's listing: %d requests, want 0", n)
	}

	empty := newLBCluster(t, 1, fakecloud.Options{})
	empty.lbs.healthOpts = HealthOptions{Interval: healthInterval}
	if n := empty.read(t); n != 0 {
		t.Errorf("a reading with no Service: %d requests, want 0", n)
	}
}

// TestTargetHealthAfterRestart: a new process finds the condition the old
// one wrote; health unchanged, it neither writes nor warns again.
func TestTargetHealthAfterRestart(t *testing.T) {
	svc := lbService("web", []int32{80})
	c, kube := healthCluster(t, 2, svc)
	c.setHealth(t, svc, 0, 0, "unhealthy")
	c.read(t)
	if n := c.countEvents(t, corev1.EventTypeWarning, eventTargetsUnhealthy, "web"); n != 1 {
		t.Fatalf("%d Warning events, want 1", n)
	}
	written, err := kube.CoreV1().Services("default").Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	next := New(c.Client, Options{Defaults: c.lbs.defaults, NetworkID: c.networkID, NetworkZone: "eu-central", MaxAge: 5 * time.Minute, Now: c.clock.Now})
	rec := &recorder{}
	next.Start(t.Context(), rec)
	next.healthOpts = c.lbs.healthOpts
	if _, err := next.EnsureLoadBalancer(t.Context(), "", written, c.nodes); err != nil {
		t.Fatal(err)
	}
	before := patches(kube)
	c.clock.Advance(healthInterval)
	if err := next.readHealth(t.Context()); err != nil {
		t.Fatal(err)
	}
	told := slices.ContainsFunc(rec.about("web"), func(e event) bool { return e.Reason == eventTargetsUnhealthy || e.Reason == eventTargetsHealthy })
	if n := patches(kube) - before; n != 0 || told {
		t.Errorf("after a restart, unchanged health: %d patches, events %v; want none", n, rec.about("web"))
	}
}

// TestTargetHealthGoesWithTheService: a deleted Service's series go, so
// the metrics hold only Services served.
func TestTargetHealthGoesWithTheService(t *testing.T) {
	a, b := lbService("a", []int32{80}), lbService("b", []int32{80})
	c, _ := healthCluster(t, 2, a, b)
	c.read(t)
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", a); err != nil {
		t.Fatal(err)
	}
	c.read(t)
	for series := range gather(t, c.lbs) {
		if strings.Contains(series, "service=a,") || strings.Contains(series, "service=a}") {
			t.Errorf("series of the deleted Service: %s", series)
		}
	}
	if _, ok := gather(t, c.lbs)["hcloud_ccm_load_balancer_targets{namespace=default,service=b,status=healthy}"]; !ok {
		t.Error("no series of the Service left")
	}
}

// TestReadHealth: each target is named by its Node (by provider ID, or by
// address for an ip target), unhealthy when one port is, with the API's
// detail and HTTP status; a message names at most ten.
func TestReadHealth(t *testing.T) {
	detail, code := hcloud.LoadBalancerTargetHealthStatusDetailUnexpectedHTTPStatus, 503
	node := func(name string, id int64, ip string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerid.FromServerID(id)},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}}}
	}
	nodes := []*corev1.Node{node("a", 1, "10.0.0.1"), node("b", 2, "10.0.0.2"), {ObjectMeta: metav1.ObjectMeta{Name: "dedicated"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "203.0.113.5"}}}}}
	healthy := func(port int) hcloud.LoadBalancerTargetHealthStatus {
		return hcloud.LoadBalancerTargetHealthStatus{ListenPort: port, Status: hcloud.LoadBalancerTargetHealthStatusStatusHealthy}
	}
	lb := &hcloud.LoadBalancer{Targets: []hcloud.LoadBalancerTarget{
		{Type: hcloud.LoadBalancerTargetTypeServer, Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: 1}},
			HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{healthy(80), {ListenPort: 443, Status: hcloud.LoadBalancerTargetHealthStatusStatusUnhealthy, Detail: &detail, HTTPStatusCode: &code}}},
		{Type: hcloud.LoadBalancerTargetTypeServer, Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: 2}},
			HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{healthy(443), healthy(80)}},
		{Type: hcloud.LoadBalancerTargetTypeIP, IP: &hcloud.LoadBalancerTargetIP{IP: "203.0.113.5"},
			HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{healthy(80), {ListenPort: 443, Status: hcloud.LoadBalancerTargetHealthStatusStatusUnknown}}},
		{Type: hcloud.LoadBalancerTargetTypeServer, Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: 9}},
			HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{healthy(80), healthy(443)}},
	}}
	h := ReadHealth(lb, nodes)
	var got []string
	for _, t := range h.Targets {
		got = append(got, t.Node+":"+t.Status)
	}
	if diff := cmp.Diff([]string{"a:unhealthy", "b:healthy", "dedicated:unknown", "server 9:healthy"}, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	status, reason, msg := h.Condition()
	if status != metav1.ConditionFalse || reason != ReasonSomeTargetsUnhealthy || msg != "1 of 4 targets unhealthy: a (port 443: unexpected_http_status 503)" {
		t.Errorf("condition %s %s %q", status, reason, msg)
	}

	var many hcloud.LoadBalancer
	for id := range int64(12) {
		many.Targets = append(many.Targets, hcloud.LoadBalancerTarget{Type: hcloud.LoadBalancerTargetTypeServer,
			Server:       &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: 100 + id}},
			HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{{ListenPort: 80, Status: hcloud.LoadBalancerTargetHealthStatusStatusUnhealthy}}})
	}
	status, reason, msg = ReadHealth(&many, nil).Condition()
	if status != metav1.ConditionFalse || reason != ReasonNoHealthyTarget || !strings.HasSuffix(msg, ", and 2 more") || strings.Count(msg, "(port 80: unhealthy)") != 10 {
		t.Errorf("condition of 12 unhealthy: %s %s %q", status, reason, msg)
	}
	for _, tc := range []struct {
		name   string
		lb     hcloud.LoadBalancer
		status metav1.ConditionStatus
		reason string
	}{
		{"no targets", hcloud.LoadBalancer{}, metav1.ConditionFalse, ReasonNoTargets},
		{"not checked yet", hcloud.LoadBalancer{Targets: []hcloud.LoadBalancerTarget{{Type: hcloud.LoadBalancerTargetTypeServer,
			Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: 1}}, HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{{ListenPort: 80}}}}},
			metav1.ConditionUnknown, ReasonTargetsNotChecked},
	} {
		if status, reason, _ := ReadHealth(&tc.lb, nodes).Condition(); status != tc.status || reason != tc.reason {
			t.Errorf("%s: %s %s, want %s %s", tc.name, status, reason, tc.status, tc.reason)
		}
	}
	if !slices.Equal(h.UnhealthyNodes(), []string{"a"}) {
		t.Errorf("unhealthy %v, want [a]", h.UnhealthyNodes())
	}

	// A dual-stack Node is one target, its ports on the IPv6 named.
	dual := hcloud.LoadBalancer{Targets: []hcloud.LoadBalancerTarget{
		{Type: hcloud.LoadBalancerTargetTypeServer, Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: 1}},
			HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{healthy(80)}},
		{Type: hcloud.LoadBalancerTargetTypeServer, Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: 1}},
			IP:           &hcloud.LoadBalancerTargetIP{IP: "2001:db8::1"},
			HealthStatus: []hcloud.LoadBalancerTargetHealthStatus{{ListenPort: 80, Status: hcloud.LoadBalancerTargetHealthStatusStatusUnhealthy}}},
	}}
	hd := ReadHealth(&dual, nodes)
	if _, _, msg := hd.Condition(); len(hd.Targets) != 1 || msg != "no healthy target; 1 of 1 unhealthy: a (port 80 on 2001:db8::1: unhealthy)" {
		t.Errorf("dual-stack: %d targets, condition %q", len(hd.Targets), msg)
	}
}

// TestTargetHealthBesideSyncs: the health loop reads while syncs change
// the same load balancers and the metrics are scraped (run with -race).
func TestTargetHealthBesideSyncs(t *testing.T) {
	svc := lbService("web", []int32{80})
	c, kube := healthCluster(t, 4, svc)
	c.lbs.StartHealth(t.Context(), HealthOptions{Services: kube.CoreV1(), Interval: 5 * time.Millisecond})
	for i := range 20 {
		c.clock.Advance(time.Second)
		c.update(t, svc, c.nodes[:2+i%3])
		gather(t, c.lbs)
	}
	fakecloudtest.Eventually(t, 10*time.Second, "a condition written", func() bool { return condition(t, kube, svc) != nil })
}
