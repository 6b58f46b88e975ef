package world

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

var sweepStart = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func sweepClock() time.Time { return sweepStart }

// sweepFault fails the first action of a command, delayed by delay, and
// then, when then is set, the next one of that command.
type sweepFault struct {
	command, then string
	delay         time.Duration
}

// sweepProject is sweepWorld's snapshot loaded into a world whose
// actions run ten seconds, with f's failure, and its clock.
func sweepProject(t *testing.T, base Snapshot, f *sweepFault) (*State, *time.Time) {
	t.Helper()
	clock := sweepStart.Add(time.Hour)
	var queue []string
	if f != nil {
		queue = append(queue, f.command, f.then)
	}
	fault := func(command string) (string, string, time.Duration) {
		if len(queue) > 0 && command == queue[0] {
			delay := f.delay
			if len(queue) == 1 {
				delay = 0
			}
			queue = queue[1:]
			return "action_failed", "injected by the undo sweep", delay
		}
		return "", "", 0
	}
	w := New(Config{Now: func() time.Time { return clock }, ActionDuration: 10 * time.Second, IDSeed: 11, ActionFault: fault})
	fresh := w.w.Scratch() // as Import does, without decoding the snapshot each time
	if err := fresh.load(deepCopy(base)); err != nil {
		t.Fatal(err)
	}
	w.w.Adopt(fresh)
	return w, &clock
}

// sweepBase is sweepWorld decoded, and the IDs it holds.
func sweepBase(t *testing.T) (Snapshot, sweepIDs, map[float64]bool) {
	data, ids := sweepWorld(t)
	st, err := DecodeState(data, catalog.New())
	if err != nil {
		t.Fatal(err)
	}
	return st, ids, sweepKnownIDs(t, data)
}

// sweepStart runs a case's request as one API request.
func sweepDo(w *State, run sweepRun, ids sweepIDs, n int) error {
	var failed error
	w.Run(func(tx *Tx) bool {
		if err := run(tx, ids, n); err != nil {
			failed = err
			return false
		}
		return true
	})
	return failed
}

// sweepEnd lets every action end and returns the world's resources as
// JSON objects, without what an action leaves behind whether it fails or
// not: the actions themselves, ID counters, the generator's state, a
// zone's serial (a failed change moves it on).
func sweepEnd(t *testing.T, w *State, clock *time.Time, baseIDs map[float64]bool) map[string]any {
	t.Helper()
	*clock = clock.Add(time.Minute)
	w.Read(func(*Tx) {})
	data, err := w.Export()
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"actions", "last_ids", "random", "locks"} {
		delete(out, k)
	}
	renumber(out, baseIDs)
	if kinds, ok := out["kinds"].(map[string]any); ok {
		if zs, ok := kinds["zone"].([]any); ok {
			for _, z := range zs {
				delete(z.(map[string]any), "serial")
			}
		}
	}
	return out
}

// sweepWritten are the resources the actions started after those in
// before undo, as their changes left them, and the members they write.
type sweepWritten struct {
	applied map[Ref]any
	paths   map[string]sweepMember
}

type sweepMember struct {
	ref  Ref
	path []string
}

func sweepWrites(w *State, before []int64) sweepWritten {
	out := sweepWritten{applied: map[Ref]any{}, paths: map[string]sweepMember{}}
	for _, id := range w.w.running {
		a, ok := w.w.Actions.Get(id)
		if !ok || slices.Contains(before, id) {
			continue
		}
		for _, r := range a.undoRecs() {
			applied, err := decodeJSON(r.applied)
			if err != nil {
				continue
			}
			out.applied[r.ref] = applied
			for _, p := range w.w.writes(r) {
				if !slices.Equal(p, []string{"serial"}) { // every zone change moves it on
					out.paths[fmt.Sprint(r.ref, p)] = sweepMember{r.ref, p}
				}
			}
		}
	}
	return out
}

// dependsOn reports whether a second action's change beside a first
// differs from its change alone (it adds records to an RRSet the first
// deleted): what it alone leaves is no model for the pair then.
func (beside sweepWritten) dependsOn(alone sweepWritten, w *State) bool {
	for _, m := range []map[string]sweepMember{beside.paths, alone.paths} {
		for _, p := range m {
			t := w.w.kind(p.ref.Type).typ
			if !reflect.DeepEqual(getPath(t, beside.applied[p.ref], p.path), getPath(t, alone.applied[p.ref], p.path)) {
				return true
			}
		}
	}
	return false
}

