package loadbalancer

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/ccm/providerid"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// lbCluster is a Manager with load balancers in fsn1 of type lb11, in
// the network k8s, on a fakecloud of n servers with their Nodes at hand.
// Its client times out after 300 ms and retries twice, 10 ms apart.
type lbCluster struct {
	*cloudtest.Cloud
	lbs       *Manager
	nodes     []*corev1.Node // one per server, node-0000...
	clock     *fakecloudtest.Clock
	rec       *recorder
	networkID int64
}

// hangingCall is the context of a call that meets requests hung on
// purpose: it gives up after half a second.
func hangingCall(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

func newLBCluster(t *testing.T, n int, opts fakecloud.Options) *lbCluster {
	t.Helper()
	// 5 s a request: far above what fakecloud in the same process takes
	// even on a loaded machine; tests that hang requests on purpose bound
	// their calls with a context instead (hangingCall).
	cloud := cloudtest.Start(t, n, opts, hcloud.WithHTTPClient(&http.Client{Timeout: 5 * time.Second}),
		hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(10 * time.Millisecond), MaxRetries: 2}))
	nw, _, err := cloud.Client.Network.GetByName(t.Context(), "k8s")
	if err != nil || nw == nil {
		t.Fatalf("network k8s: %v", err)
	}
	c := &lbCluster{Cloud: cloud, nodes: cloud.Nodes(t), clock: fakecloudtest.NewClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)),
		rec: &recorder{}, networkID: nw.ID}
	c.lbs = New(cloud.Client, Options{Defaults: annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1"},
		NetworkID: nw.ID, NetworkZone: "eu-central", MaxAge: 5 * time.Minute, Now: c.clock.Now})
	c.lbs.Start(t.Context(), c.rec)
	cloud.FC.ResetCounters()
	return c
}

var (
	lbDefaults = annotation.Defaults{Enabled: true, Type: "lb11"}
	lbService  = cloudtest.LBService
)

// ensure runs EnsureLoadBalancer and returns the status and the requests it sent.
func (c *lbCluster) ensure(t *testing.T, svc *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, uint64) {
	t.Helper()
	before := c.Requests()
	st, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, nodes)
	if err != nil {
		t.Fatalf("EnsureLoadBalancer: %v", err)
	}
	return st, c.Requests() - before
}

// update runs UpdateLoadBalancer and returns the requests it sent.
func (c *lbCluster) update(t *testing.T, svc *corev1.Service, nodes []*corev1.Node) uint64 {
	t.Helper()
	before := c.Requests()
	if err := c.lbs.UpdateLoadBalancer(t.Context(), "", svc, nodes); err != nil {
		t.Fatalf("UpdateLoadBalancer: %v", err)
	}
	return c.Requests() - before
}

// targetIDs are the server IDs of lb's server targets, in order.
func targetIDs(lb *hcloud.LoadBalancer) []int64 {
	var ids []int64
	for _, tg := range lb.Targets {
		if tg.Server != nil {
			ids = append(ids, tg.Server.Server.ID)
		}
	}
	return ids
}

func serverIDs(nodes []*corev1.Node) []int64 {
	var ids []int64
	for _, n := range nodes {
		id, _ := providerid.ToServerID(n.Spec.ProviderID)
		ids = append(ids, id)
	}
	return ids
}

// event is one event the Manager recorded.
type event struct{ Object, Type, Reason, Message string }

// recorder keeps the events the Manager records, with the name of the
// object each is about.
type recorder struct {
	mu     sync.Mutex
	events []event
}

func (r *recorder) Event(obj runtime.Object, eventType, reason, msg string) {
	name := ""
	if m, err := meta.Accessor(obj); err == nil {
		name = m.GetName()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{name, eventType, reason, msg})
}

func (r *recorder) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	r.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

func (r *recorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...any) {
	r.Eventf(obj, eventType, reason, format, args...)
}

// hasEvent reports whether the Manager recorded an event of that type
// and reason on the object named object.
func (c *lbCluster) hasEvent(t *testing.T, eventType, reason, object string) bool {
	return c.countEvents(t, eventType, reason, object) > 0
}

// countEvents counts the events of that type and reason on the object.
func (c *lbCluster) countEvents(_ *testing.T, eventType, reason, object string) int {
	n := 0
	for _, e := range c.rec.about(object) {
		if e.Type == eventType && e.Reason == reason {
			n++
		}
	}
	return n
}

// about are the events on the object named name.
func (r *recorder) about(name string) []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event
	for _, e := range r.events {
		if e.Object == name {
			out = append(out, e)
		}
	}
	return out
}
