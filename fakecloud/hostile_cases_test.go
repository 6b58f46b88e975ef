package fakecloud

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// hostileCase is one generated request.
type hostileCase struct {
	why          string // what is wrong with it, for failure messages
	method, path string // path with its query, under /v1 or /_fakecloud
	body         []byte
	header       []string // name, value pairs over answer's defaults; an empty value removes the header
	remote       string   // the client's address; loopback when empty
	invalid      bool     // wrong whatever the world holds: it must be refused
	want         int      // the status it must get, when only one is right
}

// badIDs are path values that are no ID; nonexistent is an ID of nothing.
var badIDs = []string{"0", "-1", "+1", "01", "1e3", "0x10", "9007199254740992", "99999999999999999999",
	"%FF", "%00", "%EF%BC%91", strings.Repeat("9", 300)}

const nonexistent = "424242"

// badRRSetNames are path values that are no RRSet's name in the seed's
// zone example.com.
var badRRSetNames = []string{"WWW", "a..b", "-a", "a-", "www.example.com", "%FF", "%00", "a%20b", strings.Repeat("a", 300), "*.*", "a*"}

// badQueryValues are raw (escaped) query values, each wrong somewhere.
var badQueryValues = []string{"-1", "0", "99999999999999999999", "1.5", "", "%00", "%E2%80%8B", strings.Repeat("a", 5000)}

// badQueries are whole queries that do not parse or are not UTF-8.
var badQueries = []string{"a=%zz&b=;", "page=%ff", "%ff=1", "name=%", "sort=%zz"}

// badBodies are whole bodies that are not one JSON object in UTF-8, or too
// deep, or larger than the API takes (the last, answered 413).
var badBodies = []string{"null", "[]", `""`, `"x"`, "1", "true", "{", "}", `{"a":1} x`, "{}{}", "{} {}", "\xff\xfe", `{"a":"\ud800"}`,
	"\x00{}", "{}\x00", `{"a":1,}`, `{'a':1}`, "{\"a\":\"\xc3\x28\"}",
	strings.Repeat("[", 100000), `{"a":` + strings.Repeat(`{"b":`, 20000) + "1" + strings.Repeat("}", 20001),
	`{"name":"` + strings.Repeat("x", wire.MaxBody+1) + `"}`}

// badAuth are Authorization headers that carry no valid token.
var badAuth = []string{"", "Bearer " + DefaultToken[1:], "Basic " + DefaultToken, DefaultToken}

// sampler picks a few values of a list for each place, turning through
// the list from one pick to the next, so that each operation gets a few
// of every kind and the whole run every value. Its start comes from the
// operation's name: the cases do not depend on which others run.
type sampler struct{ n int }

func newSampler(key string) *sampler {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return &sampler{n: int(h.Sum32() % 4096)}
}

func take[T any](s *sampler, list []T, k int) []T {
	if k >= len(list) {
		return list
	}
	out := make([]T, 0, k)
	for range k {
		out = append(out, list[s.n%len(list)])
		s.n++
	}
	return out
}

// wrongValue is a JSON text to put where a property's value goes.
type wrongValue struct {
	raw     string
	invalid bool // wrong for every property of the type
}

// wrongValues are the values to try at a place of a JSON type ("" when
// unknown): text that is not UTF-8; values of other types (invalid when
// the type is known); the type's own edge values (invalid when no value
// of the type can be: beyond float64, or beyond int64 for an integer).
func wrongValues(typ string) (text, other, edge []wrongValue) {
	values := []struct{ raw, typ string }{
		{`"x"`, "string"}, {`""`, "string"}, {`"` + strings.Repeat("s", 100_000) + `"`, "string"},
		{"true", "boolean"},
		{"-1", "integer"}, {"0", "integer"}, {"9007199254740993", "integer"},
		{"1.5", "number"}, {"1e400", "number"}, {"99999999999999999999", "number"}, {"-9223372036854775809", "number"},
		{`{"x":1}`, "object"},
		{"[1,2]", "array"}, {"[null]", "array"}, {strings.Repeat("[", 1000) + strings.Repeat("]", 1000), "array"},
	}
	text = []wrongValue{{"\"\xff\"", true}, {`"\udfff"`, true}}
	for _, v := range values {
		same := v.typ == typ || typ == "" || (typ == "number" && v.typ == "integer")
		if typ == "integer" && v.typ == "number" && v.raw != "1.5" {
			same = true // out of range, not of another type
		}
		if !same {
			other = append(other, wrongValue{v.raw, true})
			continue
		}
		tooLarge := v.raw == "1e400" || (typ == "integer" && v.typ == "number")
		edge = append(edge, wrongValue{v.raw, tooLarge})
	}
	return text, other, edge
}