// sweepModelRun is what the second of a pair does alone (after the
// first's success when its request did what a failure keeps).
type sweepModelRun struct {
	refused bool
	alone   sweepWritten
	want    map[string]any
}

func sweepModel(t *testing.T, base Snapshot, known map[float64]bool, ids sweepIDs, answered bool, runA, runB sweepRun, n int) sweepModelRun {
	model, clock := sweepProject(t, base, nil)
	if answered && sweepDo(model, runA, ids, 0) != nil {
		return sweepModelRun{refused: true}
	}
	started := slices.Clone(model.w.running)
	if sweepDo(model, runB, ids, n) != nil {
		return sweepModelRun{refused: true}
	}
	return sweepModelRun{alone: sweepWrites(model, started), want: sweepEnd(t, model, clock, known)}
}

// without is a JSON tree without the members of the names, anywhere.
func without(tree map[string]any, names []string) map[string]any {
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, n := range names {
				delete(v, n)
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(tree)
	return tree
}

func keysOf[V any](m map[string]V) map[string]string {
	out := map[string]string{}
	for k := range m {
		out[k] = k
	}
	return out
}

// sweepKnownIDs are the IDs in a snapshot.
func sweepKnownIDs(t *testing.T, base []byte) map[float64]bool {
	var tree map[string]any
	if err := json.Unmarshal(base, &tree); err != nil {
		t.Fatal(err)
	}
	return idsOf(tree, map[float64]bool{})
}

// sweepDiff is cmp.Diff's first lines, "" when equal.
func sweepDiff(want, got map[string]any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return short(cmp.Diff(want, got))
}

// short is a diff's first lines.
func short(diff string) string {
	lines := strings.Split(diff, "\n")
	if len(lines) > 40 {
		lines = append(lines[:40], "...")
	}
	return strings.Join(lines, "\n")
}

// idsOf are the values of the members named id in a JSON tree.
func idsOf(v any, into map[float64]bool) map[float64]bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if id, ok := e.(float64); ok && k == "id" {
				into[id] = true
			}
			idsOf(e, into)
		}
	case []any:
		for _, e := range v {
			idsOf(e, into)
		}
	}
	return into
}

// renumber names the resources a run made, which the base lacks, by the
// order of their IDs instead of the IDs, and every reference to them too:
// a failed action takes IDs (its own) a model run does not.
func renumber(tree map[string]any, base map[float64]bool) {
	var made []float64
	for id := range idsOf(tree, map[float64]bool{}) {
		if !base[id] {
			made = append(made, id)
		}
	}
	slices.Sort(made)
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				v[k] = walk(e)
			}
		case []any:
			for i, e := range v {
				v[i] = walk(e)
			}
		case float64:
			if i := slices.Index(made, v); i >= 0 {
				return fmt.Sprintf("new resource %d", i)
			}
		}
		return v
	}
	walk(tree)
}

// sweepCommands are the family/command keys the kinds declare, and the
// shared ones (which run side by side on one resource).
func sweepCommands() (all, shared []string) {
	list, _ := kinds()
	for _, k := range list {
		for _, c := range commandsByFamily(list)[k.name] {
			key := k.name + "/" + c
			all = append(all, key)
			if sharedCommands[c] || slices.Contains(k.shares, c) {
				shared = append(shared, key)
			}
		}
	}
	return all, shared
}

// TestUndoSweep runs every action the kinds declare, built by its entry
// in sweepCases, alone with an injected failure: the world must end as it
// began. A command without an entry fails the test.
func TestUndoSweep(t *testing.T) {
	base, ids, known := sweepBase(t)
	all, _ := sweepCommands()
	for _, key := range all {
		if _, ok := sweepRecordedOnly[key]; ok {
			continue
		}
		run, ok := sweepCases[key]
		if !ok {
			t.Errorf("%s: the undo sweep cannot build a request for it: add it to sweepCases", key)
			continue
		}
		command := key[strings.Index(key, "/")+1:]
		w, clock := sweepProject(t, base, nil)
		if _, answered := sweepAnswered[key]; answered {
			if err := sweepDo(w, run, ids, 0); err != nil {
				t.Errorf("%s: the sweep's request is refused: %v", key, err)
				continue
			}
		}
		want := without(sweepEnd(t, w, clock, known), sweepAnswered[key])
		w, clock = sweepProject(t, base, &sweepFault{command: command})
		if err := sweepDo(w, run, ids, 0); err != nil {
			t.Errorf("%s: the sweep's request is refused: %v", key, err)
			continue
		}
		if diff := sweepDiff(want, without(sweepEnd(t, w, clock, known), sweepAnswered[key])); diff != "" {
			t.Errorf("a failed %s changed the world (-want +got):\n%s", key, diff)
		}
	}
	for _, named := range []map[string]string{sweepRecordedOnly, keysOf(sweepAnswered), keysOf(sweepCases)} {
		for key := range named {
			if !slices.Contains(all, key) {
				t.Errorf("the sweep names %s, which no kind declares", key)
			}
		}
	}
}

