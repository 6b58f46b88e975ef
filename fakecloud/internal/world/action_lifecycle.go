package world

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// StoredAction is a stored action: what the API shows plus how it ends. Its
// change is applied when it starts; how it ends is data, so a snapshot
// keeps running actions whole.
type StoredAction struct {
	schema.Action
	Due       time.Time           `json:"due"`                  // completes then, unless it waits for polls
	HoldUntil time.Time           `json:"hold_until,omitzero"`  // an action fault's delay keeps it running until then
	PollsLeft int                 `json:"polls_left,omitempty"` // with Options.ActionPolls: completes when this reaches zero
	Lock      Ref                 `json:"lock"`                 // the resource it locks while running
	Family    string              `json:"family,omitempty"`     // the kind of the endpoint that started it; Lock's when empty
	Fail      *schema.ActionError `json:"fail,omitempty"`       // it will end in this error
	Finish    Finish              `json:"finish,omitzero"`
	Undo      json.RawMessage     `json:"undo,omitempty"`      // the locked resource before the change, restored if it fails
	Applied   json.RawMessage     `json:"applied,omitempty"`   // ... and as the change left it, so the undo keeps others' changes
	Sets      [][]string          `json:"sets,omitempty"`      // members of it the change writes even where they held that already
	UndoAlso  []UndoOf            `json:"undo_also,omitempty"` // the other resources it holds, restored with it
}

// Finish is what an action's end does beyond its status.
type Finish struct {
	ServerStatus        string `json:"server_status,omitempty"`          // success: the server's status becomes this
	ServerStatusOnError string `json:"server_status_on_error,omitempty"` // error: ... or this
	IssueCertificate    bool   `json:"issue_certificate,omitempty"`      // success: issued; error: issuance failed
	// AttachNetwork is a new server's attachment, in its network already:
	// success adds it to private_net, error takes the server out again.
	AttachNetwork *schema.ServerPrivateNet `json:"attach_network,omitempty"`
	// Image is create_image's image: success makes it available, error
	// deletes it.
	Image int64 `json:"image,omitempty"`
	// CreateVolume is create_volume's end: success makes the volume
	// available, error deletes it.
	CreateVolume bool `json:"create_volume,omitempty"`
	// Created is the end of an action that made the resource it locks
	// (create_zone): error deletes it.
	Created bool `json:"created,omitempty"`
	// Firewall is what a failed apply_firewall or remove_firewall takes
	// back.
	Firewall *FirewallFinish `json:"firewall,omitempty"`
}

// ActionSpec describes an action to start.
type ActionSpec struct {
	Command   string
	Lock      Ref    // the resource the action locks; the first of Resources when zero
	Resources []Ref  // the resources it names
	Family    string // the kind of the endpoint that starts it, when not the first resource's
	Finish    Finish
	Undo      json.RawMessage // the locked resource before the change
	Sets      [][]string      // members of the locked resource the change writes, whatever they held
	UndoAlso  []UndoOf        // the other resources it undoes, before the change
}

// CheckLock returns locked when a running action, or a lock event, holds
// the resource.
func (w *project) CheckLock(ref Ref) *apierr.Error {
	if _, ok := w.LockedBy[ref]; ok {
		return apierr.Locked(ref.Type, ref.ID)
	}
	return w.CheckEventLock(ref)
}

// CheckEventLock returns locked while a lock event holds the resource.
func (w *project) CheckEventLock(ref Ref) *apierr.Error {
	if until, ok := w.Locks[ref]; ok {
		if w.Now().Before(until) {
			return apierr.Locked(ref.Type, ref.ID)
		}
		delete(w.Locks, ref)
	}
	return nil
}

