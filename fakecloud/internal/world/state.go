package world

import (
	"bytes"
	"encoding/json"
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
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/netaddr"
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
	// Images are the project's snapshots and backups; absent in files
	// written before them.
	Images []*schema.Image `json:"images,omitempty"`
	// DedicatedServers are the Robot webservice's; absent in files
	// written before it.
	DedicatedServers []*dedicated.Server `json:"dedicated_servers,omitempty"`
	Actions          []*StoredAction     `json:"actions"`
	Locks            []lockUntil         `json:"locks"`
	LastIDs          map[string]int64    `json:"last_ids"`
	PublicIPv4       PoolState           `json:"public_ipv4"`
	PublicIPv6       uint64              `json:"public_ipv6"`
	Random           []byte              `json:"random"` // the seeded generator's state
	// LBTypeDeprecations are the load balancer types deprecated by an
	// event, by name; absent when none is.
	LBTypeDeprecations map[string]*schema.DeprecationInfo `json:"load_balancer_type_deprecations,omitempty"`
	// Kinds are the tables of the kinds whose table the registry keeps,
	// by kind: absent in files written before them.
	Kinds map[string]json.RawMessage `json:"kinds,omitempty"`
}

type lockUntil struct {
	Resource Ref       `json:"resource"`
	Until    time.Time `json:"until"`
}

type PoolState struct {
	Next netip.Addr   `json:"next"`
	Free []netip.Addr `json:"free"`
}

// Export returns the whole world as JSON: every resource, every action
// (running ones with how they will end), locks, ID counters and the
// generator state, so Import gives back an identical world.
func (w *project) Export() ([]byte, error) {
	data, _, err := w.ExportChanged(0, true)
	return data, err
}

// Snapshot is the world as a state that shares no memory with it: taken
// under the world lock, it is encoded after the lock is released, so
// requests wait for the copy (about a tenth of the encoding) only.
func (w *project) Snapshot() (Snapshot, error) {
	random, err := w.pcg.MarshalBinary()
	if err != nil {
		return Snapshot{}, err
	}
	st := Snapshot{
		Version: stateVersion, Servers: w.Servers.All(), LoadBalancers: w.LoadBalancers.All(), Networks: w.Networks.All(),
		Certificates: w.Certificates.All(), SSHKeys: w.SSHKeys.All(), PrimaryIPs: w.PrimaryIPs.All(), Actions: w.Actions.All(),
		DedicatedServers: w.Dedicated.All(), Images: w.Images.All(),
		Locks: []lockUntil{}, LastIDs: w.LastID, PublicIPv4: PoolState{Next: w.PubIPv4.Next, Free: w.PubIPv4.Free},
		PublicIPv6: w.pubIPv6, Random: random,
	}
	for ref, until := range w.Locks {
		st.Locks = append(st.Locks, lockUntil{ref, until})
	}
	for _, t := range w.Cat.LBTypes() {
		if t.Deprecation != nil {
			if st.LBTypeDeprecations == nil {
				st.LBTypeDeprecations = map[string]*schema.DeprecationInfo{}
			}
			st.LBTypeDeprecations[t.Name] = t.Deprecation
		}
	}
	for _, k := range w.kindList {
		if k.own == nil {
			continue
		}
		data, err := k.own.export(w)
		if err != nil {
			return Snapshot{}, err
		}
		if st.Kinds == nil {
			st.Kinds = map[string]json.RawMessage{}
		}
		st.Kinds[k.name] = data
	}
	slices.SortFunc(st.Locks, func(a, b lockUntil) int { return int(a.Resource.ID - b.Resource.ID) })
	return deepCopy(st), nil
}

// ExportChanged is Export when the world changed since the change count
// since (or always), with the count; data is nil otherwise.
func (w *project) ExportChanged(since uint64, always bool) (data []byte, changes uint64, err error) {
	var st Snapshot
	changed := false
	w.Locked(func() {
		changes = w.Changes
		if changed = changes != since || always; changed {
			w.Settle()
			st, err = w.Snapshot()
		}
	})
	if err != nil || !changed {
		return nil, changes, err
	}
	data, err = EncodeState(st)
	return data, changes, err
}

