// The fault matrix (make faults): each operation of the CCM is run once
// clean to record its cloud calls from fakecloud's journal; then, for each
// call and each way the API fails, again with that call failing from its
// occurrence on for faultWindow. After the fault is lifted the invariants
// must hold within convergeBound and go on holding. The upstream service
// controller races with itself (see upstream_service_test.go), so this
// runs without -race.

//go:build !race

package ccm

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/faultsweep"
	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

var (
	faultsFull  = flag.Bool("faults.full", os.Getenv("FAULTS") == "full", "run the fault matrix's full sweep (make faults) instead of its subset")
	faultsWrite = flag.String("faults.write", "", "write the fault matrix's table into this file's \"make faults: in process\" section")
	faultsLog   = flag.Bool("faults.journal", false, "log the journal of every run, not only of a run whose invariants broke")
	faultsReal  = flag.String("faults.realism", "", "fakecloud's realism in the fault matrix: optimistic (default) or pessimistic, where what the API leaves open goes the unhelpful way")
	faultsOnly  = flag.String("faults.only", "", "run only the operations and faults whose name contains this, e.g. \"POST /load_balancers #1\"")
)

const (
	// faultWindow is how long a fault lasts: past the service
	// controller's second retry (at 5 and 15 s), so that a CCM that stays
	// quiet about a first failure has had its chance to tell.
	faultWindow = 20 * time.Second
	// convergeBound is how soon after the lift every invariant must hold:
	// the service controller's back-off after two failures (20 s), an
	// unlucky wait for it, and a monitor period.
	convergeBound = time.Minute
	// holdFor is how long the invariants must go on holding once they do.
	holdFor = time.Second
	// faultBudget bounds the CCM's requests while a fault is on: 3 a
	// second. A run measures 4 to 30 (hcloud-go's five retries of a 409
	// included); a retry storm is what exceeds it, as the route
	// controller's retries of a locked network did (93) before routes
	// backed off.
	faultBudget = 60
	// sweepParallel runs this many clusters at once; a run mostly waits.
	sweepParallel = 16
	ccmAgent      = "hcloud-ccm/"
)

// subsetKinds are the CI subset's kinds: each on the first call of each
// operation it applies to.
var subsetKinds = []faultsweep.Kind{faultsweep.ServerError, faultsweep.AfterCommit, faultsweep.ActionError}

func TestFaultMatrix(t *testing.T) {
	ops := operations()
	results := make([][]faultsweep.Result, len(ops))
	sem := make(chan struct{}, sweepParallel)
	t.Run("sweep", func(t *testing.T) {
		var wg sync.WaitGroup
		for i, op := range ops {
			wg.Go(func() {
				t.Run(op.name, func(t *testing.T) { results[i] = sweepOperation(t, op, sem) })
			})
		}
		wg.Wait()
	})
	all := slices.Concat(results...)
	t.Log(faultsweep.Summary(all))
	if *faultsWrite != "" {
		text := faultsweep.Markdown(all) + "\n" + faultsweep.Summary(all) + "\n"
		if err := refdoc.WriteBlock(*faultsWrite, "make faults: in process", text); err != nil {
			t.Error(err)
		}
	}
}

// sweepOperation records an operation's calls on a clean run, then runs
// each fault of the sweep (the subset unless -faults.full), sweepParallel
// at a time, and returns the results in the sweep's order.
func sweepOperation(t *testing.T, op sweepOp, sem chan struct{}) []faultsweep.Result {
	var calls []faultsweep.Call
	sem <- struct{}{}
	t.Run("clean run", func(t *testing.T) { calls = recordCalls(t, op) })
	<-sem
	faults := faultsweep.Faults(calls, faultsweep.Kinds)
	if !*faultsFull {
		faults = subset(faults)
	}
	faults = slices.DeleteFunc(faults, func(f faultsweep.Fault) bool {
		return *faultsOnly != "" && !strings.Contains(op.name+"/"+f.String(), *faultsOnly)
	})
	results := make([]faultsweep.Result, len(faults))
	var wg sync.WaitGroup
	for i, f := range faults {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			// A run that stops on a fatal error (its setup failing) counts
			// as one whose invariants broke.
			results[i] = faultsweep.Result{Op: op.name, Fault: f, Broken: []string{"the run stopped; see its log"}}
			t.Run(f.String(), func(t *testing.T) {
				results[i] = sweepRun(t, op, f)
				if !results[i].Held() {
					t.Errorf("%s, %s: %s", op.name, f, strings.Join(results[i].Broken, "; "))
				}
			})
		})
	}
	wg.Wait()
	return results
}

