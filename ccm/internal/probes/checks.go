package probes

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/kubernetes"
)

// APIServerCheck fails while the apiserver does not answer its /readyz,
// asked at most every every, for 2 s.
func APIServerCheck(kube kubernetes.Interface, every time.Duration) func(context.Context) error {
	cached := &cachedCheck{every: every, run: func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if err := kube.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
			return fmt.Errorf("the apiserver does not answer: %w", err)
		}
		return nil
	}}
	return cached.check
}

// cachedCheck runs a check at most once per interval and answers the
// last result meanwhile, so frequent probes cost the apiserver little.
type cachedCheck struct {
	every time.Duration
	run   func(context.Context) error

	mu   sync.Mutex
	at   time.Time
	last error
}

func (c *cachedCheck) check(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < c.every {
		return c.last
	}
	c.last, c.at = c.run(ctx), time.Now()
	return c.last
}

// Reachability is what the latest cloud requests say of the API: ready
// unless the last one failed (no answer, or a 5xx) with no success since.
type Reachability struct {
	mu      sync.Mutex
	failing time.Time // when the current run of failures began; zero when the last request succeeded
	lastErr string
}

func (r *Reachability) observe(resp *http.Response, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err == nil && resp.StatusCode < 500:
		r.failing, r.lastErr = time.Time{}, ""
		return
	case err != nil:
		r.lastErr = err.Error()
	default:
		r.lastErr = resp.Status
	}
	if r.failing.IsZero() {
		r.failing = time.Now()
	}
}

func (r *Reachability) Check(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing.IsZero() {
		return nil
	}
	return fmt.Errorf("the Hetzner API has not answered since %s: %s", r.failing.UTC().Format(time.RFC3339), r.lastErr)
}

// QueueWatch makes liveness fail when a controller's work queue is
// wedged: it holds items and has finished none for StallAfter, or one
// worker has been on one item that long. It reads the workqueue_* metrics
// the Kubernetes libraries keep, so every upstream controller is covered.
type QueueWatch struct {
	Gather     prometheus.Gatherer
	StallAfter time.Duration
	Now        func() time.Time

	mu   sync.Mutex
	seen map[string]queueSeen
}

type queueSeen struct {
	finished uint64
	progress time.Time
}

func (q *QueueWatch) Check(context.Context) error {
	families, err := q.Gather.Gather()
	if err != nil && len(families) == 0 {
		return nil // no metrics to judge by: not a reason to restart
	}
	depth, finished, longest := map[string]float64{}, map[string]uint64{}, map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			name := labelOf(m, "name")
			switch f.GetName() {
			case "workqueue_depth":
				depth[name] = m.GetGauge().GetValue()
			case "workqueue_work_duration_seconds":
				finished[name] = m.GetHistogram().GetSampleCount()
			case "workqueue_longest_running_processor_seconds":
				longest[name] = m.GetGauge().GetValue()
			}
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.seen == nil {
		q.seen = map[string]queueSeen{}
	}
	now := q.Now()
	var wedged []string
	for name, d := range depth {
		s, known := q.seen[name]
		if !known || d == 0 || finished[name] != s.finished {
			s = queueSeen{finished: finished[name], progress: now}
			q.seen[name] = s
		}
		if stalled := now.Sub(s.progress); stalled >= q.StallAfter {
			wedged = append(wedged, fmt.Sprintf("work queue %q holds %v items and has finished none for %s", name, d, stalled.Round(time.Second)))
		}
		if l := time.Duration(longest[name] * float64(time.Second)); l >= q.StallAfter {
			wedged = append(wedged, fmt.Sprintf("a worker of queue %q has been on one item for %s", name, l.Round(time.Second)))
		}
	}
	if len(wedged) > 0 {
		return fmt.Errorf("%s", strings.Join(wedged, "; "))
	}
	return nil
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// QueueStallAfter is how long a work queue may hold items without
// finishing one, or a worker stay on one item, before liveness fails. A
// cloud request ends within a minute, and a sync makes a few.
const QueueStallAfter = 10 * time.Minute

// Observed reports every cloud request's outcome to r.
func Observed(r *Reachability, next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		r.observe(resp, err)
		return resp, err
	})
}

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
