package world

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

// absent stands for a member a JSON object does not have.
type absentValue struct{}

var absent any = absentValue{}

// revertJSON undoes one action's change to a resource: before is the
// resource's JSON before the action, after the JSON it left, current the
// JSON now. The result is current with the action's change taken back
// wherever current still holds what the action set; where another change
// (an event, a cascade of a delete) moved a value since, that change
// stays. Objects are merged member by member, and lists whose elements
// have an identity (a port, a network, a range, a target) element by
// element. t is the resource's Go type: it says which lists have
// identities (undoIdentities).
func revertJSON(t reflect.Type, before, after, current []byte) ([]byte, error) {
	var b, a, c any
	for _, d := range []struct {
		data []byte
		into *any
	}{{before, &b}, {after, &a}, {current, &c}} {
		dec := json.NewDecoder(bytes.NewReader(d.data))
		dec.UseNumber()
		if err := dec.Decode(d.into); err != nil {
			return nil, fmt.Errorf("undo: %w", err)
		}
	}
	return json.Marshal(revertValue(t, b, a, c))
}

// revertValue merges one value of Go type t (nil when unknown).
func revertValue(t reflect.Type, before, after, current any) any {
	switch {
	case reflect.DeepEqual(current, after):
		return before
	case reflect.DeepEqual(before, after):
		return current
	}
	switch cur := current.(type) {
	case map[string]any:
		b, bok := before.(map[string]any)
		a, aok := after.(map[string]any)
		if !bok || !aok {
			return current
		}
		out := map[string]any{}
		for _, m := range []map[string]any{b, a, cur} {
			for k := range m {
				if _, done := out[k]; done {
					continue
				}
				if v := revertValue(memberType(t, k), memberOf(b, k), memberOf(a, k), memberOf(cur, k)); v != absent {
					out[k] = v
				}
			}
		}
		return out
	case []any:
		b, bok := before.([]any)
		a, aok := after.([]any)
		if bok && aok {
			if merged, ok := revertList(elemType(t), b, a, cur); ok {
				return merged
			}
		}
	}
	return current // changed by the action and by another since: the later change stays
}

func memberOf(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return absent
}

// revertList merges lists by element identity: an element the action
// added goes unless changed since, one it removed comes back (at its old
// place) unless added again since, one it changed is merged. ok is false
// for lists whose elements have no identity, or a repeated one.
func revertList(t reflect.Type, before, after, current []any) ([]any, bool) {
	bIdx, ok1 := indexList(t, before)
	aIdx, ok2 := indexList(t, after)
	cIdx, ok3 := indexList(t, current)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	out := []any{}
	for _, e := range current {
		id := identity(t, e)
		av, inAfter := aIdx[id]
		if !inAfter {
			out = append(out, e) // added by another change
			continue
		}
		bv, inBefore := bIdx[id]
		if !inBefore {
			bv = absent
		}
		if v := revertValue(t, bv, av, e); v != absent {
			out = append(out, v)
		}
	}
	for i, e := range before {
		id := identity(t, e)
		_, inAfter := aIdx[id]
		_, inCurrent := cIdx[id]
		if !inAfter && !inCurrent {
			out = slices.Insert(out, min(i, len(out)), e)
		}
	}
	return out, true
}

func indexList(t reflect.Type, list []any) (map[string]any, bool) {
	idx := make(map[string]any, len(list))
	for _, e := range list {
		id := identity(t, e)
		if id == "" {
			return nil, false
		}
		if _, dup := idx[id]; dup {
			return nil, false
		}
		idx[id] = e
	}
	return idx, true
}

// identity names a list element of Go type t: a scalar by its value; an
// object by the members its type's entry in undoIdentities names. "" when
// it has none.
func identity(t reflect.Type, e any) string {
	var obj map[string]any
	switch v := e.(type) {
	case string:
		return "s:" + v
	case json.Number:
		return "n:" + v.String()
	case map[string]any:
		obj = v
	default:
		return ""
	}
	keys := undoIdentities[deref(t)]
	if len(keys) == 0 {
		return ""
	}
	id := map[string]any{}
	for _, k := range keys {
		id[k] = obj[k]
	}
	data, err := json.Marshal(id)
	if err != nil {
		return ""
	}
	return string(data)
}

// deref is t without pointers; nil stays nil.
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// memberType is the type of struct or map type t's member k, nil when
// unknown.
func memberType(t reflect.Type, k string) reflect.Type {
	switch t = deref(t); {
	case t == nil:
		return nil
	case t.Kind() == reflect.Struct:
		return strict.JSONFields(t)[k]
	case t.Kind() == reflect.Map:
		return t.Elem()
	}
	return nil
}

// elemType is the element type of slice type t, nil when unknown.
func elemType(t reflect.Type) reflect.Type {
	if t = deref(t); t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return t.Elem()
	}
	return nil
}

// undoIdentities name, for each element type of a list in a stored
// resource, the JSON members that identify an element, so a failed
// action's undo merges the list element by element (revertList). A type
// mapped to nil has no identity: the list is undone as one value, and a
// later change to it stays. TestEveryListHasAnUndoIdentity fails on a
// list of a struct type missing here, so a new list field cannot compile
// and then undo wrongly. Lists of scalars are sets of their values.
var undoIdentities = map[reflect.Type][]string{
	reflect.TypeFor[schema.ServerPrivateNet]():       {"network"},
	reflect.TypeFor[schema.LoadBalancerPrivateNet](): {"network"},
	reflect.TypeFor[schema.LoadBalancerService]():    {"listen_port"},
	reflect.TypeFor[Target]():                        {"type", "server", "label_selector", "ip"},
	reflect.TypeFor[TargetHealth]():                  {"listen_port"},
	reflect.TypeFor[schema.NetworkSubnet]():          {"ip_range"},
	reflect.TypeFor[schema.NetworkRoute]():           {"destination", "gateway"},
	reflect.TypeFor[schema.ZoneRRSetRecord]():        {"value"},
	reflect.TypeFor[schema.ZonePrimaryNameserver]():  {"address"},

	// Set by the catalogue or by nothing fakecloud's actions change.
	reflect.TypeFor[schema.PricingServerTypePrice]():       nil,
	reflect.TypeFor[schema.PricingLoadBalancerTypePrice](): nil,
	reflect.TypeFor[schema.ServerTypeLocation]():           nil,
	reflect.TypeFor[schema.ServerFirewall]():               nil,
	reflect.TypeFor[schema.ServerPublicNetIPv6DNSPtr]():    nil,
	reflect.TypeFor[schema.CertificateUsedByRef]():         nil,
}

// undoable are the stored types an action's undo restores.
var undoable = []reflect.Type{
	reflect.TypeFor[StoredServer](), reflect.TypeFor[StoredLoadBalancer](),
	reflect.TypeFor[schema.Network](), reflect.TypeFor[schema.Certificate](),
	reflect.TypeFor[StoredZone](),
}
