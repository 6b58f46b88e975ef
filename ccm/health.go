package ccm

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

// Probe kinds: a failing liveness check gets the process restarted, a
// failing readiness check marks it not ready.
const (
	Liveness  = "liveness"
	Readiness = "readiness"
)

// check is one named probe check; nil means it passes.
type check struct {
	name string
	run  func(context.Context) error
}

// checks are the server's probe checks by kind.
type checks struct {
	mu   sync.Mutex
	kind map[string][]check
}

func (c *checks) add(kind, name string, run func(context.Context) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kind == nil {
		c.kind = map[string][]check{}
	}
	c.kind[kind] = append(c.kind[kind], check{name, run})
}

// serve answers a probe: 200 "ok", or 503 with a line per failing check.
func (c *checks) serve(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		list := append([]check(nil), c.kind[kind]...)
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		var failed []string
		for _, ch := range list {
			if err := ch.run(ctx); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", ch.name, err))
			}
		}
		if len(failed) > 0 {
			http.Error(w, strings.Join(failed, "\n"), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	}
}

// AddCheck adds a check to the liveness or readiness probe of the health
// address (HCLOUD_METRICS_ADDRESS); without one it does nothing.
func (c *Cloud) AddCheck(kind, name string, run func(context.Context) error) {
	if c.server != nil {
		c.server.checks.add(kind, name, run)
	}
}

// WatchAPIServer makes readiness fail while the apiserver does not answer
// its own /readyz (asked at most every 5 s, for 2 s).
func (c *Cloud) WatchAPIServer(kube kubernetes.Interface) {
	c.AddCheck(Readiness, "apiserver", apiserverCheck(kube, 5*time.Second))
}

func apiserverCheck(kube kubernetes.Interface, every time.Duration) func(context.Context) error {
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

// reachability is what the latest cloud requests say of the API: ready
// unless the last one failed (no answer, or a 5xx) with no success since.
type reachability struct {
	mu      sync.Mutex
	failing time.Time // when the current run of failures began; zero when the last request succeeded
	lastErr string
}

func (r *reachability) observe(resp *http.Response, err error) {
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

func (r *reachability) check(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing.IsZero() {
		return nil
	}
	return fmt.Errorf("the Hetzner API has not answered since %s: %s", r.failing.UTC().Format(time.RFC3339), r.lastErr)
}

// queueWatch makes liveness fail when a controller's work queue is
// wedged: it holds items and has finished none for stallAfter, or one
// worker has been on one item that long. It reads the workqueue_* metrics
// the Kubernetes libraries keep, so every upstream controller is covered.
type queueWatch struct {
	gather     prometheus.Gatherer
	stallAfter time.Duration
	now        func() time.Time

	mu   sync.Mutex
	seen map[string]queueSeen
}

type queueSeen struct {
	finished uint64
	progress time.Time
}

func (q *queueWatch) check(context.Context) error {
	families, err := q.gather.Gather()
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
	now := q.now()
	var wedged []string
	for name, d := range depth {
		s, known := q.seen[name]
		if !known || d == 0 || finished[name] != s.finished {
			s = queueSeen{finished: finished[name], progress: now}
			q.seen[name] = s
		}
		if stalled := now.Sub(s.progress); stalled >= q.stallAfter {
			wedged = append(wedged, fmt.Sprintf("work queue %q holds %v items and has finished none for %s", name, d, stalled.Round(time.Second)))
		}
		if l := time.Duration(longest[name] * float64(time.Second)); l >= q.stallAfter {
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

// queueStallAfter is how long a work queue may hold items without
// finishing one, or a worker stay on one item, before liveness fails. A
// cloud request ends within a minute, and a sync makes a few.
const queueStallAfter = 10 * time.Minute

// observed reports every cloud request's outcome to r.
func observed(r *reachability, next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		r.observe(resp, err)
		return resp, err
	})
}
