package faultsweep

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Result is what one run of a sweep found.
type Result struct {
	Op     string // the operation, e.g. "load balancer create"
	Fault  Fault
	Broken []string // the invariants that did not hold, each a sentence
	// Converge is the time from the fault's lift until every invariant held.
	Converge time.Duration
	// Requests is how many requests the client sent while the fault was on.
	Requests int
}

// Held reports whether every invariant held.
func (r Result) Held() bool { return len(r.Broken) == 0 }

// Summary is the sweep's one line: "faults: 212 runs, 212 held".
func Summary(results []Result) string {
	held := 0
	for _, r := range results {
		if r.Held() {
			held++
		}
	}
	return fmt.Sprintf("faults: %d runs, %d held", len(results), held)
}

// Markdown is the sweep's table, one row per operation and kind: runs,
// runs whose invariants held, the longest time to converge after the lift,
// and the most requests a run sent while its fault was on.
func Markdown(results []Result) string {
	type key struct {
		op   string
		kind Kind
	}
	type row struct {
		runs, held, requests int
		converge             time.Duration
	}
	rows := map[key]*row{}
	var ops []string
	for _, r := range results {
		k := key{r.Op, r.Fault.Kind}
		if rows[k] == nil {
			rows[k] = &row{}
		}
		if !slices.Contains(ops, r.Op) {
			ops = append(ops, r.Op)
		}
		w := rows[k]
		w.runs++
		if r.Held() {
			w.held++
		}
		w.converge = max(w.converge, r.Converge)
		w.requests = max(w.requests, r.Requests)
	}
	var b strings.Builder
	b.WriteString("| operation | failure | runs | held | converged within | requests during the fault (most) |\n|---|---|---|---|---|---|\n")
	for _, op := range ops {
		for _, k := range order {
			if w := rows[key{op, k}]; w != nil {
				fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %d |\n", op, k, w.runs, w.held, w.converge.Round(100*time.Millisecond), w.requests)
			}
		}
	}
	return b.String()
}
