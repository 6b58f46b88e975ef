package world

import (
	"bytes"
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
)

// How undos compose. An action writes members of the resources it
// undoes: those its change moved (before and applied differ there) and
// those it declares it sets whatever they held (step.sets: a protection
// set to what it was is still set). Actions that share a resource run
// side by side, and each member ends as the last one started that has not
// failed wrote it:
//   - an action that succeeds takes the members it wrote from every
//     earlier one still running, whose failure then leaves them;
//   - an action that fails hands each member a later one still running
//     also writes down to it (that one's undo then puts back what this one
//     found), and puts back only the others, where nothing changed them
//     since (revertJSON).
//
// Members are paths in the resource's JSON: object members by name,
// elements of lists with an identity (undoIdentities) by their identity.

// member is the path of an object member, as step.sets names it.
func member(names ...string) []string { return names }

// element is the path of a list's element with an identity, as
// undoIdentities names it (its members' values), then of members inside.
func element(list string, id map[string]any, inner ...string) []string {
	data, err := json.Marshal(id)
	if err != nil {
		panic("fakecloud: an undo identity does not encode: " + err.Error())
	}
	return append([]string{list, string(data)}, inner...)
}

// undoRec is one resource an action's failure undoes, as the action keeps
// it: before and sets are changed in place as others compose with it.
type undoRec struct {
	ref     Ref
	before  *json.RawMessage
	applied json.RawMessage
	sets    *[][]string
}

// undoRecs are the resources a running action undoes, with what the
// change left of them recorded (snapshots older than that compose with
// nothing).
func (a *StoredAction) undoRecs() []undoRec {
	var out []undoRec
	if a.Undo != nil && a.Applied != nil {
		out = append(out, undoRec{a.Lock, &a.Undo, a.Applied, &a.Sets})
	}
	for i := range a.UndoAlso {
		u := &a.UndoAlso[i]
		if u.Applied != nil && !u.Deleted {
			out = append(out, undoRec{u.Resource, &u.Before, u.Applied, &u.Sets})
		}
	}
	return out
}

// writes are the members an undo record's action wrote.
func (w *project) writes(r undoRec) [][]string {
	t := w.kind(r.ref.Type).typ
	b, errB := decodeJSON(*r.before)
	a, errA := decodeJSON(r.applied)
	if errB != nil || errA != nil {
		return nil
	}
	return append(changedPaths(t, b, a, nil), *r.sets...)
}

// composeEnd composes an ending action with the others running on the
// resources it undoes (see above), before its own undo, if it failed.
func (w *project) composeEnd(a *StoredAction, ok bool) {
	for _, r := range a.undoRecs() {
		mine := w.writes(r)
		if len(mine) == 0 {
			continue
		}
		if ok {
			for _, e := range w.runningOn(r.ref, func(id int64) bool { return id < a.ID }) {
				for _, er := range e.undoRecs() {
					if er.ref == r.ref {
						w.keepMembers(er, mine)
					}
				}
			}
			continue
		}
		found := *r.before // what it found, as later hand-downs read it
		for _, p := range mine {
			for _, l := range w.runningOn(r.ref, func(id int64) bool { return id > a.ID }) {
				lr, on := recOn(l, r.ref)
				if !on {
					continue
				}
				theirs := w.writes(lr)
				if !overlapsAny(p, theirs) {
					continue
				}
				w.handDown(r, found, lr, p, theirs)
				break
			}
		}
	}
}

// runningOn are the running actions that undo a resource, whose IDs pass
// the filter, in the order they started.
func (w *project) runningOn(ref Ref, pass func(id int64) bool) []*StoredAction {
	var out []*StoredAction
	for _, id := range w.running {
		if !pass(id) {
			continue
		}
		if a, ok := w.Actions.Get(id); ok && a.Status == "running" {
			if _, on := recOn(a, ref); on {
				out = append(out, a)
			}
		}
	}
	slices.SortFunc(out, func(x, y *StoredAction) int { return cmp.Compare(x.ID, y.ID) })
	return out
}

func recOn(a *StoredAction, ref Ref) (undoRec, bool) {
	for _, r := range a.undoRecs() {
		if r.ref == ref {
			return r, true
		}
	}
	return undoRec{}, false
}

