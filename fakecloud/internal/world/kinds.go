package world

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// kind is what the world's shared mechanisms know of one resource kind:
// the undo of a failed action, existence, locks, a seed's protection,
// what an action's end and another resource's deletion do to it, where
// its IDs start and which actions it runs. Each kind declares itself once,
// in its own file, with a function that kindOf.declare completes from its
// table; registry lists those functions, one line a kind. No switch on a
// kind's name stands anywhere else.
type kind struct {
	name     string   // the API's resource type, as an action's resources name it
	idBase   int64    // where its IDs start
	commands []string // the commands of the actions its endpoints start
	// actionsOn are commands this kind's operations start on another
	// kind's resources, listed under that kind's endpoints, by its name
	// (a placement group's add_to_placement_group is a server's action).
	actionsOn map[string][]string
	// shares are its commands that run without holding its resource, as
	// sharedCommands do for every kind.
	shares []string

	// From the table (kindOf.declare):
	typ      reflect.Type // the stored resource's type, which says how its undo merges
	exists   func(w *project, id int64) bool
	snapshot func(w *project, id int64) json.RawMessage // JSON of the stored resource, for an action's undo
	restore  func(w *project, id int64, before, applied json.RawMessage)
	recreate func(w *project, id int64, before json.RawMessage) // puts back a deleted resource

	// Optional:
	// fit leaves out of a restored resource what no longer fits the world.
	fit func(w *project, id int64)
	// protect sets a seed resource's protection as it is created.
	protect func(w *project, id int64, on bool)
	// finish applies what an action's end does to the resource it locked.
	finish func(w *project, id int64, f Finish, ok bool)
	// leave takes a network member of this kind out of the network's
	// entry in its private_net.
	leave func(w *project, id, network int64)
	// onNetwork lists a network member of this kind in the network's view.
	onNetwork func(v *schema.Network, id int64)
	// forget drops this kind's references to a resource being deleted.
	forget func(w *project, gone Ref)
	// onServer fills what a server's view shows of this kind (a server's
	// load balancers, its placement group).
	onServer func(w *project, s *StoredServer, v *ServerView)
	// order checks what a server order in a location asks of this kind,
	// adding to f, and returns what to do once the server exists (nil for
	// nothing): join may start actions, which the order's answer lists in
	// next_actions.
	order func(w *project, f *apierr.Fields, req ServerCreateRequest, loc schema.Location) (join joinServer, err *apierr.Error)
	// relabel checks what new labels on a server would make of this kind
	// (more firewalls than a server takes, through their selectors).
	relabel func(w *project, s *StoredServer, labels map[string]string) *apierr.Error
	// locked is what a request on a resource held by an action answers
	// (locked by default).
	locked func(id int64) *apierr.Error
	// check reports what breaks the world's invariants in the kind's table
	// of a snapshot (its JSON under kinds): the addresses it holds, the
	// resources it names.
	check func(data json.RawMessage, c *snapshotCheck)
	// own is a table the registry keeps, for a kind whose table is not a
	// field of the project: its snapshot under the snapshot's "kinds".
	own *ownTable
}

// ownTable is how a kind's table kept by the registry is saved and
// restored (the world's Reset empties it).
type ownTable struct {
	export func(w *project) (json.RawMessage, error)
	// load fills the table, checked as the world's own lists are (IDs,
	// names, the kind's ID counter in lastIDs); it reports every fault.
	load func(w *project, data json.RawMessage, lastIDs map[string]int64) []error
}

// registry is every kind the world simulates, one line each.
func registry() []kind {
	return []kind{
		serverKind(),
		loadBalancerKind(),
		networkKind(),
		certificateKind(),
		sshKeyKind(),
		primaryIPKind(),
		imageKind(),
		placementGroupKind(),
		floatingIPKind(),
		volumeKind(),
		firewallKind(),
		zoneKind(),
	}
}

// kinds is the registry in registration order and indexed by name; a name
// given twice is a programming error.
func kinds() ([]*kind, map[string]*kind) {
	var list []*kind
	byName := map[string]*kind{}
	for _, k := range registry() {
		if _, dup := byName[k.name]; dup {
			panic("fakecloud: kind " + k.name + " registered twice")
		}
		list = append(list, &k)
		byName[k.name] = &k
	}
	return list, byName
}

