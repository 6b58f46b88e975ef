package world

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/dedicated"
)

// stateVersion is the snapshot format Export writes; Import reads it and
// version 1 (state_file.go), and refuses others.
const stateVersion = 2

// Snapshot is the whole world as JSON: what Export writes and Import reads.
type Snapshot struct {
	Version       int                   `json:"version"`
	Servers       []*StoredServer       `json:"servers"`
	LoadBalancers []*StoredLoadBalancer `json:"load_balancers"`
	Networks      []*schema.Network     `json:"networks"`
	Certificates  []*schema.Certificate `json:"certificates"`
	SSHKeys       []*schema.SSHKey      `json:"ssh_keys"`
	PrimaryIPs    []*schema.PrimaryIP   `json:"primary_ips"`
	// DedicatedServers are the Robot webservice's; absent in files
	// written before it.
	DedicatedServers []*dedicated.Server `json:"dedicated_servers,omitempty"`
	Actions          []*StoredAction     `json:"actions"`
	Locks            []lockUntil         `json:"locks"`
	LastIDs          map[string]int64    `json:"last_ids"`
	PublicIPv4       PoolState           `json:"public_ipv4"`
	PublicIPv6       uint64              `json:"public_ipv6"`
	Random           []byte              `json:"random"` // the seeded generator's state
}

type lockUntil struct {
	Resource resourceRef `json:"resource"`
	Until    time.Time   `json:"until"`
}

type PoolState struct {
	Next netip.Addr   `json:"next"`
	Free []netip.Addr `json:"free"`
}

// Export returns the whole world as JSON: every resource, every action
// (running ones with how they will end), locks, ID counters and the
// generator state, so Import gives back an identical world.
func (w *State) Export() ([]byte, error) {
	var st Snapshot
	var err error
	w.locked(func() {
		w.settle()
		st, err = w.snapshot()
	})
	if err != nil {
		return nil, err
	}
	return encodeState(st)
}

// snapshot is the world as a state that shares no memory with it: taken
// under the world lock, it is encoded after the lock is released, so
// requests wait for the copy (about a tenth of the encoding) only.
func (w *State) snapshot() (Snapshot, error) {
	random, err := w.pcg.MarshalBinary()
	if err != nil {
		return Snapshot{}, err
	}
	st := Snapshot{
		Version: stateVersion, Servers: w.servers.all(), LoadBalancers: w.loadBalancers.all(), Networks: w.networks.all(),
		Certificates: w.certificates.all(), SSHKeys: w.sshKeys.all(), PrimaryIPs: w.primaryIPs.all(), Actions: w.actions.all(),
		DedicatedServers: w.dedicated.all(),
		Locks:            []lockUntil{}, LastIDs: w.lastID, PublicIPv4: PoolState{Next: w.pubIPv4.next, Free: w.pubIPv4.free},
		PublicIPv6: w.pubIPv6, Random: random,
	}
	for ref, until := range w.locks {
		st.Locks = append(st.Locks, lockUntil{ref, until})
	}
	slices.SortFunc(st.Locks, func(a, b lockUntil) int { return int(a.Resource.ID - b.Resource.ID) })
	return deepCopy(st), nil
}

// ExportChanged is Export when the world changed since the change count
// since (or always), with the count; data is nil otherwise.
func (w *State) ExportChanged(since uint64, always bool) (data []byte, changes uint64, err error) {
	var st Snapshot
	changed := false
	w.locked(func() {
		changes = w.changes
		if changed = changes != since || always; changed {
			w.settle()
			st, err = w.snapshot()
		}
	})
	if err != nil || !changed {
		return nil, changes, err
	}
	data, err = encodeState(st)
	return data, changes, err
}

// Import replaces the world with a snapshot from Export. A malformed
// snapshot is refused with an error naming the field and why, and the
// world is left as it was.
func (w *State) Import(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("snapshot: is not valid UTF-8")
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("snapshot: must be a JSON object; empty and null bodies are refused")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := decodeState(data, w.cat)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	fresh := w.scratch()
	if err := fresh.load(st); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	w.adopt(fresh)
	w.changes++
	return nil
}

// scratch is an empty world with w's configuration, to build a new
// content in before w adopts it.
func (w *State) scratch() *State {
	fresh := &State{now: w.now, actionDuration: w.actionDuration, actionPolls: w.actionPolls, seed: w.seed, realism: w.realism,
		actionFault: w.actionFault, lbIPv4: w.lbIPv4, probed: w.probed}
	fresh.reset()
	return fresh
}

