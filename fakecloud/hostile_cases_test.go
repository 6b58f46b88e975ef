package fakecloud

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// hostileCase is one generated request.
type hostileCase struct {
	why          string // what is wrong with it, for failure messages
	method, path string // path with its query, under /v1 or /_fakecloud
	body         []byte
	header       []string // name, value pairs over answer's defaults
	remote       string   // the client's address; loopback when empty
}

// badIDs are path values that are no ID, or no ID of anything.
var badIDs = []string{"0", "-1", "%2B1", "01", "1e3", "0x10", "1.0", "9007199254740992", "99999999999999999999",
	"%FF", "%00", "abc", "%EF%BC%91", strings.Repeat("9", 300), "424242"}

// badQueryValues are raw (escaped) query values, each wrong somewhere.
var badQueryValues = []string{"%zz", "%ff", "-1", "0", "99999999999999999999", "1.5", "", "%00", strings.Repeat("a", 5000)}

// badBodies are whole bodies that are not a JSON object, or not one in
// UTF-8, or too deep or too large.
var badBodies = []string{"null", "[]", `"x"`, "1", "{", `{"a":1} x`, "{}{}", "\xff\xfe", `{"a":"\ud800"}`,
	strings.Repeat("[", 100000), `{"a":` + strings.Repeat(`{"b":`, 20000) + "1" + strings.Repeat("}", 20001),
	`{"name":"` + strings.Repeat("x", maxBody+1) + `"}`}

// badAuth are Authorization headers that carry no valid token.
var badAuth = []string{"", "Bearer wrong", "Basic " + DefaultToken, DefaultToken, "Bearer  " + DefaultToken + "x"}

// rawMark stands for a raw JSON text that json.Marshal cannot produce
// (1e400, invalid UTF-8): the value is marshalled as this string, which
// is then replaced.
const rawMark = "\x00raw\x00"

// wrongValues are values of the wrong type, out of range or malformed for
// a property of a JSON type; each is JSON text.
func wrongValues(typ string) []string {
	common := []string{"null", `{"x":1}`, `[1,2]`, "\"\xff\"", `"\udfff"`}
	switch typ {
	case "string":
		return append(common, "123", "true", `"`+strings.Repeat("s", 100_000)+`"`, `""`)
	case "integer", "number":
		return append(common, `"1"`, "1.5", "-1", "0", "1e400", "99999999999999999999", "9007199254740993", "-9223372036854775809")
	case "boolean":
		return append(common, `"true"`, "1")
	case "array":
		return append(common, `"x"`, "[null]", "[[[]]]", `[{"a":1}]`)
	}
	return append(common, `"x"`, "1", "[]")
}

// bodyCases mutates a valid-looking body: each property wrong in each
// way, each required property missing, an item listed twice, an
// unknown property; then the whole-body variants.
func bodyCases(method, path string, base map[string]any, types map[string]string, required []string) []hostileCase {
	var out []hostileCase
	add := func(why string, body []byte) {
		out = append(out, hostileCase{why: why, method: method, path: path, body: body})
	}
	for _, name := range slices.Sorted(maps.Keys(types)) {
		for _, raw := range wrongValues(types[name]) {
			add(name+"="+short(raw), withRaw(base, name, raw))
		}
		if items, ok := base[name].([]any); ok && len(items) > 0 {
			body := maps.Clone(base)
			body[name] = append(slices.Clone(items), items[0])
			add(name+" with an item twice", mustMarshal(body))
		}
	}
	for _, name := range required {
		body := maps.Clone(base)
		delete(body, name)
		add("without "+name, mustMarshal(body))
	}
	add("unknown property", withRaw(base, "zz_unknown", `"x"`))
	for _, b := range badBodies {
		add("body "+short(b), []byte(b))
	}
	return out
}

// withRaw is base with property name set to a raw JSON text.
func withRaw(base map[string]any, name, raw string) []byte {
	body := maps.Clone(base)
	body[name] = rawMark
	mark, _ := json.Marshal(rawMark)
	return []byte(strings.Replace(string(mustMarshal(body)), string(mark), raw, 1))
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// jsonTypes names the JSON type of each property of a decoded object.
func jsonTypes(obj map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range obj {
		switch v.(type) {
		case string:
			out[k] = "string"
		case float64:
			out[k] = "integer"
		case bool:
			out[k] = "boolean"
		case []any:
			out[k] = "array"
		default:
			out[k] = "object"
		}
	}
	return out
}

// queryCases gives each query parameter every bad value, and a
// single-valued one twice.
func queryCases(method, path string, params []specParam) []hostileCase {
	var out []hostileCase
	for _, p := range params {
		if p.in != "query" {
			continue
		}
		for _, v := range badQueryValues {
			out = append(out, hostileCase{why: "query " + p.name + "=" + short(v), method: method, path: path + "?" + p.name + "=" + v})
		}
		if p.typ != "array" {
			out = append(out, hostileCase{why: p.name + " twice", method: method, path: path + "?" + p.name + "=1&" + p.name + "=2"})
		}
	}
	out = append(out, hostileCase{why: "query that does not parse", method: method, path: path + "?a=%zz&b=;"})
	return out
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
