// Package normalise replaces what differs between two runs of the same
// requests (IDs, times, addresses, generated names, passwords, catalogue
// figures) in the Hetzner Cloud API's JSON by stable placeholders, so the
// answers of the live API and of fakecloud can be compared.
//
// Placeholders are numbered per kind in order of first appearance
// (<server:1>, <action:3>, <ipv4:2>), so relations stay visible: the same
// server ID is the same placeholder in a path, in an answer and in an
// action's resources. Objects are walked in the order of their sorted
// keys, so the numbering is the same on every run. The JSON's shape and
// the order of lists are kept.
package normalise

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Normaliser holds the placeholders given so far. One Normaliser serves
// one snapshot; it is not safe for concurrent use.
type Normaliser struct {
	keep  map[string]bool
	subs  [][2]string
	given map[string]string // kind NUL raw value -> placeholder
	count map[string]int
}

// New returns a Normaliser with no placeholders given.
func New() *Normaliser {
	return &Normaliser{keep: map[string]bool{}, given: map[string]string{}, count: map[string]int{}}
}

// Keep leaves these addresses and ranges as they are: the ones the
// scenario chose, which are the same on every run.
func (n *Normaliser) Keep(values ...string) {
	for _, v := range values {
		n.keep[v] = true
	}
}

// Substitute replaces old wherever it appears inside a string by
// placeholder, e.g. the run's ID inside names and labels by <run>.
func (n *Normaliser) Substitute(old, placeholder string) {
	if old != "" {
		n.subs = append(n.subs, [2]string{old, placeholder})
	}
}

// Placeholder returns the placeholder of a value of a kind, giving the
// next one of the kind when the value is new.
func (n *Normaliser) Placeholder(kind, raw string) string {
	key := kind + "\x00" + raw
	if p, ok := n.given[key]; ok {
		return p
	}
	n.count[kind]++
	p := fmt.Sprintf("<%s:%d>", kind, n.count[kind])
	n.given[key] = p
	return p
}

// Path normalises a URL path: an ID after a collection
// (/servers/42/actions/poweron) becomes that kind's placeholder.
func (n *Normaliser) Path(p string) string {
	segs := strings.Split(p, "/")
	for i := 1; i < len(segs); i++ {
		if kind, ok := pathKinds[segs[i-1]]; ok && isDecimal(segs[i]) {
			segs[i] = n.Placeholder(kind, segs[i])
		}
	}
	return strings.Join(segs, "/")
}

// Query normalises a query's values; nil when there is none.
func (n *Normaliser) Query(q url.Values) map[string][]string {
	if len(q) == 0 {
		return nil
	}
	out := make(map[string][]string, len(q))
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			s, _ := n.str(k, v, parent{}).(string)
			out[k] = append(out[k], s)
		}
	}
	return out
}

// JSON normalises a JSON document. An empty body is nil; a body that is
// not JSON is replaced by a note of its length, since it is no answer the
// API documents.
func (n *Normaliser) JSON(data []byte) any {
	return n.JSONUnder("", data)
}

// JSONUnder normalises a JSON document as if it sat under key: an
// action read alone is normalised as the value of {"action": ...}.
func (n *Normaliser) JSONUnder(key string, data []byte) any {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("<not JSON: %d bytes>", len(data))
	}
	return n.field(key, v, parent{})
}

// Value normalises a decoded JSON value (numbers as json.Number).
func (n *Normaliser) Value(v any) any {
	return n.field("", v, parent{})
}

// parent is the object a value sits in, and the key that object sits
// under (list items sit under their list's key).
type parent struct {
	key string
	obj map[string]any
}

// kind is the kind of resource the object is, if any.
func (p parent) kind() string {
	if p.key == "resources" {
		t, _ := p.obj["type"].(string)
		return t
	}
	return resourceKinds[p.key]
}

func (n *Normaliser) field(key string, v any, p parent) any {
	switch {
	case catalogueKeys[key]:
		return n.catalogue(key, v)
	case reducedKeys[key]:
		return shape(v)
	}
	switch x := v.(type) {
	case map[string]any:
		return n.object(key, x)
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = n.field(key, item, p)
		}
		return out
	case json.Number:
		return n.number(key, x, p)
	case string:
		return n.str(key, x, p)
	}
	return v
}

func (n *Normaliser) object(key string, obj map[string]any) map[string]any {
	p := parent{key: key, obj: obj}
	out := make(map[string]any, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		out[k] = n.field(k, obj[k], p)
	}
	// A running action's progress is how far it got when asked.
	if _, ok := obj["progress"]; ok && p.kind() == "action" && obj["status"] == "running" {
		out["progress"] = "<progress>"
	}
	return out
}

func (n *Normaliser) number(key string, v json.Number, p parent) any {
	switch {
	case v == "0":
		return v // no ID: nothing to relate
	case key == "id":
		kind := p.kind()
		if kind == "" {
			kind = "id"
		}
		return n.Placeholder(kind, v.String())
	case strings.HasSuffix(key, "_id"):
		kind := strings.TrimSuffix(key, "_id")
		if t, ok := p.obj[kind+"_type"].(string); ok && t != "" {
			kind = t // assignee_id with assignee_type server
		}
		return n.Placeholder(kind, v.String())
	case resourceKinds[key] != "" && key != "ipv4" && key != "ipv6":
		return n.Placeholder(resourceKinds[key], v.String())
	}
	return v
}

func (n *Normaliser) str(key, s string, p parent) any {
	if kind, ok := secretKeys[key]; ok {
		return n.Placeholder(kind, s)
	}
	// Messages are prose, and the live API's differ from fakecloud's; the
	// code and the fields named in details are what a client acts on.
	if (key == "message" && p.key == "error") || key == "messages" {
		return "<message>"
	}
	s, chosen := n.substitute(s)
	if key == "name" && namedKinds[p.kind()] && !chosen {
		return n.Placeholder("name", s)
	}
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return "<time>" // equal or not depends on timing, so all are one placeholder
	}
	if n.keep[s] {
		return s
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return n.Placeholder(family("ip", a), s)
	}
	if pf, err := netip.ParsePrefix(s); err == nil {
		return n.Placeholder(family("cidr", pf.Addr()), s)
	}
	return s
}

func (n *Normaliser) substitute(s string) (string, bool) {
	changed := false
	for _, sub := range n.subs {
		if strings.Contains(s, sub[0]) {
			s, changed = strings.ReplaceAll(s, sub[0], sub[1]), true
		}
	}
	return s, changed
}

// catalogue reduces a catalogue entry (see catalogueKeys).
func (n *Normaliser) catalogue(key string, v any) any {
	switch x := v.(type) {
	case string:
		return n.Placeholder(key, x)
	case json.Number:
		return n.Placeholder(key+"_id", x.String())
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = n.catalogue(key, item)
		}
		return out
	case map[string]any:
		out, _ := shape(x).(map[string]any)
		if name, ok := x["name"].(string); ok {
			out["name"] = n.Placeholder(key, name)
		}
		return out
	}
	return v
}

// shape keeps a value's JSON shape: every key of an object, the first
// item of a list, and the type of each leaf.
func shape(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = shape(e)
		}
		return out
	case []any:
		if len(x) == 0 {
			return []any{}
		}
		return []any{shape(x[0])}
	case string:
		return "<string>"
	case json.Number:
		return "<number>"
	case bool:
		return "<bool>"
	}
	return v
}

func family(prefix string, a netip.Addr) string {
	if a.Is4() {
		return prefix + "v4"
	}
	return prefix + "v6"
}

func isDecimal(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil && s != ""
}
