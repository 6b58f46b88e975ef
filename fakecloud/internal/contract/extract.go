package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// An operation is what the description says about one request: its body
// schema and its query parameters. Path parameters are left to the
// handlers, which parse IDs with bounds.
type operation struct {
	Method string  `json:"method"`
	Path   string  `json:"path"` // as in the description: /servers/{id}
	Body   any     `json:"body,omitempty"`
	Query  []param `json:"query,omitempty"`
}

type param struct {
	Name     string `json:"name"`
	Required bool   `json:"required,omitempty"`
	Schema   any    `json:"schema"`
}

// Extract reads the OpenAPI description and writes the operations that
// take a JSON body or query parameters, with their schemas stripped of
// annotations. Fields described as an ID or a name also take an integer:
// the description types them as strings, but the API takes a number, and
// hcloud-go sends one (IDOrName, ssh_keys as []int64).
func Extract(spec []byte) ([]byte, error) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		return nil, fmt.Errorf("read OpenAPI description: %w", err)
	}
	var ops []operation
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		for _, method := range []string{"get", "post", "put", "delete"} {
			raw, ok := doc.Paths[path][method]
			if !ok {
				continue
			}
			op, err := readOperation(method, path, raw)
			if err != nil {
				return nil, err
			}
			if op.Body != nil || len(op.Query) > 0 {
				ops = append(ops, op)
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(ops); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func readOperation(method, path string, raw json.RawMessage) (operation, error) {
	var spec struct {
		Parameters []struct {
			Name     string `json:"name"`
			In       string `json:"in"`
			Required bool   `json:"required"`
			Schema   any    `json:"schema"`
		} `json:"parameters"`
		RequestBody *struct {
			Content map[string]struct {
				Schema any `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return operation{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	op := operation{Method: strings.ToUpper(method), Path: path}
	for _, p := range spec.Parameters {
		if p.In == "query" {
			op.Query = append(op.Query, param{Name: p.Name, Required: p.Required, Schema: strip(p.Schema, false)})
		}
	}
	if spec.RequestBody != nil {
		media, ok := spec.RequestBody.Content["application/json"]
		if !ok {
			return operation{}, fmt.Errorf("%s %s: the request body is not application/json", method, path)
		}
		op.Body = strip(media.Schema, false)
		relax(op.Method, path, op.Body)
	}
	return op, nil
}

// annotations are schema keywords that do not constrain a value.
var annotations = map[string]bool{
	"description": true, "example": true, "examples": true, "title": true,
	"externalDocs": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"format": true, // not asserted by the validator either
}

// idOrName matches the descriptions of fields that name a resource by ID
// or by name.
var idOrName = regexp.MustCompile(`(?i)\bIDs?\b[^.]{0,20}\bor names?\b`)

// strip drops annotations from a schema and widens ID-or-name strings to
// take integers. byID says the enclosing array was described as IDs or
// names.
func strip(v any, byID bool) any {
	s, ok := v.(map[string]any)
	if !ok {
		return v
	}
	desc, _ := s["description"].(string)
	byID = byID || idOrName.MatchString(desc)
	out := map[string]any{}
	for k, child := range s {
		switch {
		case annotations[k] || strings.HasPrefix(k, "x-"):
		case k == "properties" || k == "patternProperties":
			props := map[string]any{}
			for name, ps := range child.(map[string]any) {
				props[name] = strip(ps, false)
			}
			out[k] = props
		case k == "items":
			out[k] = strip(child, byID)
		case k == "additionalProperties" || k == "not":
			out[k] = strip(child, false)
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			var list []any
			for _, sub := range child.([]any) {
				list = append(list, strip(sub, byID))
			}
			out[k] = list
		default:
			out[k] = child
		}
	}
	if byID && out["type"] == "string" {
		out["type"] = []any{"string", "integer"}
	}
	return out
}
