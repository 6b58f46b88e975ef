package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
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
// annotations and the deviations of deviations.go applied. Every body the
// description has is required.
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
		if p.In != "query" {
			continue
		}
		if commaLists[op.Method+" "+path] == p.Name && !widenCommaParam(p.Schema) {
			return operation{}, fmt.Errorf("%s %s: %s is not a list", method, path, p.Name)
		}
		op.Query = append(op.Query, param{Name: p.Name, Required: p.Required, Schema: strip(p.Schema)})
	}
	if spec.RequestBody != nil {
		media, ok := spec.RequestBody.Content["application/json"]
		if !ok {
			return operation{}, fmt.Errorf("%s %s: the request body is not application/json", method, path)
		}
		deviate(op.Method, path, media.Schema)
		op.Body = strip(media.Schema)
	}
	return op, nil
}

// annotations are schema keywords that do not constrain a value.
var annotations = map[string]bool{
	"description": true, "example": true, "examples": true, "title": true,
	"externalDocs": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"format": true, // not asserted by the validator either
}

// strip drops annotations from a schema.
func strip(v any) any {
	s, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, child := range s {
		switch {
		case annotations[k] || strings.HasPrefix(k, "x-"):
		case k == "properties" || k == "patternProperties":
			props := map[string]any{}
			for name, ps := range child.(map[string]any) {
				props[name] = strip(ps)
			}
			out[k] = props
		case k == "items" || k == "additionalProperties" || k == "not":
			out[k] = strip(child)
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			var list []any
			for _, sub := range child.([]any) {
				list = append(list, strip(sub))
			}
			out[k] = list
		default:
			out[k] = child
		}
	}
	return out
}
