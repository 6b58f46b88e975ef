package world

import (
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world/internal/model"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world/internal/store"
)

// State is the whole simulated project as it is now, what requests read
// and change. Its tables, lock and actions live in internal/store, which
// only this package reaches: the API's package holds a State and changes
// it through the operations of a Tx only.
type State struct{ w *ops }

// ops is the model as the operations see it: the typed operations and
// their helpers are methods of it, and reach the tables directly.
type ops struct{ *model.Model }

// The store's types that the operations' callers see.
type (
	Event               = event.Event
	Config              = store.Config
	Realism             = store.Realism
	Duration            = store.Duration
	SeedDedicatedServer = dedicated.SeedDedicatedServer
	Snapshot            = store.Snapshot
	StoredServer        = store.StoredServer
	StoredLoadBalancer  = store.StoredLoadBalancer
	StoredAction        = store.StoredAction
	PoolState           = store.PoolState
	ServerView          = model.ServerView
	LoadBalancerView    = model.LoadBalancerView
	ServiceSpec         = model.ServiceSpec
	TargetSpec          = model.TargetSpec
)

// The modes of Realism, and how long finished actions stay listed under
// pessimistic realism by default.
const (
	RealismOptimistic      = store.RealismOptimistic
	RealismPessimistic     = store.RealismPessimistic
	DefaultActionRetention = store.DefaultActionRetention
)

// New returns an empty world with the catalogue. A Realism that does not
// check panics: the caller checks it first.
func New(c Config) *State { return &State{&ops{&model.Model{State: store.New(c)}}} }

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

// DedicatedServers copies the dedicated servers, in number order, for
// the webservice.
func (s *State) DedicatedServers() []dedicated.Server { return s.w.DedicatedServers() }

// SetRealism changes the realism from now on; a bad one changes nothing.
func (s *State) SetRealism(r Realism) error {
	r, err := r.Check()
	if err != nil {
		return err
	}
	s.w.Mu.Lock()
	s.w.Realism = r
	s.w.Mu.Unlock()
	return nil
}

// Realism returns the realism in force.
func (s *State) Realism() Realism {
	s.w.Mu.Lock()
	defer s.w.Mu.Unlock()
	return s.w.Realism
}

// CheckInvariants reports what makes a snapshot inconsistent: IDs and
// names not unique per kind, and the invariants Import holds a snapshot
// to.
func CheckInvariants(st *Snapshot) []error { return store.CheckInvariants(st) }
