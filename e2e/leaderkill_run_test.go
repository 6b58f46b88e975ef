//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/faultsweep"
)

const (
	// ccmUA marks the CCM's requests; the test's own reads are hcloud-go's.
	ccmUA = "hcloud-ccm/"
	// The replicas' lease: short, so a takeover costs seconds.
	killLease = 5 * time.Second
	// convergeBound is the bound the sweep states: the surviving replica
	// holds the lease and every invariant holds within it of the kill.
	convergeBound = 30 * time.Second
	// holdBound is how long after the trigger the held call must come.
	holdBound = 30 * time.Second
	// quietFor is how long the CCM must have sent nothing for the state to
	// count as settled: before the trigger and before the last look.
	quietFor = time.Second
)

// killArgs run a replica with leader election on a short lease.
var killArgs = []string{"--leader-elect=true", "--leader-elect-lease-duration=" + killLease.String(),
	"--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms"}

// startWorld is a fresh system (about 3.5 s) with two replicas and the
// operation's state before, settled; it returns the leader's index.
func startWorld(t *testing.T, op killOp) (*world, int) {
	t.Helper()
	env := setup(t, func(o *harness.Options) {
		// Actions finish within their request, so the CCM never polls one:
		// how many polls an action takes depends on timing, and a poll
		// more or less would shift which call a rule holds. Killed after a
		// call that starts an action, the CCM is killed after the action
		// ended, as it is on the API whenever a takeover takes longer than
		// the action.
		o.FakeCloudArgs = append(o.FakeCloudArgs, "--action-duration=0s")
		period := time.Hour
		if op.routes {
			period = time.Second
		}
		o.CCMArgs = append(o.CCMArgs, "--route-reconciliation-period="+period.String())
	})
	for range 2 {
		if _, err := env.StartCCM(t.Context(), killArgs...); err != nil {
			t.Fatal(err)
		}
	}
	leader := waitForLeader(t, env, 2)
	w := &world{ctx: t.Context(), env: env, cloud: env.Cloud(), dir: filepath.Dir(env.CCMLog(0))}
	if err := op.setup(w); err != nil {
		t.Fatalf("%s: the state before: %v", op.name, err)
	}
	if err := w.quiet(15 * time.Second); err != nil {
		t.Fatalf("%s: the state before: %v", op.name, err)
	}
	return w, leader
}