// adopt takes over another world's content (not its mutex, configuration
// or scenario schedule).
func (w *State) adopt(o *State) {
	w.rng, w.pcg, w.lastID, w.cat = o.rng, o.pcg, o.lastID, o.cat
	w.servers, w.loadBalancers, w.networks, w.certificates = o.servers, o.loadBalancers, o.networks, o.certificates
	w.sshKeys, w.primaryIPs, w.actions, w.running, w.lockedBy = o.sshKeys, o.primaryIPs, o.actions, o.running, o.lockedBy
	w.locks, w.pubIPv4, w.pubIPv6, w.dedicated = o.locks, o.pubIPv4, o.pubIPv6, o.dedicated
	w.netMembers, w.netUsed, w.netHint = o.netMembers, o.netUsed, o.netHint
}

// uniqueIDs checks each kind's IDs and its ID counter, and that the names
// and fingerprints the API keeps unique are given once.
func uniqueIDs(st Snapshot) []error {
	last := st.LastIDs
	var errs []error
	errs = append(errs, checkIDs("servers", last, st.Servers, func(s *StoredServer) (int64, string) { return s.ID, s.Name })...)
	errs = append(errs, checkIDs("load_balancers", last, st.LoadBalancers, func(lb *StoredLoadBalancer) (int64, string) { return lb.ID, lb.Name })...)
	errs = append(errs, checkIDs("networks", last, st.Networks, func(n *schema.Network) (int64, string) { return n.ID, n.Name })...)
	errs = append(errs, checkIDs("certificates", last, st.Certificates, func(c *schema.Certificate) (int64, string) { return c.ID, c.Name })...)
	errs = append(errs, checkIDs("ssh_keys", last, st.SSHKeys, func(k *schema.SSHKey) (int64, string) { return k.ID, k.Name })...)
	errs = append(errs, uniqueField("ssh_keys", "fingerprint", st.SSHKeys, func(k *schema.SSHKey) string { return k.Fingerprint })...)
	errs = append(errs, checkIDs("primary_ips", last, st.PrimaryIPs, func(p *schema.PrimaryIP) (int64, string) { return p.ID, p.Name })...)
	// Robot allows several servers of one name.
	errs = append(errs, checkIDs("dedicated_servers", last, st.DedicatedServers, func(d *dedicated.Server) (int64, string) { return d.Number, "" })...)
	return append(errs, checkIDs("actions", last, st.Actions, func(a *StoredAction) (int64, string) { return a.ID, "" })...)
}

