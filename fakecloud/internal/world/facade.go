package world

import (
	"slices"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
)

// State is the whole simulated project as it is now, what requests read
// and change. Its tables, lock and actions are unexported: the API's
// package holds a State and changes it through the operations of a Tx
// only.
type State struct{ w *project }

// The leaves' types that the operations' callers see.
type (
	Event               = event.Event
	SeedDedicatedServer = dedicated.SeedDedicatedServer
)

// New returns an empty world with the catalogue. A Realism that does not
// check panics: the caller checks it first.
func New(c Config) *State { return &State{newProject(c)} }

// Export returns the whole world as JSON: every resource, every action
// (running ones with how they will end), locks, ID counters and the
// generator state, so Import gives back an identical world.
func (s *State) Export() ([]byte, error) { return s.w.Export() }

// Import replaces the world with a snapshot from Export. A malformed
// snapshot is refused with an error naming the field and why, and the
// world is left as it was.
func (s *State) Import(data []byte) error { return s.w.Import(data) }

// ExportChanged is Export when the world changed since the change count
// since (or always), with the count; data is nil otherwise.
func (s *State) ExportChanged(since uint64, always bool) ([]byte, uint64, error) {
	return s.w.ExportChanged(since, always)
}

// Changes counts the changes acknowledged so far: every request, event
// or import that changed the world adds one before it is answered.
func (s *State) Changes() uint64 {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.Changes
}

// ExportTogether exports several worlds as one cut: each is locked, in
// the order given, until all are copied, so the sum of their change
// counts, which it returns, names exactly what the exports hold.
func ExportTogether(states ...*State) ([][]byte, uint64, error) {
	for _, s := range states {
		s.w.mu.Lock()
	}
	snaps := make([]Snapshot, len(states))
	var changes uint64
	var err error
	for i, s := range states {
		changes += s.w.Changes
		s.w.Settle()
		if snaps[i], err = s.w.Snapshot(); err != nil {
			break
		}
	}
	for _, s := range slices.Backward(states) {
		s.w.mu.Unlock()
	}
	if err != nil {
		return nil, 0, err
	}
	out := make([][]byte, len(snaps))
	for i, st := range snaps {
		if out[i], err = EncodeState(st); err != nil {
			return nil, 0, err
		}
	}
	return out, changes, nil
}

// DedicatedServers copies the dedicated servers, in number order, for
// the webservice.
func (s *State) DedicatedServers() []dedicated.Server { return s.w.DedicatedServers() }

// SetRealism changes the realism from now on; a bad one changes nothing.
func (s *State) SetRealism(r Realism) error {
	r, err := r.Check()
	if err != nil {
		return err
	}
	s.w.mu.Lock()
	s.w.Realism = r
	s.w.mu.Unlock()
	return nil
}

// Realism returns the realism in force.
func (s *State) Realism() Realism {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.Realism
}