// TestUndoSweepSharedPairs runs every pair of shared actions on one
// resource side by side, the first failing and the second succeeding or
// failing too
// (two of one command asking the same or another thing), with either
// ending first: the world
// must end as the second alone leaves it, or as it began. A pair whose second is refused
// beside the first, or alone, is skipped; every shared command must be
// checked in some pair.
func TestUndoSweepSharedPairs(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine, slowed five-fold by the race detector: make test runs it")
	}
	base, ids, known := sweepBase(t)
	_, shared := sweepCommands()
	checked := map[string]bool{}
	pairs, dependent := 0, 0
	models := map[string]sweepModelRun{}
	w, clock := sweepProject(t, base, nil)
	began := sweepEnd(t, w, clock, known)
	for _, first := range shared {
		for _, second := range shared {
			family := first[:strings.Index(first, "/")]
			if !strings.HasPrefix(second, family+"/") {
				continue
			}
			runA, okA := sweepCases[first]
			runB, okB := sweepCases[second]
			if !okA || !okB {
				continue // TestUndoSweep names it
			}
			variants := []int{0}
			if first == second {
				variants = []int{0, 1} // asking the same, or another thing
			}
			for _, n := range variants {
				// The model: the second alone, after the first's success
				// when its request did what a failure keeps.
				drop, answered := sweepAnswered[first]
				key := fmt.Sprint(second, n)
				if answered {
					key = first + " " + key
				}
				m, done := models[key]
				if !done {
					m = sweepModel(t, base, known, ids, answered, runA, runB, n)
					models[key] = m
				}
				if m.refused {
					continue
				}
				alone, want := m.alone, without(m.want, drop)
				for _, delay := range []time.Duration{0, 30 * time.Second} {
					name := fmt.Sprintf("%s failing (ends %s) beside %s#%d", first, map[bool]string{true: "last", false: "first"}[delay > 0], second, n)
					w, clock := sweepProject(t, base, &sweepFault{command: first[len(family)+1:], delay: delay})
					if err := sweepDo(w, runA, ids, 0); err != nil {
						t.Errorf("%s: the first is refused: %v", name, err)
						continue
					}
					started := slices.Clone(w.w.running)
					if sweepDo(w, runB, ids, n) != nil {
						continue
					}
					if sweepWrites(w, started).dependsOn(alone, w) {
						dependent++
						continue
					}
					*clock = clock.Add(15 * time.Second) // the second ends, the first may not
					w.Read(func(*Tx) {})
					if diff := sweepDiff(want, without(sweepEnd(t, w, clock, known), drop)); diff != "" {
						t.Errorf("%s: the world is not as the second alone leaves it (-want +got):\n%s", name, diff)
					}
					checked[first], checked[second] = true, true
					pairs++
					// Both failing: the world ends as it began.
					_, secondAnswered := sweepAnswered[second]
					if answered || secondAnswered {
						continue
					}
					w, clock = sweepProject(t, base, &sweepFault{command: first[len(family)+1:], then: second[len(family)+1:], delay: delay})
					if sweepDo(w, runA, ids, 0) != nil || sweepDo(w, runB, ids, n) != nil {
						t.Errorf("%s: refused when both fail", name)
						continue
					}
					if diff := sweepDiff(began, sweepEnd(t, w, clock, known)); diff != "" {
						t.Errorf("%s, both failing: the world is not as it began (-want +got):\n%s", name, diff)
					}
				}
			}
		}
	}
	for _, key := range shared {
		if !checked[key] {
			t.Errorf("%s is shared but no pair checked it: give its sweepCases entry a request that runs beside another", key)
		}
	}
	t.Logf("%d pairs checked, %d skipped as the second's change depends on the first's", pairs, dependent)
}

// getPath is the value at a member's path, absent when there is none.
func getPath(t reflect.Type, v any, p []string) any {
	if len(p) == 0 {
		return v
	}
	switch c := v.(type) {
	case map[string]any:
		return getPath(memberType(t, p[0]), memberOf(c, p[0]), p[1:])
	case []any:
		et := elemType(t)
		for _, e := range c {
			if identity(et, e) == p[0] {
				return getPath(et, e, p[1:])
			}
		}
	}
	return absent
}
