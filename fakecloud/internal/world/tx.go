package world

import (
	"fmt"
	"maps"
	"net/netip"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

// Tx is one request's hold on the world: its methods are the typed
// operations the API's endpoints perform, each validating its request
// and changing the world completely or not at all. A Tx is valid only
// inside the function the world runs it in, under the world's lock.
// Results are copies in the API's schema, never the stored resources.
type Tx struct{ w *project }

// Read runs f under the world's lock, after settling due actions, for a
// read that is not an API request (the metadata service).
func (s *State) Read(f func(*Tx)) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Settle()
	f(&Tx{w})
}

// Catalog is the catalogue: locations, datacenters, types, images and
// prices. Only the event deprecate_load_balancer_type changes it.
func (t *Tx) Catalog() *catalog.Catalog { return t.w.Cat }

// Run runs f as one API request under the world's lock, after settling
// due actions: f either changes the world completely or not at all, and
// says whether it changed it. Run returns the commands of the actions f
// started, for the journal. The lock is released however f ends.
func (s *State) Run(f func(*Tx) (changed bool)) (started []string) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Settle()
	w.Started = nil
	if f(&Tx{w}) {
		w.Changes++
	}
	started, w.Started = w.Started, nil
	return started
}

// Reset empties the world back to the catalogue alone.
func (s *State) Reset() {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Reset()
	w.Changes++
}

// Replace builds a new content with plant in a scratch world whose
// actions Finish at once, and takes it over only when plant succeeds: a
// refused content changes nothing, ID counters included. Action faults
// are meant for API clients, so planting neither spends nor meets them.
func (s *State) Replace(plant func(*Tx) error) error {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Settle()
	fresh := w.Scratch()
	fresh.ActionDuration, fresh.ActionPolls, fresh.ActionFault = 0, 0, nil
	if err := plant(&Tx{fresh}); err != nil {
		return err
	}
	w.Adopt(fresh)
	w.Changes++
	return nil
}

// CheckIndex reports whether the index of addresses held per network
// matches the servers' and load balancers' private_net, as rebuilt from
// them.
func (s *State) CheckIndex() error {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	live := usedAddrs(w.NetUsed)
	rebuilt := &project{Servers: w.Servers, LoadBalancers: w.LoadBalancers, NetHint: map[int64]netip.Addr{}}
	rebuilt.ReindexNetworks()
	if fresh := usedAddrs(rebuilt.NetUsed); !maps.EqualFunc(live, fresh, maps.Equal) {
		return fmt.Errorf("the network index %v does not match the resources, which give %v", live, fresh)
	}
	return nil
}

// usedAddrs is an index of addresses in use per network, without the
// networks that hold none (the index may or may not keep them).
func usedAddrs(index map[int64]map[netip.Addr]struct{}) map[int64]map[string]bool {
	out := map[int64]map[string]bool{}
	for id, used := range index {
		for a := range used {
			if out[id] == nil {
				out[id] = map[string]bool{}
			}
			out[id][a.String()] = true
		}
	}
	return out
}

// SetSeedProtection protects a seed's resource as it is created, as its
// kind protects one (a server against delete and rebuild, a load balancer
// against delete), recording no action.
func (t *Tx) SetSeedProtection(kind string, id int64, on bool) {
	if k := t.w.kind(kind); k.protect != nil {
		k.protect(t.w, id, on)
	}
}

// AddDedicatedServers adds a seed's dedicated servers; errors name the
// server and the field.
func (t *Tx) AddDedicatedServers(ds []SeedDedicatedServer) error {
	for i, d := range ds {
		if _, err := t.w.AddDedicated(d); err != nil {
			return PrefixLines(fmt.Sprintf("seed dedicated_servers[%d] (%s): ", i, d.Name), err)
		}
	}
	return nil
}

// deletable is the reference of a resource that may be deleted: not
// protected, and held by no running action or lock.
func (t *Tx) deletable(kind string, id int64, protected bool) (Ref, *apierr.Error) {
	if protected {
		return Ref{}, apierr.Protected(kind, id)
	}
	ref := Ref{Type: kind, ID: id}
	return ref, t.w.CheckLock(ref)
}

// Exists answers not_found unless a resource of the kind has the ID.
func (t *Tx) Exists(kind string, id int64) *apierr.Error {
	if !t.w.exists(kind, id) {
		return apierr.NotFound(kind, id)
	}
	return nil
}

// exists reports whether a resource of a kind has the ID.
func (w *project) exists(kind string, id int64) bool {
	k, ok := w.kinds[kind]
	return ok && k.exists(w, id)
}
