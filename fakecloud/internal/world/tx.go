package world

import (
	"fmt"
	"maps"
	"net/netip"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/catalog"
)

// Tx is one request's hold on the world: its methods are the typed
// operations the API's endpoints perform, each validating its request
// and changing the world completely or not at all. A Tx is valid only
// inside the function the world runs it in, under the world's lock.
// Results are copies in the API's schema, never the stored resources.
type Tx struct{ w *State }

// Read runs f under the world's lock, after settling due actions, for a
// read that is not an API request (the metadata service).
func (w *State) Read(f func(*Tx)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle()
	f(&Tx{w})
}

// Catalog is the catalogue: locations, datacenters, types, images and
// prices. It does not change.
func (t *Tx) Catalog() *catalog.Catalog { return t.w.cat }

// Run runs f as one API request under the world's lock, after settling
// due actions: f either changes the world completely or not at all, and
// says whether it changed it. Run returns the commands of the actions f
// started, for the journal. The lock is released however f ends.
func (w *State) Run(f func(*Tx) (changed bool)) (started []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle()
	w.started = nil
	if f(&Tx{w}) {
		w.changes++
	}
	started, w.started = w.started, nil
	return started
}

// Reset empties the world back to the catalogue alone.
func (w *State) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reset()
	w.changes++
}

// Replace builds a new content with plant in a scratch world whose
// actions finish at once, and takes it over only when plant succeeds: a
// refused content changes nothing, ID counters included. Action faults
// are meant for API clients, so planting neither spends nor meets them.
func (w *State) Replace(plant func(*Tx) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.settle()
	fresh := w.scratch()
	fresh.actionDuration, fresh.actionPolls, fresh.actionFault = 0, 0, nil
	if err := plant(&Tx{fresh}); err != nil {
		return err
	}
	w.adopt(fresh)
	w.changes++
	return nil
}

// CheckIndex reports whether the index of addresses held per network
// matches the servers' and load balancers' private_net, as rebuilt from
// them.
func (w *State) CheckIndex() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	live := usedAddrs(w.netUsed)
	rebuilt := &State{servers: w.servers, loadBalancers: w.loadBalancers, netHint: map[int64]netip.Addr{}}
	rebuilt.reindexNetworks()
	if fresh := usedAddrs(rebuilt.netUsed); !maps.EqualFunc(live, fresh, maps.Equal) {
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

// locked runs f holding the world lock, released however f ends.
func (w *State) locked(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
}

// SetSeedProtection protects a seed's server (delete and rebuild) or
// load balancer (delete) as it is created, recording no action.
func (t *Tx) SetSeedProtection(kind string, id int64, on bool) {
	switch kind {
	case "server":
		if s, ok := t.w.servers.get(id); ok {
			s.Protection.Delete, s.Protection.Rebuild = on, on
		}
	case "load_balancer":
		if lb, ok := t.w.loadBalancers.get(id); ok {
			lb.Protection.Delete = on
		}
	}
}

// AddDedicatedServers adds a seed's dedicated servers; errors name the
// server and the field.
func (t *Tx) AddDedicatedServers(ds []SeedDedicatedServer) error {
	for i, d := range ds {
		if _, err := t.w.addDedicated(d); err != nil {
			return prefixLines(fmt.Sprintf("seed dedicated_servers[%d] (%s): ", i, d.Name), err)
		}
	}
	return nil
}

// find returns the resource of a kind with the ID, or not_found.
func find[T any](t *table[T], kind string, id int64) (*T, *apiError) {
	v, ok := t.get(id)
	if !ok {
		return nil, notFound(kind, id)
	}
	return v, nil
}

// Exists answers not_found unless a resource of the kind has the ID.
func (t *Tx) Exists(kind string, id int64) *apiError {
	ok := t.w.exists(kind, id)
	if kind == "ssh_key" {
		_, ok = t.w.sshKeys.get(id)
	}
	if !ok {
		return notFound(kind, id)
	}
	return nil
}

// exists reports whether a resource of a kind that actions name has the ID.
func (w *State) exists(kind string, id int64) bool {
	var ok bool
	switch kind {
	case "server":
		_, ok = w.servers.get(id)
	case "load_balancer":
		_, ok = w.loadBalancers.get(id)
	case "network":
		_, ok = w.networks.get(id)
	case "certificate":
		_, ok = w.certificates.get(id)
	case "primary_ip":
		_, ok = w.primaryIPs.get(id)
	}
	return ok
}