// Import replaces the world with a snapshot from Export. A malformed
// snapshot is refused with an error naming the field and why, and the
// world is left as it was.
func (w *project) Import(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("snapshot: is not valid UTF-8")
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("snapshot: must be a JSON object; empty and null bodies are refused")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := DecodeState(data, w.Cat)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	fresh := w.Scratch()
	if err := fresh.load(st); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	w.Adopt(fresh)
	w.Changes++
	return nil
}

// Scratch is an empty world with w's configuration, to build a new
// content in before w adopts it.
func (w *project) Scratch() *project {
	fresh := &project{Now: w.Now, ActionDuration: w.ActionDuration, ActionPolls: w.ActionPolls, seed: w.seed, Realism: w.Realism,
		ActionFault: w.ActionFault, LBIPv4: w.LBIPv4, Probed: w.Probed, carried: w.carried, kinds: w.kinds, kindList: w.kindList, commands: w.commands}
	fresh.Reset()
	return fresh
}

// Adopt takes over another world's content (not its mutex, configuration
// or scenario schedule).
func (w *project) Adopt(o *project) {
	w.Rng, w.pcg, w.LastID, w.Cat = o.Rng, o.pcg, o.LastID, o.Cat
	w.Servers, w.LoadBalancers, w.Networks, w.Certificates = o.Servers, o.LoadBalancers, o.Networks, o.Certificates
	w.SSHKeys, w.PrimaryIPs, w.Actions, w.running, w.LockedBy = o.SSHKeys, o.PrimaryIPs, o.Actions, o.running, o.LockedBy
	w.Locks, w.PubIPv4, w.pubIPv6, w.Dedicated, w.Images = o.Locks, o.PubIPv4, o.pubIPv6, o.Dedicated, o.Images
	w.NetMembers, w.NetUsed, w.NetHint, w.owned = o.NetMembers, o.NetUsed, o.NetHint, o.owned
}

// uniqueIDs checks each kind's IDs and its ID counter, and that the names
// and fingerprints the API keeps unique are given once.
func uniqueIDs(st Snapshot) []error {
	last := st.LastIDs
	var errs []error
	errs = append(errs, checkIDs("servers", "server", last, st.Servers, func(s *StoredServer) (int64, string) { return s.ID, s.Name })...)
	errs = append(errs, checkIDs("load_balancers", "load_balancer", last, st.LoadBalancers, func(lb *StoredLoadBalancer) (int64, string) { return lb.ID, lb.Name })...)
	errs = append(errs, checkIDs("networks", "network", last, st.Networks, func(n *schema.Network) (int64, string) { return n.ID, n.Name })...)
	errs = append(errs, checkIDs("certificates", "certificate", last, st.Certificates, func(c *schema.Certificate) (int64, string) { return c.ID, c.Name })...)
	errs = append(errs, checkIDs("ssh_keys", "ssh_key", last, st.SSHKeys, func(k *schema.SSHKey) (int64, string) { return k.ID, k.Name })...)
	errs = append(errs, uniqueField("ssh_keys", "fingerprint", st.SSHKeys, func(k *schema.SSHKey) string { return k.Fingerprint })...)
	errs = append(errs, checkIDs("primary_ips", "primary_ip", last, st.PrimaryIPs, func(p *schema.PrimaryIP) (int64, string) { return p.ID, p.Name })...)
	errs = append(errs, checkIDs("images", "image", last, st.Images, func(im *schema.Image) (int64, string) { return im.ID, "" })...)
	// Robot allows several servers of one name.
	errs = append(errs, checkIDs("dedicated_servers", "dedicated_server", last, st.DedicatedServers, func(d *dedicated.Server) (int64, string) { return d.Number, "" })...)
	return append(errs, checkIDs("actions", "action", last, st.Actions, func(a *StoredAction) (int64, string) { return a.ID, "" })...)
}

