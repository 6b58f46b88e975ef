package world

import (
	"encoding/json"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// step is what an action's plan decides, changing nothing yet: the
// change to apply, what the action's end does, and the resources it
// names and holds beside the one it locks.
type step struct {
	apply  func() // the change, applied when the action starts; nil for none
	finish Finish // what the action's end does
	names  []Ref  // other resources the action names, after the one it locks
	holds  []Ref  // other resources that must be free, held while it runs; a failure undoes their change too
	// sets are members of the locked resource (JSON paths, as
	// undo_compose.go names them) the change writes even where they hold
	// that value already: a later action that sets one takes it over from
	// an earlier one, which may still fail.
	sets [][]string
	// touches are other resources the change writes, or deletes, without
	// holding them: a failure undoes that too (backups come back).
	touches []touch
	family  string // the kind whose endpoints list the action, when not the locked one's
	// resources, when set, are all the action names, in order, instead of
	// the locked one followed by names.
	resources []Ref
}

// act runs an action of a kind on the resource with the ID. It is the one
// way every action on an existing resource runs:
//
//  1. the resource is found (not_found) and free (its kind's locked answer);
//  2. plan validates the request and says what the action does, changing nothing;
//  3. the other resources it holds are free (it holds them while it runs);
//  4. the locked resource and those it holds are kept as they were, the
//     change is applied, and the action starts with its action fault and
//     its duration (startAction);
//  5. an action that fails puts back exactly what the change did (what it
//     deleted too), keeping what others changed meanwhile (restore), and
//     what a later action that has not failed also wrote (composeEnd).
func act[T any](t *Tx, k kindOf[T], id int64, command string, plan func(v *T) (step, *apierr.Error)) (schema.Action, *apierr.Error) {
	w := t.w
	v, err := k.find(w, id)
	if err != nil {
		return schema.Action{}, err
	}
	ref := Ref{Type: k.name, ID: id}
	if err := w.checkFree(ref); err != nil {
		return schema.Action{}, err
	}
	st, err := plan(v)
	if err != nil {
		return schema.Action{}, err
	}
	for _, h := range st.holds {
		if err := w.checkFree(h); err != nil {
			return schema.Action{}, err
		}
	}
	undo := w.snapshotOf(ref)
	var also []UndoOf
	for _, h := range st.holds {
		also = append(also, UndoOf{Resource: h, Before: w.snapshotOf(h)})
	}
	for _, h := range st.touches {
		also = append(also, UndoOf{Resource: h.ref, Before: w.snapshotOf(h.ref), Sets: h.sets, Shared: true})
	}
	if st.apply != nil {
		st.apply()
	}
	refs := append([]Ref{ref}, st.names...)
	if st.resources != nil {
		refs = st.resources
	}
	a := w.startAction(ActionSpec{Command: command, Lock: ref, Resources: refs, Family: st.family, Finish: st.finish, Undo: undo, Sets: st.sets, UndoAlso: also})
	return w.ViewAction(a), nil
}

// touch is a resource an action's change writes without holding it, and
// the members it sets whatever they held (step.sets).
type touch struct {
	ref  Ref
	sets [][]string
}

// checkFree answers its kind's locked error while a running action or a
// lock event holds the resource.
func (w *project) checkFree(ref Ref) *apierr.Error {
	err := w.CheckLock(ref)
	if err == nil {
		return nil
	}
	if k := w.kind(ref.Type); k.locked != nil {
		return k.locked(ref.ID)
	}
	return err
}

// UndoOf is a resource an action holds beside the one it locks, as it
// was before the action's change (Before) and as the change left it
// (Applied), so a failure puts back only the change.
type UndoOf struct {
	Resource Ref             `json:"resource"`
	Before   json.RawMessage `json:"before"`
	Applied  json.RawMessage `json:"applied,omitempty"`
	Sets     [][]string      `json:"sets,omitempty"`    // members the change writes whatever they held
	Shared   bool            `json:"shared,omitempty"`  // written but not held: others may run on it meanwhile
	Deleted  bool            `json:"deleted,omitempty"` // the change deleted it: a failure puts it back
}

// snapshotOf is a resource's JSON, to restore if an action fails.
func (w *project) snapshotOf(ref Ref) json.RawMessage {
	return w.kind(ref.Type).snapshot(w, ref.ID)
}