// record is the operation's clean run: its calls, from the trigger until
// it converged and the CCM fell quiet. Background calls would shift which
// call a rule holds, so there are none to interleave: the state before is
// settled and the CCM quiet for a second when the trigger comes; the
// controllers not under test run rarely (routes, once an hour) or have
// nothing to do (the lifecycle controller, every Node Ready); the
// inventory lists the servers at the leader's start and again only after
// HCLOUD_INVENTORY_MAX_AGE (5 min, longer than a run); and actions never
// need a poll. So the same state and trigger give the same calls in each
// run; a kill run checks that the calls before its held one were the
// recorded ones, and the test logs every run where they were not.
func record(t *testing.T, op killOp) []faultsweep.Call {
	t.Helper()
	w, _ := startWorld(t, op)
	mark := w.lastSeq()
	if err := op.trigger(w); err != nil {
		t.Fatal(err)
	}
	if err := w.until(time.Minute, op.name, func() []string { return append(op.done(w), w.settled()...) }); err != nil {
		t.Fatalf("the clean run did not converge: %v", err)
	}
	if err := w.quiet(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	entries := w.journal(mark)
	w.saveJournal(t, entries)
	calls := faultsweep.Calls(entries, ccmUA)
	if len(calls) == 0 {
		t.Fatalf("%s: the clean run made no call", op.name)
	}
	var lines []string
	for i, c := range calls {
		lines = append(lines, fmt.Sprintf("%2d %s %v", i+1, c, c.Actions))
	}
	t.Logf("%s: %d calls\n%s", op.name, len(calls), strings.Join(lines, "\n"))
	return calls
}

// killRun holds the call, kills the leader (SIGKILL) once the CCM has
// made it, lifts the rule and checks that the other replica takes over
// and the invariants hold. drift, when set, says that the calls before
// the held one were not the recorded ones.
func killRun(t *testing.T, op killOp, calls []faultsweep.Call, i int) (res faultsweep.Result, drift string) {
	t.Helper()
	f := faultsweep.Fault{Call: calls[i], Kind: faultsweep.Killed}
	res = faultsweep.Result{Op: op.name, Fault: f}
	w, leader := startWorld(t, op)
	mark := w.lastSeq()
	defer func() {
		w.saveJournal(t, w.journal(0))
		if !res.Held() {
			t.Errorf("%s, killed at %s: %s\n  journal: %s\n  CCM logs: %s (leader, killed), %s",
				op.name, f, strings.Join(res.Broken, "; "), filepath.Join(w.dir, "journal.json"), w.env.CCMLog(leader), w.env.CCMLog(1-leader))
			return
		}
		t.Logf("%s, killed at %s: held; converged %s after the kill, %d requests during the hold",
			op.name, f, res.Converge.Round(100*time.Millisecond), res.Requests)
	}()
	rule, _ := f.Rule(ccmUA)
	if err := w.cloud.AddFault(w.ctx, rule); err != nil {
		t.Fatal(err)
	}
	if err := op.trigger(w); err != nil {
		t.Fatal(err)
	}
	if !w.held(holdBound) {
		res.Broken = []string{fmt.Sprintf("the call was not made within %s of the trigger; the CCM's calls since: %v",
			holdBound, faultsweep.Calls(w.journal(mark), ccmUA))}
		return res, ""
	}
	killed := time.Now()
	w.env.KillCCM(leader)
	if err := w.cloud.ClearFaults(w.ctx); err != nil {
		t.Fatal(err)
	}
	survivor := 1 - leader
	err := w.until(convergeBound, "converged after the kill", func() []string {
		left := append(op.done(w), w.settled()...)
		if !logHas(t, w.env.CCMLog(survivor), "Successfully acquired lease") {
			left = append(left, fmt.Sprintf("replica %d has not taken the lease", survivor))
		}
		return left
	})
	res.Converge = time.Since(killed)
	if err != nil {
		res.Broken = append(res.Broken, err.Error())
	} else if err := w.quiet(15 * time.Second); err != nil {
		res.Broken = append(res.Broken, "after converging: "+err.Error())
	} else {
		// A second look once the new leader has fallen quiet: its own
		// start-up syncs must leave the invariants holding.
		for _, s := range append(op.done(w), w.settled()...) {
			res.Broken = append(res.Broken, "once the new leader was quiet: "+s)
		}
	}
	for r, what := range map[int]string{leader: "killed", survivor: "surviving"} {
		if line := panicLine(t, w.env.CCMLog(r)); line != "" {
			res.Broken = append(res.Broken, fmt.Sprintf("the %s replica's log has a panic: %s", what, line))
		}
	}
	res.Requests, drift = w.hold(mark, calls[:i+1], killed)
	return res, drift
}

// held waits until the rule holds its call's answer: the rule counts its
// hit as it matches, and fakecloud serves the call in the microseconds
// after, so 100 ms more leave the call made before the kill.
func (w *world) held(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if n, err := w.cloud.FaultHits(w.ctx); err == nil && n > 0 {
			time.Sleep(100 * time.Millisecond)
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// hold reads the journal after the kill: the CCM's requests from the held
// call's start until the kill, and whether the calls up to the held one
// were the recorded ones (drift says how they differ).
func (w *world) hold(mark uint64, want []faultsweep.Call, killed time.Time) (requests int, drift string) {
	entries := w.journal(mark)
	at := slices.IndexFunc(entries, func(e fakecloud.JournalEntry) bool { return e.Fault != 0 })
	if at < 0 {
		return 0, "the held call is not in the journal"
	}
	for _, e := range entries {
		if strings.Contains(e.UserAgent, ccmUA) && e.Seq != entries[at].Seq && !e.Time.Before(entries[at].Time) && e.Time.Before(killed) {
			requests++
		}
	}
	var before []fakecloud.JournalEntry
	for _, e := range entries {
		if e.Time.Before(entries[at].Time) && e.Seq != entries[at].Seq {
			before = append(before, e)
		}
	}
	before = append(before, entries[at])
	got := faultsweep.Calls(before, ccmUA)
	same := len(got) == len(want)
	for j := 0; same && j < len(got); j++ {
		same = got[j].String() == want[j].String()
	}
	if !same {
		drift = fmt.Sprintf("held after %v, recorded %v", got, want)
	}
	return requests, drift
}

// quiet waits until the CCM has sent nothing for quietFor.
func (w *world) quiet(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	last, since := time.Now(), uint64(0)
	for {
		es, err := w.cloud.Journal(w.ctx, fakecloud.JournalFilter{Since: since})
		if err != nil {
			return err
		}
		for _, e := range es {
			since = e.Seq
			if strings.Contains(e.UserAgent, ccmUA) && e.Time.After(last) {
				last = e.Time
			}
		}
		if time.Since(last) >= quietFor {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the CCM still sent requests %s on", limit)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// lastSeq is the journal's newest sequence number.
func (w *world) lastSeq() uint64 {
	es, err := w.cloud.Journal(w.ctx, fakecloud.JournalFilter{Limit: 1})
	if err != nil || len(es) == 0 {
		return 0
	}
	return es[0].Seq
}

// journal is every request after the sequence number mark.
func (w *world) journal(mark uint64) []fakecloud.JournalEntry {
	es, _ := w.cloud.Journal(w.ctx, fakecloud.JournalFilter{Since: mark})
	return es
}

// saveJournal keeps the run's journal beside its logs, as journal.json.
func (w *world) saveJournal(t *testing.T, entries []fakecloud.JournalEntry) {
	b, err := json.MarshalIndent(entries, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(w.dir, "journal.json"), b, 0o644)
	}
	if err != nil {
		t.Errorf("keeping the journal: %v", err)
	}
}

// panicLine is the first line of a log that tells of a panic.
func panicLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, "panic:") || strings.Contains(line, "Observed a panic") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