// load fills an empty world from a snapshot, checking what a world needs
// to be consistent.
func (w *project) load(st Snapshot) error {
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
		if !slices.Contains(ServerStatuses, s.Status) {
			bad("servers[%d].status: %q is not a server status", i, s.Status)
		}
		if _, ok := w.Cat.ServerType(s.ServerType.Name); !ok {
			bad("servers[%d].server_type.name: %q is not in the catalogue", i, s.ServerType.Name)
		}
		if _, ok := w.Cat.Location(s.Location.Name); !ok {
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
	for name, d := range st.LBTypeDeprecations {
		if _, ok := w.Cat.DeprecateLBType(name, d); !ok || d == nil {
			bad("load_balancer_type_deprecations.%s: no load balancer type of the catalogue, or no deprecation", name)
		}
	}
	for i, lb := range st.LoadBalancers {
		if _, ok := w.Cat.LBType(lb.LoadBalancerType.Name); !ok {
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
	if !netaddr.PublicIPv4Range.Contains(st.PublicIPv4.Next) {
		bad("public_ipv4.next: %v is not an address of %s", st.PublicIPv4.Next, netaddr.PublicIPv4Range)
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
	putAll(&w.Servers, st.Servers, func(s *StoredServer) int64 { return s.ID })
	putAll(&w.LoadBalancers, st.LoadBalancers, func(lb *StoredLoadBalancer) int64 { return lb.ID })
	putAll(&w.Networks, st.Networks, func(n *schema.Network) int64 { return n.ID })
	putAll(&w.Certificates, st.Certificates, func(c *schema.Certificate) int64 { return c.ID })
	putAll(&w.SSHKeys, st.SSHKeys, func(k *schema.SSHKey) int64 { return k.ID })
	putAll(&w.PrimaryIPs, st.PrimaryIPs, func(p *schema.PrimaryIP) int64 { return p.ID })
	putAll(&w.Images, st.Images, func(im *schema.Image) int64 { return im.ID })
	putAll(&w.Actions, st.Actions, func(a *StoredAction) int64 { return a.ID })
	if errs := w.loadOwned(st); len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, a := range st.Actions {
		if a.Status == "running" {
			w.track(a)
		}
	}
	for _, l := range st.Locks {
		w.Locks[l.Resource] = l.Until
	}
	if st.LastIDs != nil {
		w.LastID = st.LastIDs
	}
	w.PubIPv4.Next, w.PubIPv4.Free = st.PublicIPv4.Next, st.PublicIPv4.Free
	w.pubIPv6 = st.PublicIPv6
	w.pcg = pcg
	w.Rng = rand.New(pcg)
	w.ReindexNetworks()
	return nil
}

func putAll[T any](t *Table[T], items []*T, id func(*T) int64) {
	for _, it := range items {
		t.Put(id(it), it)
	}
}

// checkIDs reports entries that are null, lack a positive ID, or repeat
// an ID or a (non-empty) name, and an ID counter below the largest ID, so
// that the next resource would take an ID in use. kind names the list as
// the snapshot does; counter is its ID counter in last_ids.
func checkIDs[T any](kind, counter string, lastIDs map[string]int64, items []*T, key func(*T) (int64, string)) []error {
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
	if lastIDs[counter] < largest {
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

// loadOwned fills the tables the registry keeps from the snapshot's
// kinds: a kind it does not know, or a malformed table, is an error.
func (w *project) loadOwned(st Snapshot) []error {
	var errs []error
	for name, data := range st.Kinds {
		k, ok := w.kinds[name]
		if !ok || k.own == nil {
			errs = append(errs, fmt.Errorf("kinds.%s: is not a kind fakecloud keeps", name))
			continue
		}
		errs = append(errs, k.own.load(w, data, st.LastIDs)...)
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}