// boundaries are the values just outside what a schema allows: below its
// minimum and above its maximum, shorter and longer than its lengths, not
// one of its enum. The description refuses them; whether the whole
// request is wrong is its to say.
func boundaries(schema map[string]any) []wrongValue {
	var out []wrongValue
	num := func(key string, delta float64) {
		if n, ok := schema[key].(float64); ok {
			out = append(out, wrongValue{raw: fmt.Sprint(int64(n + delta))})
		}
	}
	num("minimum", -1)
	num("maximum", 1)
	if n, ok := schema["minLength"].(float64); ok && n > 0 {
		out = append(out, wrongValue{raw: `"` + strings.Repeat("a", int(n)-1) + `"`})
	}
	if n, ok := schema["maxLength"].(float64); ok {
		out = append(out, wrongValue{raw: `"` + strings.Repeat("a", int(n)+1) + `"`})
	}
	if _, ok := schema["enum"]; ok && schemaType(schema) == "string" {
		out = append(out, wrongValue{raw: `"not-in-the-enum"`})
	}
	return out
}

// location is a place in a body: object keys and array indexes.
type location struct {
	path   []any
	schema map[string]any // the place's schema, nil when unknown
	value  any            // what the base body has there, nil when absent
}

func (l location) String() string {
	var b strings.Builder
	for _, k := range l.path {
		if i, ok := k.(int); ok {
			fmt.Fprintf(&b, "[%d]", i)
		} else {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k.(string))
		}
	}
	return b.String()
}

// typ is the JSON type a location holds: the schema's, else the base's.
func (l location) typ() string {
	if t := schemaType(l.schema); t != "" {
		return t
	}
	return valueType(l.value)
}

// locations lists the places of a body: each property of an object the
// base has (those its schema names too), and the first item of each
// array, down to depth keys.
func locations(base any, schema map[string]any, depth int) []location {
	var out []location
	var walk func(v any, s map[string]any, path []any, left int)
	walk = func(v any, s map[string]any, path []any, left int) {
		switch v := v.(type) {
		case map[string]any:
			if left == 0 {
				return
			}
			keys := slices.Collect(maps.Keys(v))
			if props, _ := properties(s); len(props) > 0 {
				keys = append(keys, slices.Collect(maps.Keys(props))...)
			}
			slices.Sort(keys)
			for _, k := range slices.Compact(keys) {
				p := append(slices.Clone(path), k)
				out = append(out, location{path: p, schema: child(s, k), value: v[k]})
				walk(v[k], child(s, k), p, left-1)
			}
		case []any:
			if len(v) > 0 {
				p := append(slices.Clone(path), 0)
				out = append(out, location{path: p, schema: child(s, 0), value: v[0]})
				walk(v[0], child(s, 0), p, left)
			}
		}
	}
	walk(base, schema, nil, depth)
	return out
}

