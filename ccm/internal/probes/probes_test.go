package probes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/utils/ptr"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// Liveness fails when a work queue holds items and finishes none for
// QueueStallAfter, and passes again once it moves.
func TestLivenessFailsOnAWedgedQueue(t *testing.T) {
	clk := fakecloudtest.NewClock(time.Unix(1e9, 0))
	w := &QueueWatch{Gather: legacyregistry.DefaultGatherer, StallAfter: 10 * time.Minute, Now: clk.Now}
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "hcloud-wedged"})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	// Other tests' queues share the registry: only this one's verdict counts.
	mine := func(err error) bool { return err != nil && strings.Contains(err.Error(), "hcloud-wedged") }
	if err := w.Check(t.Context()); mine(err) {
		t.Fatalf("a queue just filled: %v", err)
	}
	clk.Advance(9 * time.Minute)
	if err := w.Check(t.Context()); mine(err) {
		t.Errorf("9 minutes without progress: %v, want alive", err)
	}
	clk.Advance(2 * time.Minute)
	err := w.Check(t.Context())
	if err == nil || !strings.Contains(err.Error(), `work queue "hcloud-wedged" holds 2 items and has finished none for 11m0s`) {
		t.Errorf("11 minutes without progress: %v, want wedged", err)
	}
	item, _ := q.Get()
	q.Done(item)
	if err := w.Check(t.Context()); mine(err) {
		t.Errorf("after the queue finished an item: %v, want alive", err)
	}
}

// Liveness fails when one worker has been on one item for QueueStallAfter.
func TestLivenessFailsOnAStuckWorker(t *testing.T) {
	longest := 0.0
	gather := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		label := []*dto.LabelPair{{Name: ptr.To("name"), Value: ptr.To("service")}}
		return []*dto.MetricFamily{
			{Name: ptr.To("workqueue_depth"), Metric: []*dto.Metric{{Label: label, Gauge: &dto.Gauge{Value: ptr.To(0.0)}}}},
			{Name: ptr.To("workqueue_longest_running_processor_seconds"), Metric: []*dto.Metric{{Label: label, Gauge: &dto.Gauge{Value: &longest}}}},
		}, nil
	})
	w := &QueueWatch{Gather: gather, StallAfter: 10 * time.Minute, Now: time.Now}
	longest = 599
	if err := w.Check(context.Background()); err != nil {
		t.Errorf("a worker on one item for 599 s: %v", err)
	}
	longest = 601
	if err := w.Check(context.Background()); err == nil || !strings.Contains(err.Error(), `a worker of queue "service" has been on one item for 10m1s`) {
		t.Errorf("a worker on one item for 601 s: %v, want wedged", err)
	}
}
