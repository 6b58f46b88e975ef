package scale

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// poolLabel marks the Nodes the load balancers target.
const poolLabel = "scale.hcloudlab.dev/pool"

func (r *runner) phases() []func(context.Context) error {
	return []func(context.Context) error{r.initBurst, r.steady, r.oneNotReady, r.manyNotReady,
		r.createServices, r.resyncServices, r.replaceNode, r.deleteServices, r.addressChange, r.joinThenDelete, r.notReadyThenDeleted, r.deleteServer}
}

// measure runs f as one phase and records its row: cloud requests from
// fakecloud's counters, wall time, and the CCM's peak RSS and CPU time.
func (r *runner) measure(ctx context.Context, row Row, f func(*Row) error) error {
	r.logf("%s", row.Phase)
	err := r.cloud.ResetCounters(ctx)
	if err == nil && r.cfg.Keep {
		err = r.cloud.ClearJournal(ctx)
	}
	if err != nil {
		return err
	}
	var before usage
	if r.pid != 0 { // else f starts the CCM: all it uses is this phase's
		row.peakReset = resetPeak(r.pid)
		if before, err = readUsage(r.pid); err != nil {
			return err
		}
	} else {
		row.peakReset = true
	}
	start := time.Now()
	if err := f(&row); err != nil {
		return fmt.Errorf("%s: %w", row.Phase, err)
	}
	if row.Wall == 0 {
		row.Wall = time.Since(start)
	}
	by, err := r.cloud.RequestsByRoute(ctx)
	if err != nil {
		return err
	}
	if r.cfg.Keep {
		if err := r.saveJournal(ctx, row.Key); err != nil {
			return err
		}
	}
	robot := map[string]uint64{}
	for route, n := range by {
		if strings.Contains(route, " /robot/") {
			robot[route] = n
			delete(by, route)
		}
	}
	row.Requests, row.Routes, row.Robot = total(by), routeList(by), total(robot)
	if row.Robot > 0 {
		row.Routes = strings.TrimPrefix(row.Routes+"; Robot: "+routeList(robot), "; ")
	}
	if row.RobotRefused, err = r.cloud.RequestsWithStatus(ctx, "/robot/", 403); err != nil {
		return err
	}
	after, err := readUsage(r.pid)
	if err != nil {
		return err
	}
	row.PeakRSS, row.CPU = after.peakRSS, after.cpu-before.cpu
	r.report.Rows = append(r.report.Rows, row)
	r.logf("%s: %s", row.Phase, row.summary())
	return nil
}

// initBurst registers every Node at once and starts the CCM, as a cluster
// coming up does; the CCM's start-up requests count.
func (r *runner) initBurst(ctx context.Context) error {
	n := r.cfg.Nodes
	return r.measure(ctx, Row{Phase: fmt.Sprintf("init burst: %d Nodes register at once, the CCM starts", n), Key: "burst"}, func(row *Row) error {
		start := time.Now()
		names := make([]string, n)
		if err := parallel(ctx, n, 32, func(i int) error {
			names[i] = nodeName(i + 1)
			return r.env.RegisterNodeIP(ctx, names[i], podCIDR(i+1), r.cfg.kubeletIP(i+1))
		}); err != nil {
			return err
		}
		r.logf("%d Nodes registered in %s", n, time.Since(start).Round(time.Millisecond))
		if err := r.startCCM(ctx); err != nil {
			return err
		}
		var at map[string]time.Time
		if err := r.until(ctx, 10*time.Minute+time.Duration(n)*time.Second, "every Node initialised", func() (bool, string) {
			at = r.watch.initialisedAt(names)
			return len(at) == n, fmt.Sprintf("%d of %d initialised", len(at), n)
		}); err != nil {
			return err
		}
		var took []time.Duration
		for _, t := range at {
			took = append(took, t.Sub(start))
		}
		slices.Sort(took)
		row.Wall = took[len(took)-1]
		w, err := scrapeWaits(ctx, r.metrics) // all since the CCM started
		if err != nil {
			return err
		}
		row.Notes = fmt.Sprintf("Nodes initialised after p50 %s, p99 %s, last %s from the start. "+
			"Hetzner API requests took %s in all, %.1f%% of that time; the CCM sent %d requests to the apiserver, "+
			"and its client's rate limit held them back %s in all (summed over concurrent requests)",
			round(took[len(took)/2]), round(took[len(took)*99/100]), round(row.Wall), round(w.cloud), 100*w.cloud.Seconds()/row.Wall.Seconds(),
			w.kubeRequests, round(w.clientRateLimit))
		row.cloudShare = w.cloud.Seconds() / row.Wall.Seconds()
		// The pool the load balancers target, labelled once every Node is in.
		return parallel(ctx, r.cfg.Pool, 8, func(i int) error { return r.label(ctx, nodeName(i+1)) })
	})
}

// steady measures the settled cluster over one window.
func (r *runner) steady(ctx context.Context) error {
	r.settle(ctx)
	return r.measure(ctx, Row{Phase: "steady state", Key: "steady", rate: true}, func(*Row) error { return r.sleep(ctx, r.cfg.scaled(r.cfg.Window)) })
}

// oneNotReady and manyNotReady measure a window with Nodes NotReady while
// their servers run: the node lifecycle controller asks about them every
// monitor period.
func (r *runner) oneNotReady(ctx context.Context) error {
	return r.notReady(ctx, Row{Phase: "1 NotReady Node", Key: "notready1", rate: true}, 1)
}