// bodyCases mutates a valid body: each place null, of another type and
// at its edges (a sample of each), each required property missing, an array's item twice, an unknown property
// in each object; then the whole-body variants. required names the
// required top-level properties; nested ones come from the schema. The
// admin API refuses unknown properties and empty bodies; for the API the
// description decides. A sample of the whole-body variants ends the list.
func bodyCases(s *sampler, method, path string, base map[string]any, schema map[string]any, required []string, depth int, admin bool) []hostileCase {
	var out []hostileCase
	add := func(why string, body []byte, invalid bool) {
		out = append(out, hostileCase{why: why, method: method, path: path, body: body, invalid: invalid})
	}
	for _, loc := range locations(base, schema, depth) {
		text, other, edge := wrongValues(loc.typ())
		values := []wrongValue{{"null", false}}
		if len(loc.path) == 1 {
			values = slices.Concat(values, take(s, text, 1), take(s, other, 2), take(s, edge, 2))
		} else {
			values = slices.Concat(values, take(s, other, 1), take(s, edge, 1))
			if loc.typ() == "string" {
				values = append(values, take(s, text, 1)...)
			}
		}
		for _, w := range append(values, boundaries(loc.schema)...) {
			add(loc.String()+"="+short(w.raw), edited(base, loc.path, w.raw), w.invalid)
		}
		switch v := loc.value.(type) {
		case []any:
			if len(v) > 0 {
				add(loc.String()+" with an item twice", edited(base, loc.path, string(mustMarshal(append(slices.Clone(v), v[0])))), false)
			}
		case map[string]any:
			_, req := properties(loc.schema)
			for _, k := range req {
				if _, ok := v[k]; ok {
					add(loc.String()+" without "+k, edited(base, append(slices.Clone(loc.path), k), ""), true)
				}
			}
			if loc.path[len(loc.path)-1] != "labels" { // a map: any key is a label
				add(loc.String()+" with an unknown property", edited(base, append(slices.Clone(loc.path), "zz_unknown"), `"x"`), admin)
			}
		}
	}
	for _, name := range required {
		add("without "+name, edited(base, []any{name}, ""), true)
	}
	// Keys match exactly: a key in another case is an unknown one, so a
	// required key spelt so is missing, and the admin API refuses any.
	for _, name := range slices.Sorted(maps.Keys(base)) {
		if upper := strings.ToUpper(name); upper != name {
			add(name+" spelt "+upper, respelt(base, name, upper), admin || slices.Contains(required, name))
		}
	}
	add("unknown property", edited(base, []any{"zz_unknown"}, `"x"`), admin)
	add("empty body", nil, admin)
	for _, b := range take(s, badBodies, 8) {
		c := hostileCase{why: "body " + short(b), method: method, path: path, body: []byte(b), invalid: true}
		if len(b) > wire.MaxBody && !admin { // the admin API takes larger seeds and snapshots
			c.want = http.StatusRequestEntityTooLarge
		}
		out = append(out, c)
	}
	return out
}

// rawMark stands for a raw JSON text that json.Marshal cannot produce
// (1e400, invalid UTF-8): the value is marshalled as this string, which
// is then replaced.
const rawMark = "\x00raw\x00"

// edited is base with the value at path replaced by a raw JSON text, or
// removed when raw is "".
func edited(base any, path []any, raw string) []byte {
	var set func(v any, path []any) any
	set = func(v any, path []any) any {
		switch v := v.(type) {
		case map[string]any:
			m := maps.Clone(v)
			k := path[0].(string)
			switch {
			case len(path) > 1:
				m[k] = set(m[k], path[1:])
			case raw == "":
				delete(m, k)
			default:
				m[k] = rawMark
			}
			return m
		case []any:
			s := slices.Clone(v)
			if len(path) > 1 {
				s[0] = set(s[0], path[1:])
			} else {
				s[0] = rawMark
			}
			return s
		}
		return v
	}
	out := mustMarshal(set(base, path))
	mark, _ := json.Marshal(rawMark)
	return []byte(strings.Replace(string(out), string(mark), raw, 1))
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// valueType names the JSON type of a decoded value; "" for none.
func valueType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// queryCases gives each query parameter some bad values, and a
// single-valued one twice, then queries that do not parse.
func queryCases(s *sampler, method, path string, params []specParam) []hostileCase {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var out []hostileCase
	for _, p := range params {
		if p.in != "query" {
			continue
		}
		for _, v := range take(s, badQueryValues, 2) {
			out = append(out, hostileCase{why: "query " + p.name + "=" + short(v), method: method, path: path + sep + p.name + "=" + v})
		}
		if p.typ != "array" {
			out = append(out, hostileCase{why: p.name + " twice", method: method, path: path + sep + p.name + "=1&" + p.name + "=2", invalid: true})
		}
	}
	for _, q := range take(s, badQueries, 2) {
		out = append(out, hostileCase{why: "query " + q, method: method, path: path + sep + q, invalid: true})
	}
	return out
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// respelt is base with the key from renamed to to, as JSON.
func respelt(base map[string]any, from, to string) []byte {
	m := maps.Clone(base)
	m[to] = m[from]
	delete(m, from)
	return mustMarshal(m)
}
