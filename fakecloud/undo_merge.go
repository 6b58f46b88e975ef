package fakecloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
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
// element.
func revertJSON(before, after, current []byte) ([]byte, error) {
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
	return json.Marshal(revertValue(b, a, c))
}

func revertValue(before, after, current any) any {
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
				if v := revertValue(memberOf(b, k), memberOf(a, k), memberOf(cur, k)); v != absent {
					out[k] = v
				}
			}
		}
		return out
	case []any:
		b, bok := before.([]any)
		a, aok := after.([]any)
		if bok && aok {
			if merged, ok := revertList(b, a, cur); ok {
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
func revertList(before, after, current []any) ([]any, bool) {
	bIdx, ok1 := indexList(before)
	aIdx, ok2 := indexList(after)
	cIdx, ok3 := indexList(current)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	out := []any{}
	for _, e := range current {
		id := identity(e)
		av, inAfter := aIdx[id]
		if !inAfter {
			out = append(out, e) // added by another change
			continue
		}
		bv, inBefore := bIdx[id]
		if !inBefore {
			bv = absent
		}
		if v := revertValue(bv, av, e); v != absent {
			out = append(out, v)
		}
	}
	for i, e := range before {
		id := identity(e)
		_, inAfter := aIdx[id]
		_, inCurrent := cIdx[id]
		if !inAfter && !inCurrent {
			out = slices.Insert(out, min(i, len(out)), e)
		}
	}
	return out, true
}

func indexList(list []any) (map[string]any, bool) {
	idx := make(map[string]any, len(list))
	for _, e := range list {
		id := identity(e)
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

// identity names a list element: a scalar by its value; an object by the
// members that identify it in the API's lists (a service's port, an
// attachment's network, a subnet's range, a route, a target). "" when it
// has none.
func identity(e any) string {
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
	var keys []string
	switch {
	case obj["listen_port"] != nil:
		keys = []string{"listen_port"}
	case obj["destination"] != nil:
		keys = []string{"destination", "gateway"}
	case obj["network"] != nil:
		keys = []string{"network"}
	case obj["ip_range"] != nil:
		keys = []string{"ip_range"}
	case obj["type"] != nil && (obj["server"] != nil || obj["label_selector"] != nil || obj["ip"] != nil):
		keys = []string{"type", "server", "label_selector", "ip"}
	default:
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