// load fills an empty world from a snapshot, checking what a world needs
// to be consistent.
func (w *State) load(st Snapshot) error {
	if st.Version != stateVersion && st.Version != 1 {
		return fmt.Errorf("version: %d is not the supported version %d", st.Version, stateVersion)
	}
	errs := uniqueIDs(st)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	networks := map[int64]*schema.Network{}
	for i, n := range st.Networks {
		if _, err := netip.ParsePrefix(n.IPRange); err != nil {
			bad("networks[%d].ip_range: %q is not a prefix", i, n.IPRange)
		}
		networks[n.ID] = n
	}
	for i, s := range st.Servers {
		if !slices.Contains(serverStatuses, s.Status) {
			bad("servers[%d].status: %q is not a server status", i, s.Status)
		}
		if _, ok := w.cat.ServerType(s.ServerType.Name); !ok {
			bad("servers[%d].server_type.name: %q is not in the catalogue", i, s.ServerType.Name)
		}
		if _, ok := w.cat.Location(s.Location.Name); !ok {
			bad("servers[%d].location.name: %q is not in the catalogue", i, s.Location.Name)
		}
		for j, pn := range s.PrivateNet {
			if networks[pn.Network] == nil {
				bad("servers[%d].private_net[%d].network: network %d is not in the snapshot", i, j, pn.Network)
			}
			if _, err := netip.ParseAddr(pn.IP); err != nil {
				bad("servers[%d].private_net[%d].ip: %q is not an IP address", i, j, pn.IP)
			}
		}
	}
	for i, lb := range st.LoadBalancers {
		if _, ok := w.cat.LBType(lb.LoadBalancerType.Name); !ok {
			bad("load_balancers[%d].load_balancer_type.name: %q is not in the catalogue", i, lb.LoadBalancerType.Name)
		}
		for j, pn := range lb.PrivateNet {
			if networks[pn.Network] == nil {
				bad("load_balancers[%d].private_net[%d].network: network %d is not in the snapshot", i, j, pn.Network)
			}
		}
	}
	for i, a := range st.Actions {
		if !slices.Contains([]string{"running", "success", "error"}, a.Status) {
			bad("actions[%d].status: %q is not one of running, success, error", i, a.Status)
		}
	}
	if !publicIPv4Range.Contains(st.PublicIPv4.Next) {
		bad("public_ipv4.next: %v is not an address of %s", st.PublicIPv4.Next, publicIPv4Range)
	}
	pcg := &rand.PCG{}
	if err := pcg.UnmarshalBinary(st.Random); err != nil {
		bad("random: %v", err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if errs := checkInvariants(&st); len(errs) > 0 {
		return errors.Join(errs...)
	}
	if errs := w.loadDedicated(st.DedicatedServers); len(errs) > 0 {
		return errors.Join(errs...)
	}
	putAll(&w.servers, st.Servers, func(s *StoredServer) int64 { return s.ID })
	putAll(&w.loadBalancers, st.LoadBalancers, func(lb *StoredLoadBalancer) int64 { return lb.ID })
	putAll(&w.networks, st.Networks, func(n *schema.Network) int64 { return n.ID })
	putAll(&w.certificates, st.Certificates, func(c *schema.Certificate) int64 { return c.ID })
	putAll(&w.sshKeys, st.SSHKeys, func(k *schema.SSHKey) int64 { return k.ID })
	putAll(&w.primaryIPs, st.PrimaryIPs, func(p *schema.PrimaryIP) int64 { return p.ID })
	putAll(&w.actions, st.Actions, func(a *StoredAction) int64 { return a.ID })
	for _, a := range st.Actions {
		if a.Status == "running" {
			w.running = append(w.running, a.ID)
			if a.Lock.ID != 0 {
				w.lockedBy[a.Lock] = a.ID
			}
		}
	}
	for _, l := range st.Locks {
		w.locks[l.Resource] = l.Until
	}
	if st.LastIDs != nil {
		w.lastID = st.LastIDs
	}
	w.pubIPv4.next, w.pubIPv4.free = st.PublicIPv4.Next, st.PublicIPv4.Free
	w.pubIPv6 = st.PublicIPv6
	w.pcg = pcg
	w.rng = rand.New(pcg)
	w.reindexNetworks()
	return nil
}

func putAll[T any](t *table[T], items []*T, id func(*T) int64) {
	for _, it := range items {
		t.put(id(it), it)
	}
}

// checkIDs reports entries that are null, lack a positive ID, or repeat
// an ID or a (non-empty) name, and an ID counter below the largest ID, so
// that the next resource would take an ID in use. kind is plural, as in a
// snapshot; last_ids names it in the singular.
func checkIDs[T any](kind string, lastIDs map[string]int64, items []*T, key func(*T) (int64, string)) []error {
	var errs []error
	ids := map[int64]bool{}
	var largest int64
	for i, it := range items {
		if it == nil {
			errs = append(errs, fmt.Errorf("%s[%d]: is null", kind, i))
			continue
		}
		id, _ := key(it)
		switch {
		case id < 1:
			errs = append(errs, fmt.Errorf("%s[%d].id: %d is not a positive ID", kind, i, id))
		case ids[id]:
			errs = append(errs, fmt.Errorf("%s[%d].id: %d appears twice", kind, i, id))
		}
		ids[id], largest = true, max(largest, id)
	}
	if counter := strings.TrimSuffix(kind, "s"); lastIDs[counter] < largest {
		errs = append(errs, fmt.Errorf("last_ids.%s: %d is below the largest %s ID %d", counter, lastIDs[counter], counter, largest))
	}
	return append(errs, uniqueField(kind, "name", items, func(it *T) string { _, name := key(it); return name })...)
}

// uniqueField reports a (non-empty) field value given twice within a kind.
func uniqueField[T any](kind, field string, items []*T, of func(*T) string) []error {
	var errs []error
	seen := map[string]bool{}
	for i, it := range items {
		if it == nil {
			continue
		}
		v := of(it)
		if v != "" && seen[v] {
			errs = append(errs, fmt.Errorf("%s[%d].%s: %q appears twice", kind, i, field, v))
		}
		seen[v] = true
	}
	return errs
}