// Commands are the commands of the actions fakecloud records, sorted: an
// action fault may name only these (or *). They come from the kinds'
// declarations, and the runner starts no other (startAction panics).
func Commands() []string {
	list, _ := kinds()
	var out []string
	for _, cmds := range commandsByFamily(list) {
		out = append(out, cmds...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// commandsByFamily are the commands listed under each kind's endpoints:
// its own and those other kinds start on its resources, sorted.
func commandsByFamily(ks []*kind) map[string][]string {
	out := map[string][]string{}
	for _, k := range ks {
		out[k.name] = append(out[k.name], k.commands...)
		for family, cmds := range k.actionsOn {
			out[family] = append(out[family], cmds...)
		}
	}
	for family, cmds := range out {
		slices.Sort(cmds)
		out[family] = slices.Compact(cmds)
	}
	return out
}

// kindOf is a kind's typed handle: its name and its table. The kind's
// file holds it as a package-level value and uses it to find, list and
// act on its resources.
type kindOf[T any] struct {
	name  string
	table func(w *project) *Table[T]
}

// declare completes a kind's declaration with what its table gives.
func (k kindOf[T]) declare(d kind) kind {
	d.name = k.name
	d.typ = reflect.TypeFor[T]()
	d.exists = func(w *project, id int64) bool { _, ok := k.table(w).Get(id); return ok }
	d.snapshot = func(w *project, id int64) json.RawMessage {
		v, ok := k.table(w).Get(id)
		if !ok {
			return nil
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		return data
	}
	d.restore = func(w *project, id int64, before, applied json.RawMessage) {
		restoreInto(k.table(w), id, before, applied)
	}
	d.recreate = func(w *project, id int64, before json.RawMessage) {
		var v T
		if json.Unmarshal(before, &v) == nil {
			k.table(w).Put(id, &v)
		}
	}
	return d
}

// find returns the resource with the ID, or not_found.
func (k kindOf[T]) find(w *project, id int64) (*T, *apierr.Error) {
	v, ok := k.table(w).Get(id)
	if !ok {
		return nil, apierr.NotFound(k.name, id)
	}
	return v, nil
}

// ownKind is the handle of a kind whose table the registry keeps (no
// field of the project): it is reset with the world, adopted with it and
// saved under the snapshot's "kinds", as a list in ID order.
// key gives a resource's ID and its name, which is unique within the kind
// ("" for none).
func ownKind[T any](name string, key func(*T) (int64, string)) (kindOf[T], *ownTable) {
	k := kindOf[T]{name: name, table: func(w *project) *Table[T] {
		t, ok := w.owned[name].(*Table[T])
		if !ok {
			nt := NewTable[T]()
			t = &nt
			w.owned[name] = t
		}
		return t
	}}
	own := &ownTable{
		export: func(w *project) (json.RawMessage, error) {
			return json.Marshal(deepCopy(k.table(w).All()))
		},
		load: func(w *project, data json.RawMessage, lastIDs map[string]int64) []error {
			var items []*T
			if err := strictDecode(data, &items); err != nil {
				return []error{fmt.Errorf("kinds.%s: %w", name, err)}
			}
			if errs := checkIDs("kinds."+name, name, lastIDs, items, key); len(errs) > 0 {
				return errs
			}
			t := k.table(w)
			for _, it := range items {
				id, _ := key(it)
				t.Put(id, it)
			}
			return nil
		},
	}
	return k, own
}

// kind returns the registered kind of the name; an unregistered name is a
// programming error.
func (w *project) kind(name string) *kind {
	k, ok := w.kinds[name]
	if !ok {
		panic("fakecloud: kind " + name + " is not registered")
	}
	return k
}

// forgetAll tells every kind that a resource is being deleted, so each
// drops its references to it.
func (w *project) forgetAll(gone Ref) {
	for _, k := range w.kindList {
		if k.forget != nil {
			k.forget(w, gone)
		}
	}
}

// showOnServer fills what every kind shows on a server's view.
func (w *project) showOnServer(s *StoredServer, v *ServerView) {
	for _, k := range w.kindList {
		if k.onServer != nil {
			k.onServer(w, s, v)
		}
	}
}

// checkRelabel asks every kind whether a server may take new labels.
func (w *project) checkRelabel(s *StoredServer, labels map[string]string) *apierr.Error {
	for _, k := range w.kindList {
		if k.relabel != nil {
			if err := k.relabel(w, s, labels); err != nil {
				return err
			}
		}
	}
	return nil
}

// joinServer is what a kind does once an ordered server exists, and the
// actions it starts for it.
type joinServer func(s *StoredServer) []*StoredAction

// orderServer checks what a server order in a location asks of every
// kind, and returns what each does once the server exists, or the first
// kind's refusal.
func (w *project) orderServer(f *apierr.Fields, req ServerCreateRequest, loc schema.Location) ([]joinServer, *apierr.Error) {
	var joins []joinServer
	var refused *apierr.Error
	for _, k := range w.kindList {
		if k.order == nil {
			continue
		}
		join, err := k.order(w, f, req, loc)
		if err != nil && refused == nil {
			refused = err
		}
		if join != nil {
			joins = append(joins, join)
		}
	}
	return joins, refused
}
