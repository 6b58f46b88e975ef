//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/faultsweep"
	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// TestLeaderKilled is point 3 of issue 29's fault matrix, the leader
// killed at every step: each operation is run once clean, with two
// replicas, to record its calls from fakecloud's journal; then, for each
// call, in a fresh system, the call is served and its answer held, the
// leader is killed (SIGKILL) right after it, and the other replica
// must take the lease and converge within convergeBound, with every
// invariant of world.settled holding and no panic in either log.
//
// With E2E_FAULTS=full every call of every operation is swept (make
// faults); otherwise a small deterministic subset runs: the load balancer
// create operation killed at its first, middle and last call. Runs go two
// at once (go test's -parallel, GOMAXPROCS by default), each system its
// own. E2E_FAULTS_WRITE=BENCHMARKS.md (relative to the repository)
// writes the table and the summary line into that file's "make faults:
// leader killed" section.
func TestLeaderKilled(t *testing.T) {
	full := os.Getenv("E2E_FAULTS") == "full"
	ops := killOps()
	if !full {
		ops = slices.DeleteFunc(ops, func(op killOp) bool { return op.name != "load balancer create" })
	}
	start := time.Now()
	results := make([][]faultsweep.Result, len(ops))
	var (
		mu     sync.Mutex
		drifts []string
		counts []string
	)
	t.Run("sweep", func(t *testing.T) {
		for oi, op := range ops {
			t.Run(op.name, func(t *testing.T) {
				t.Parallel()
				var calls []faultsweep.Call
				if !t.Run("record", func(t *testing.T) { calls = record(t, op) }) {
					results[oi] = []faultsweep.Result{{Op: op.name, Fault: faultsweep.Fault{Kind: faultsweep.Killed},
						Broken: []string{"the clean run failed"}}}
					return
				}
				picks := sweepCalls(len(calls), full)
				mu.Lock()
				counts = append(counts, fmt.Sprintf("%s: %d calls, %d runs", op.name, len(calls), len(picks)))
				mu.Unlock()
				results[oi] = make([]faultsweep.Result, len(picks))
				for k, i := range picks {
					t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
						t.Parallel()
						res, drift := killRun(t, op, calls, i)
						results[oi][k] = res
						if drift != "" {
							t.Logf("%s, %s: the calls before the held one were not the recorded ones: %s", op.name, res.Fault, drift)
							mu.Lock()
							drifts = append(drifts, op.name+", "+res.Fault.String())
							mu.Unlock()
						}
					})
				}
			})
		}
	})
	// A run that -run left out leaves its result empty.
	all := slices.DeleteFunc(slices.Concat(results...), func(r faultsweep.Result) bool { return r.Op == "" })
	summary := faultsweep.Summary(all)
	slices.Sort(counts)
	t.Logf("%s (%s, %s)\n%s\n%s", summary, time.Since(start).Round(time.Second), strings.Join(counts, "; "), faultsweep.Markdown(all),
		fmt.Sprintf("%d runs held their call after other calls than the clean run's: %v", len(drifts), drifts))
	if path := os.Getenv("E2E_FAULTS_WRITE"); path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(root(t), path)
		}
		text := fmt.Sprintf("Run on %s: %d operations, %d runs, two at once, a %s lease; %s in all.\n\n%s\n%s\n",
			time.Now().Format("2006-01-02"), len(ops), len(all), killLease, time.Since(start).Round(time.Second),
			faultsweep.Markdown(all), summary)
		if err := refdoc.WriteBlock(path, "make faults: leader killed", text); err != nil {
			t.Error(err)
		}
	}
}

// sweepCalls is which of n calls are held: all of them, or the first,
// the middle and the last.
func sweepCalls(n int, full bool) []int {
	if full {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	return slices.Compact([]int{0, n / 2, n - 1})
}