func (r *runner) manyNotReady(ctx context.Context) error {
	return r.notReady(ctx, Row{Phase: fmt.Sprintf("%d NotReady Nodes", r.cfg.NotReady), Key: "notreadyN", rate: true}, r.cfg.NotReady)
}

func (r *runner) notReady(ctx context.Context, row Row, count int) error {
	// Nodes after the pool, so the load balancers never see them change.
	names := make([]string, count)
	for i := range names {
		names[i] = nodeName(r.cfg.Pool + 1 + i)
	}
	set := func(ready bool) error {
		return parallel(ctx, count, 8, func(i int) error { return r.env.SetReady(ctx, names[i], ready) })
	}
	// The turn to NotReady costs a first look at each server; the window
	// then measures the state, as the simulation (make economy) does after
	// five minutes of settling.
	if err := r.cloud.ResetCounters(ctx); err != nil {
		return err
	}
	if err := set(false); err != nil {
		return err
	}
	r.logf("%s: settling for %s", row.Phase, r.cfg.scaled(r.cfg.Window))
	if err := r.sleep(ctx, r.cfg.scaled(r.cfg.Window)); err != nil {
		return err
	}
	by, err := r.cloud.RequestsByRoute(ctx)
	if err != nil {
		return err
	}
	row.Notes = fmt.Sprintf("measured after %s of settling, which cost %d requests (%s)", r.cfg.scaled(r.cfg.Window), total(by), routeList(by))
	if err := r.measure(ctx, row, func(*Row) error { return r.sleep(ctx, r.cfg.scaled(r.cfg.Window)) }); err != nil {
		return err
	}
	return set(true)
}

// deleteServer deletes a Node's server behind the CCM's back; its kubelet
// stops posting, and the CCM deletes the Node.
func (r *runner) deleteServer(ctx context.Context) error {
	name := nodeName(r.cfg.Nodes)
	return r.measure(ctx, Row{Phase: "a server deleted behind the CCM's back", Key: "deleted"}, func(row *Row) error {
		start := time.Now()
		if err := r.deleteServerOf(ctx, name); err != nil {
			return err
		}
		if err := r.until(ctx, 5*time.Minute, "its Node deleted", func() (bool, string) { return !r.watch.deletedAt(name).IsZero(), "not yet" }); err != nil {
			return err
		}
		r.env.ForgetNode(name)
		row.Wall = r.watch.deletedAt(name).Sub(start)
		row.Notes = "time from the server's deletion until the Node's; its kubelet reported NotReady at once"
		return nil
	})
}

// saveJournal writes the phase's requests, as fakecloud's journal has
// them, to journal-<key>.json in the working directory.
func (r *runner) saveJournal(ctx context.Context, key string) error {
	entries, err := r.cloud.Journal(ctx, fakecloud.JournalFilter{})
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.cfg.Dir, "journal-"+key+".json"), b, 0o644)
}

// total adds the counters up.
func total(by map[string]uint64) uint64 {
	var n uint64
	for _, c := range by {
		n += c
	}
	return n
}

// routeList is the counters as "GET /servers 20, …", most first.
func routeList(by map[string]uint64) string {
	keys := slices.Collect(maps.Keys(by))
	slices.SortFunc(keys, func(a, b string) int {
		if by[a] != by[b] {
			return cmp.Compare(by[b], by[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, by[k])
	}
	return strings.Join(parts, ", ")
}

// deleteServerOf deletes a Node's server behind the CCM's back, and its
// kubelet reports NotReady at once: the time measured is the CCM's, not
// the heartbeat's or kube-controller-manager's grace period's.
func (r *runner) deleteServerOf(ctx context.Context, node string) error {
	if err := r.cloud.Apply(ctx, fakecloud.Event{Type: "delete_server", ServerName: node}); err != nil {
		return err
	}
	return r.env.SetReady(ctx, node, false)
}

// settle waits until the CCM has sent no request for a few seconds, so a
// phase starts from quiet.
func (r *runner) settle(ctx context.Context) {
	last, quiet := uint64(0), 0
	for i := 0; i < 120 && quiet < 3; i++ {
		n, err := r.cloud.Requests(ctx, "", "")
		if err == nil && n == last {
			quiet++
		} else {
			quiet = 0
		}
		last = n
		if r.sleep(ctx, time.Second) != nil {
			return
		}
	}
}

// until polls done every 250 ms until it holds or the time is up, and
// shows progress every 10 s.
func (r *runner) until(ctx context.Context, limit time.Duration, what string, done func() (bool, string)) error {
	deadline := time.Now().Add(limit)
	shown := time.Now()
	for {
		ok, progress := done()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not after %s (%s)", what, limit, progress)
		}
		if time.Since(shown) >= 10*time.Second {
			r.logf("  waiting for %s: %s", what, progress)
			shown = time.Now()
		}
		if err := r.sleep(ctx, 250*time.Millisecond); err != nil {
			return err
		}
	}
}

// sleep waits d, showing progress every minute of a long wait.
func (r *runner) sleep(ctx context.Context, d time.Duration) error {
	end := time.Now().Add(d)
	for left := d; left > 0; left = time.Until(end) {
		step := min(left, time.Minute)
		t := time.NewTimer(step)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		if d > time.Minute && time.Until(end) > 0 {
			r.logf("  %s of %s", round(d-time.Until(end)), d)
		}
	}
	return nil
}

// parallel runs f(0..n-1) on at most workers goroutines and returns the
// first error.
func parallel(ctx context.Context, n, workers int, f func(int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return first
}

func round(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