// startAction records a new running action, with its action fault and
// its duration: with neither, and no poll count, it completes at once,
// effects included. The command must be one its family's kind declares.
func (w *project) startAction(s ActionSpec) *StoredAction {
	w.checkDeclared(s.Family, s.Command, s.Resources)
	now := w.Now()
	a := &StoredAction{
		Action: schema.Action{
			ID: w.NewID("action"), Command: s.Command, Status: "running",
			Started: actionTime(now), Resources: append([]schema.ActionResourceReference{}, refsToSchema(s.Resources)...),
		},
		Due:       now.Add(w.ActionDuration),
		PollsLeft: w.ActionPolls,
		Family:    s.Family,
		Finish:    s.Finish,
		Undo:      s.Undo,
		Sets:      s.Sets,
	}
	a.Lock = s.Lock
	if a.Lock == (Ref{}) && len(s.Resources) > 0 {
		a.Lock = s.Resources[0]
	}
	if s.Undo != nil {
		a.Applied = w.snapshotOf(a.Lock)
	}
	for _, u := range s.UndoAlso {
		u.Applied = w.snapshotOf(u.Resource)
		u.Deleted = u.Applied == nil && u.Before != nil
		a.UndoAlso = append(a.UndoAlso, u)
	}
	var delay time.Duration
	if w.ActionFault != nil {
		code, msg, d := w.ActionFault(s.Command)
		if code != "" {
			a.Fail = &schema.ActionError{Code: code, Message: msg}
		}
		delay = d
		a.Due = a.Due.Add(d)
		a.HoldUntil = now.Add(d)
	}
	w.Actions.Put(a.ID, a)
	w.Started = append(w.Started, s.Command)
	if w.ActionDuration <= 0 && w.ActionPolls <= 0 && delay == 0 {
		w.complete(a, now)
		return a
	}
	w.track(a)
	return a
}

// track lists a running action, which holds its resource, and the others
// it undoes, unless its command is shared.
func (w *project) track(a *StoredAction) {
	w.running = append(w.running, a.ID)
	if a.Lock.ID != 0 && !sharedCommands[a.Command] && !slices.Contains(w.kind(a.Lock.Type).shares, a.Command) {
		w.LockedBy[a.Lock] = a.ID
		for _, u := range a.UndoAlso {
			if u.Shared {
				continue
			}
			// One another running action holds (a new volume's
			// create_volume) stays its: whichever ends first must not free
			// the other's.
			if _, held := w.LockedBy[u.Resource]; !held {
				w.LockedBy[u.Resource] = a.ID
			}
		}
	}
}

// sharedCommands run without holding their resource: another action may
// start on it meanwhile, though they still wait for one that holds it.
// The live API lets the Terraform provider's acceptance tests run two of
// them at once on one resource, with no retry on locked: two
// change_dns_ptr on a server or load balancer (its IPv4 and IPv6 reverse
// DNS), two add_service on a load balancer. Their change is applied when
// they start, so the others of their kind (a service updated or deleted,
// a protection changed, the algorithm) are taken to share too: where the
// API's documentation is silent a resource is locked only while it truly
// cannot change. Power, type, image, network, target and rescue actions
// hold their resource; the provider retries those on locked.
var sharedCommands = map[string]bool{
	"change_dns_ptr": true, "change_protection": true, "change_algorithm": true,
	"add_service": true, "update_service": true, "delete_service": true,
	// A firewall's apply_firewall and remove_firewall, one a server, run
	// side by side: apply_to_resources starts many at once.
	"apply_firewall": true, "remove_firewall": true,
}

// RecordDone records an action that took effect at once, as an event's
// change does: finished as it starts, whatever the action options and
// action faults say. It is listed under its first resource's family.
func (w *project) RecordDone(command string, resources ...Ref) {
	w.RecordDoneUnder("", command, resources...)
}

// RecordDoneUnder is RecordDone for an action listed under a family other
// than its first resource's.
func (w *project) RecordDoneUnder(family, command string, resources ...Ref) *StoredAction {
	w.checkDeclared(family, command, resources)
	now := w.Now()
	at := actionTime(now)
	a := &StoredAction{
		Action: schema.Action{
			ID: w.NewID("action"), Command: command, Status: "success", Progress: 100,
			Started: at, Finished: &at, Resources: refsToSchema(resources),
		},
		Due:    now,
		Family: family,
	}
	if len(resources) > 0 {
		a.Lock = resources[0]
	}
	w.Actions.Put(a.ID, a)
	return a
}

// actionTime is an action's started or finished: to the microsecond, as
// the live API writes them ("2025-10-28T11:49:27.284547+00:00" in
// ansible-collections/hetzner.hcloud#719), so a running action's progress
// is 0 when it starts.
func actionTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func refsToSchema(refs []Ref) []schema.ActionResourceReference {
	out := make([]schema.ActionResourceReference, 0, len(refs))
	for _, r := range refs {
		out = append(out, schema.ActionResourceReference{ID: r.ID, Type: r.Type})
	}
	return out
}

