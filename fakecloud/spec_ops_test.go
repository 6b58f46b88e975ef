package fakecloud

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/contract"
)

// specOp is one operation of the OpenAPI description that fakecloud serves.
type specOp struct {
	method, path string // path as the description writes it: /servers/{id}
	params       []specParam
	body         map[string]any // the request body's JSON schema, or nil
}

type specParam struct {
	name, in, typ string // in: path or query; typ: the schema's type
}

var placeholder = regexp.MustCompile(`\{[^}]+\}`)

// shape is a path with every parameter written {}, to match the
// description's names against the router's.
func shape(path string) string { return placeholder.ReplaceAllString(path, "{}") }

// specOps reads the vendored description and keeps the operations the
// router serves; it fails when a route has no operation in the
// description, so every new route is covered. Each family's POST
// …/actions/{action} answers the actions fakecloud does not simulate, so
// each of the description's actions under it counts as served; the suite
// drops the ones fakecloud answers "not simulated".
func specOps(t testing.TB, router chi.Router) []specOp {
	t.Helper()
	data, err := os.ReadFile("../testdata/openapi/cloud.spec.json")
	if err != nil {
		t.Fatal(err)
	}
	if data, err = contract.Deviate(data); err != nil { // as fakecloud judges requests
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	err = chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		served[method+" "+shape(route)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	matched := map[string]bool{}
	var ops []specOp
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		for _, m := range slices.Sorted(maps.Keys(doc.Paths[path])) {
			method := strings.ToUpper(m)
			key := method + " " + shape(path)
			action := method + " " + shape(path[:max(0, strings.LastIndex(path, "/"))]) + "/{}"
			switch {
			case served[key]:
				matched[key] = true
			case strings.Contains(path, "/actions/") && !strings.HasSuffix(path, "}") && served[action]:
				matched[action] = true
			default:
				continue
			}
			ops = append(ops, parseOp(t, method, path, doc.Paths[path][m]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(served)) {
		unknownActions := strings.HasPrefix(k, "POST ") && strings.HasSuffix(k, "/actions/{}")
		if !matched[k] && !unknownActions {
			t.Errorf("fakecloud serves %s, which the OpenAPI description does not have", k)
		}
	}
	return ops
}

func parseOp(t testing.TB, method, path string, raw json.RawMessage) specOp {
	var op struct {
		Parameters []struct {
			Name, In string
			Schema   struct{ Type string }
		}
		RequestBody struct {
			Content map[string]struct {
				Schema map[string]any
			}
		} `json:"requestBody"`
	}
	if err := json.Unmarshal(raw, &op); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	o := specOp{method: method, path: path, body: op.RequestBody.Content["application/json"].Schema}
	for _, p := range op.Parameters {
		o.params = append(o.params, specParam{name: p.Name, in: p.In, typ: p.Schema.Type})
	}
	for _, name := range placeholder.FindAllString(path, -1) { // path parameters the operation does not list
		name = strings.Trim(name, "{}")
		if !slices.ContainsFunc(o.params, func(p specParam) bool { return p.name == name }) {
			o.params = append(o.params, specParam{name: name, in: "path", typ: "integer"})
		}
	}
	return o
}

// properties merges an object schema's properties and required names,
// through allOf.
func properties(schema map[string]any) (map[string]map[string]any, []string) {
	props := map[string]map[string]any{}
	var required []string
	for _, part := range append([]any{schema}, asSlice(schema["allOf"])...) {
		p, _ := part.(map[string]any)
		for name, s := range asMap(p["properties"]) {
			props[name], _ = s.(map[string]any)
		}
		for _, r := range asSlice(p["required"]) {
			required = append(required, r.(string))
		}
	}
	return props, required
}

// example builds a value for a schema: its example if it has one, else an
// object of its required properties and those with examples.
func example(schema map[string]any) any {
	if ex, ok := schema["example"]; ok {
		return ex
	}
	props, required := properties(schema)
	if len(props) > 0 {
		obj := map[string]any{}
		for name, s := range props {
			if _, ok := s["example"]; ok || slices.Contains(required, name) {
				obj[name] = example(s)
			}
		}
		return obj
	}
	switch schema["type"] {
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "x"
}

// schemaType is a schema's JSON type: its type, the one that is not null
// of a list, or object for a schema of properties; "" when unknown.
func schemaType(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				return x.(string)
			}
		}
	}
	if props, _ := properties(schema); len(props) > 0 {
		return "object"
	}
	return ""
}

// child is the schema of a property (through allOf and
// additionalProperties) or, for an index, of an array's items.
func child(schema map[string]any, key any) map[string]any {
	if _, index := key.(int); index {
		return asMap(schema["items"])
	}
	props, _ := properties(schema)
	if s, ok := props[key.(string)]; ok {
		return s
	}
	return asMap(schema["additionalProperties"])
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asSlice(v any) []any        { s, _ := v.([]any); return s }