// subset keeps each subset kind's first fault.
func subset(faults []faultsweep.Fault) []faultsweep.Fault {
	var out []faultsweep.Fault
	for _, k := range subsetKinds {
		for _, f := range faults {
			if f.Kind == k {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// recordCalls runs an operation clean and returns the calls the CCM made from
// its trigger until the invariants held.
func recordCalls(t *testing.T, op sweepOp) []faultsweep.Call {
	c := newSweepCluster(t, op)
	op.setup(t, c)
	c.quiet()
	c.FC.ClearJournal()
	op.trigger(t, c)
	c.await(t, "the clean run")
	c.quiet() // the calls that follow: an action's polls
	calls := faultsweep.Calls(c.FC.Journal(fakecloud.JournalFilter{}), ccmAgent)
	if len(calls) == 0 {
		t.Fatalf("%s made no cloud call: nothing to sweep", op.name)
	}
	t.Logf("%s: %d calls: %v", op.name, len(calls), calls)
	return calls
}

// sweepRun runs an operation with one fault on for faultWindow from the
// trigger, lifts it, and checks the invariants.
func sweepRun(t *testing.T, op sweepOp, f faultsweep.Fault) faultsweep.Result {
	c := newSweepCluster(t, op)
	op.setup(t, c)
	c.quiet()
	res := faultsweep.Result{Op: op.name, Fault: f}
	c.FC.ClearJournal()
	arm(t, c, f)
	start := time.Now()
	op.trigger(t, c)
	time.Sleep(time.Until(start.Add(faultWindow)))
	convergedDuringFault := len(c.broken(t)) == 0
	rules, actions := c.FC.Faults()
	applied := slices.ContainsFunc(rules, func(r fakecloud.Rule) bool { return r.Hits > 0 }) ||
		slices.ContainsFunc(actions, func(a fakecloud.ActionFault) bool { return a.Hits > 0 })
	c.FC.ClearFaults()
	lifted := time.Now()
	duringFault := c.FC.Journal(fakecloud.JournalFilter{})
	res.Requests = countAgent(duringFault, ccmAgent)

	broken, since := converge(t, c, lifted)
	res.Converge = since.Sub(lifted)
	if len(broken) > 0 {
		broken = append(broken, fmt.Sprintf("(not converged %s after the lift)", convergeBound))
	}
	if !applied {
		broken = append(broken, "the fault never applied: the run did not make the call")
	}
	if res.Requests > faultBudget {
		broken = append(broken, fmt.Sprintf("%d requests while the fault was on, over the budget of %d: a retry storm", res.Requests, faultBudget))
	}
	// The CCM may learn of a failure after the window (a hang, given up
	// only after every retry; a 429's pause): by convergence it has told.
	if !convergedDuringFault && op.service != "" && !c.warned(t, op.service) {
		broken = append(broken, fmt.Sprintf("no Warning event on Service %s though it failed for the fault's %s", op.service, faultWindow))
	}
	res.Broken = broken
	if !res.Held() || *faultsLog {
		logJournal(t, c.FC.Journal(fakecloud.JournalFilter{}), start, lifted)
	}
	return res
}

// converge waits until the invariants have held for holdFor (so a late
// duplicate or deletion shows) and returns since when, or what is broken
// at convergeBound after the lift.
func converge(t *testing.T, c *sweepCluster, lifted time.Time) (broken []string, since time.Time) {
	for {
		broken = c.broken(t)
		now := time.Now()
		switch {
		case len(broken) > 0:
			since = time.Time{}
		case since.IsZero():
			since = now
		case now.Sub(since) >= holdFor:
			return nil, since
		}
		if now.Sub(lifted) > convergeBound+holdFor {
			return broken, now
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// arm adds the fault's rule or action fault; an action stays stuck for
// the fault's window.
func arm(t *testing.T, c *sweepCluster, f faultsweep.Fault) {
	t.Helper()
	if r, ok := f.Rule(ccmAgent); ok {
		if _, err := c.FC.AddFault(r); err != nil {
			t.Fatal(err)
		}
	}
	if a, ok := f.ActionFault(faultWindow); ok {
		if _, err := c.FC.AddActionFault(a); err != nil {
			t.Fatal(err)
		}
	}
}

// quiet waits until the CCM has sent no request for 1.5 s (at most 10 s),
// so a setup's last polls do not mix with the operation's calls.
func (c *sweepCluster) quiet() {
	quiet, deadline := time.Now(), time.Now().Add(10*time.Second)
	for time.Since(quiet) < 1500*time.Millisecond && time.Now().Before(deadline) {
		n := countAgent(c.FC.Journal(fakecloud.JournalFilter{}), ccmAgent)
		time.Sleep(100 * time.Millisecond)
		if countAgent(c.FC.Journal(fakecloud.JournalFilter{}), ccmAgent) != n {
			quiet = time.Now()
		}
	}
}

func countAgent(entries []fakecloud.JournalEntry, agent string) int {
	n := 0
	for _, e := range entries {
		if strings.Contains(e.UserAgent, agent) {
			n++
		}
	}
	return n
}

// logJournal prints a failed run's journal: the CCM's requests from the
// trigger, each with its time from the trigger, its answer, the fault
// rule that changed it and the actions it started.
func logJournal(t *testing.T, entries []fakecloud.JournalEntry, start, lifted time.Time) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "journal of the run (the fault was lifted at %s):\n", lifted.Sub(start).Round(time.Millisecond))
	for _, e := range entries {
		if !strings.Contains(e.UserAgent, ccmAgent) {
			continue
		}
		fmt.Fprintf(&b, "  %8s %-6s %-50s %d", e.Time.Sub(start).Round(time.Millisecond), e.Method, e.Path, e.Status)
		if e.Fault != 0 {
			b.WriteString(" fault")
		}
		if len(e.Actions) > 0 {
			fmt.Fprintf(&b, " started %v", e.Actions)
		}
		b.WriteString("\n")
	}
	t.Log(b.String())
}