// keepMembers makes an action's undo leave what of the members it wrote
// lies in the others' (at the deeper of two overlapping paths): it no
// longer writes that.
func (w *project) keepMembers(r undoRec, others [][]string) {
	t := w.kind(r.ref.Type).typ
	before, err1 := decodeJSON(*r.before)
	applied, err2 := decodeJSON(r.applied)
	if err1 != nil || err2 != nil {
		return
	}
	for _, p := range changedPaths(t, before, applied, nil) {
		for _, q := range others {
			if overlaps(p, q) {
				d := deeper(p, q)
				before = copyPath(t, before, applied, d)
			}
		}
	}
	if data, err := json.Marshal(before); err == nil {
		*r.before = data
	}
	*r.sets = slices.DeleteFunc(*r.sets, func(s []string) bool {
		return slices.ContainsFunc(others, func(q []string) bool { return overlaps(s, q) && len(q) <= len(s) })
	})
}

// handDown gives a later action what of the member p a failing one wrote
// lies in the later one's writes: the later one's undo puts back what the
// failing one found there (found: its resource before its change), and
// the failing one's leaves it.
func (w *project) handDown(from undoRec, found json.RawMessage, to undoRec, p []string, theirs [][]string) {
	t := w.kind(from.ref.Type).typ
	fb, err1 := decodeJSON(found)
	tb, err2 := decodeJSON(*to.before)
	if err1 != nil || err2 != nil {
		return
	}
	var taken [][]string
	for _, q := range theirs {
		if overlaps(p, q) {
			d := deeper(p, q)
			tb = copyPath(t, tb, fb, d)
			taken = append(taken, d)
		}
	}
	if data, err := json.Marshal(tb); err == nil {
		*to.before = data
	}
	w.keepMembers(from, taken)
}

// deeper is the longer of two overlapping paths.
func deeper(p, q []string) []string {
	if len(q) > len(p) {
		return q
	}
	return p
}

func overlaps(p, q []string) bool {
	n := min(len(p), len(q))
	return slices.Equal(p[:n], q[:n])
}

func overlapsAny(p []string, qs [][]string) bool {
	return slices.ContainsFunc(qs, func(q []string) bool { return overlaps(p, q) })
}

func decodeJSON(data []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

// changedPaths are the members where before and after differ, at the
// depth revertValue merges them: object members and identified list
// elements are followed, anything else differs whole.
func changedPaths(t reflect.Type, before, after any, prefix []string) [][]string {
	if reflect.DeepEqual(before, after) {
		return nil
	}
	here := [][]string{slices.Clone(prefix)}
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			return here
		}
		var out [][]string
		for _, k := range unionKeys(b, a) {
			out = append(out, changedPaths(memberType(t, k), memberOf(b, k), memberOf(a, k), append(prefix, k))...)
		}
		return out
	case []any:
		a, ok := after.([]any)
		if !ok {
			return here
		}
		et := elemType(t)
		bIdx, ok1 := indexList(et, b)
		aIdx, ok2 := indexList(et, a)
		if !ok1 || !ok2 {
			return here
		}
		var out [][]string
		for _, id := range unionKeys(bIdx, aIdx) {
			out = append(out, changedPaths(et, memberOf(bIdx, id), memberOf(aIdx, id), append(prefix, id))...)
		}
		return out
	}
	return here
}

func unionKeys(a, b map[string]any) []string {
	var keys []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// copyPath sets the member at path p of dst to src's (deleting it where
// src has none) and returns dst; an element src has that dst lacks goes
// in at its place in src. A path through what dst lacks changes nothing.
func copyPath(t reflect.Type, dst, src any, p []string) any {
	if len(p) == 0 {
		return src
	}
	switch d := dst.(type) {
	case map[string]any:
		s, _ := src.(map[string]any)
		inner := memberOf(d, p[0])
		if inner == absent && len(p) > 1 {
			return dst
		}
		if nv := copyPath(memberType(t, p[0]), inner, memberOf(s, p[0]), p[1:]); nv == absent {
			delete(d, p[0])
		} else {
			d[p[0]] = nv
		}
		return d
	case []any:
		et := elemType(t)
		s, _ := src.([]any)
		from := slices.IndexFunc(s, func(e any) bool { return identity(et, e) == p[0] })
		var sv any = absent
		if from >= 0 {
			sv = s[from]
		}
		at := slices.IndexFunc(d, func(e any) bool { return identity(et, e) == p[0] })
		switch {
		case at >= 0:
			if nv := copyPath(et, d[at], sv, p[1:]); nv == absent {
				return slices.Delete(d, at, at+1)
			} else {
				d[at] = nv
			}
		case len(p) == 1 && sv != absent:
			return slices.Insert(d, min(from, len(d)), sv)
		}
	}
	return dst
}
