package ccm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/utils/ptr"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// Readiness fails while the cloud answers nothing but errors, naming it,
// and recovers with the next answer.
func TestReadinessFollowsTheCloud(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.MetricsAddress = "127.0.0.1:0"
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Fatalf("/readyz = %q once started", got)
	}
	if _, err := c.FC.AddFault(fakecloud.Rule{Path: "/**", Status: 500}); err != nil {
		t.Fatal(err)
	}
	i, _ := cl.InstancesV2()
	if _, err := i.InstanceMetadata(t.Context(), node("node-0404", "")); err == nil {
		t.Fatal("a lookup during the outage succeeded")
	}
	if got := httpGet(t, cl, "/readyz"); !strings.HasPrefix(got, "503 cloud: the Hetzner API has not answered since") {
		t.Errorf("/readyz during the outage = %q, want 503 naming the cloud", got)
	}
	if got := httpGet(t, cl, "/healthz"); got != "200 ok" {
		t.Errorf("/healthz during the outage = %q: an outage is no reason to restart", got)
	}
	c.FC.ClearFaults()
	_, _ = i.InstanceMetadata(t.Context(), node("node-0404", "")) // answered: no such server
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Errorf("/readyz after the outage = %q, want 200 ok", got)
	}
}

// Readiness fails while the apiserver does not answer its /readyz, and
// recovers when it does.
func TestReadinessFollowsTheAPIServer(t *testing.T) {
	var down atomic.Bool
	apiserver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || down.Load() {
			http.Error(w, "etcd is gone", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer apiserver.Close()
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: apiserver.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := newCloud(t, 1, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.MetricsAddress = "127.0.0.1:0"
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl.AddCheck(Readiness, "apiserver", apiserverCheck(kube, 0))
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Errorf("/readyz with the apiserver up = %q", got)
	}
	down.Store(true)
	if got := httpGet(t, cl, "/readyz"); !strings.HasPrefix(got, "503 apiserver: the apiserver does not answer") {
		t.Errorf("/readyz with the apiserver down = %q, want 503 naming it", got)
	}
	down.Store(false)
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Errorf("/readyz with the apiserver back = %q", got)
	}
}

// Liveness fails when a work queue holds items and finishes none for
// queueStallAfter, and passes again once it moves.
func TestLivenessFailsOnAWedgedQueue(t *testing.T) {
	clk := cloudtest.NewClock(time.Unix(1e9, 0))
	w := &queueWatch{gather: legacyregistry.DefaultGatherer, stallAfter: 10 * time.Minute, now: clk.Now}
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "hcloud-wedged"})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	// Other tests' queues share the registry: only this one's verdict counts.
	mine := func(err error) bool { return err != nil && strings.Contains(err.Error(), "hcloud-wedged") }
	if err := w.check(t.Context()); mine(err) {
		t.Fatalf("a queue just filled: %v", err)
	}
	clk.Advance(9 * time.Minute)
	if err := w.check(t.Context()); mine(err) {
		t.Errorf("9 minutes without progress: %v, want alive", err)
	}
	clk.Advance(2 * time.Minute)
	err := w.check(t.Context())
	if err == nil || !strings.Contains(err.Error(), `work queue "hcloud-wedged" holds 2 items and has finished none for 11m0s`) {
		t.Errorf("11 minutes without progress: %v, want wedged", err)
	}
	item, _ := q.Get()
	q.Done(item)
	if err := w.check(t.Context()); mine(err) {
		t.Errorf("after the queue finished an item: %v, want alive", err)
	}
}

// Liveness fails when one worker has been on one item for queueStallAfter.
func TestLivenessFailsOnAStuckWorker(t *testing.T) {
	longest := 0.0
	gather := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		label := []*dto.LabelPair{{Name: ptr.To("name"), Value: ptr.To("service")}}
		return []*dto.MetricFamily{
			{Name: ptr.To("workqueue_depth"), Metric: []*dto.Metric{{Label: label, Gauge: &dto.Gauge{Value: ptr.To(0.0)}}}},
			{Name: ptr.To("workqueue_longest_running_processor_seconds"), Metric: []*dto.Metric{{Label: label, Gauge: &dto.Gauge{Value: &longest}}}},
		}, nil
	})
	w := &queueWatch{gather: gather, stallAfter: 10 * time.Minute, now: time.Now}
	longest = 599
	if err := w.check(context.Background()); err != nil {
		t.Errorf("a worker on one item for 599 s: %v", err)
	}
	longest = 601
	if err := w.check(context.Background()); err == nil || !strings.Contains(err.Error(), `a worker of queue "service" has been on one item for 10m1s`) {
		t.Errorf("a worker on one item for 601 s: %v, want wedged", err)
	}
}