// complete ends a running action with success or its planned failure.
func (w *project) complete(a *StoredAction, at time.Time) {
	finished := actionTime(at)
	a.Finished = &finished
	a.Progress = 100
	ok := a.Fail == nil
	if ok {
		a.Status = "success"
	} else {
		a.Status = "error"
		a.Error = a.Fail
	}
	w.composeEnd(a, ok)
	if !ok {
		if a.Undo != nil {
			w.restore(a.Lock, a.Undo, a.Applied)
		}
		for _, u := range a.UndoAlso {
			if u.Deleted {
				w.recreate(u.Resource, u.Before)
				continue
			}
			w.restore(u.Resource, u.Before, u.Applied)
		}
	}
	if k := w.kind(a.Lock.Type); k.finish != nil && a.Lock.ID != 0 {
		k.finish(w, a.Lock.ID, a.Finish, ok)
	}
	for _, ref := range append([]Ref{a.Lock}, undone(a.UndoAlso)...) {
		if w.LockedBy[ref] == a.ID {
			delete(w.LockedBy, ref)
		}
	}
	a.Undo, a.Applied, a.Sets, a.UndoAlso = nil, nil, nil, nil
}

// Settle completes every running action whose time has come, under the
// world's lock. Every request settles first, as do the metadata service,
// a snapshot and, with load balancer traffic on, the data plane's ticker.
func (w *project) Settle() {
	if len(w.running) == 0 {
		return
	}
	now := w.Now()
	still := w.running[:0]
	for _, id := range w.running {
		a, ok := w.Actions.Get(id)
		if !ok {
			continue
		}
		done := !now.Before(a.Due)
		if w.ActionPolls > 0 {
			done = a.PollsLeft <= 0 && !now.Before(a.HoldUntil)
		}
		if done {
			w.complete(a, now)
			w.Changes++
			continue
		}
		still = append(still, id)
	}
	w.running = still
}

// Polled counts a client's look at an action, for Options.ActionPolls.
func (w *project) Polled(a *StoredAction) {
	if a.Status == "running" && a.PollsLeft > 0 {
		a.PollsLeft--
	}
}

// view is the action as the API shows it, with progress for running ones.
// viewActions is ViewAction of each, in order.
func (w *project) viewActions(as []*StoredAction) []schema.Action {
	out := make([]schema.Action, 0, len(as))
	for _, a := range as {
		out = append(out, w.ViewAction(a))
	}
	return out
}

func (w *project) ViewAction(a *StoredAction) schema.Action {
	v := a.Action
	v.Resources = slices.Clone(a.Resources)
	if v.Resources == nil {
		v.Resources = []schema.ActionResourceReference{}
	}
	if a.Status == "running" && w.ActionDuration > 0 {
		elapsed := w.Now().Sub(a.Started)
		v.Progress = min(99, max(0, int(100*elapsed/w.ActionDuration)))
	}
	return v
}

// ListedUnder reports whether an action is listed under the family of a
// kind (and under the resource of the ID, when id is not zero): an action
// is listed under the family of the endpoint that started it, and a
// resource's listing shows those of its family that name it.
func ListedUnder(a *StoredAction, kind string, id int64) bool {
	if a.StartedUnder() != kind {
		return false
	}
	for _, r := range a.Resources {
		if r.Type == kind && (id == 0 || r.ID == id) {
			return true
		}
	}
	return false
}

// StartedUnder is the kind of the endpoint that started the action.
func (a *StoredAction) StartedUnder() string {
	if a.Family != "" {
		return a.Family
	}
	return a.Lock.Type
}

func undone(us []UndoOf) []Ref {
	out := make([]Ref, 0, len(us))
	for _, u := range us {
		out = append(out, u.Resource)
	}
	return out
}

// checkDeclared panics when an action's command is not one its family's
// kind declares: Commands, which action faults are checked against, lists
// the declared ones, so an undeclared command is a programming error.
func (w *project) checkDeclared(family, command string, resources []Ref) {
	if family == "" && len(resources) > 0 {
		family = resources[0].Type
	}
	if !slices.Contains(w.commands[family], command) {
		panic("fakecloud: no kind declares the command " + command + " on a " + family)
	}
}
