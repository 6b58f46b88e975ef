package strict

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// ExactKeys drops from a decoded JSON tree every object key that names a
// field of the target type only when case is ignored ("Labels" for
// "labels"), as encoding/json would match it. The API, and the contract
// check, match keys exactly: to them such a key is unknown, so it must
// not reach the handler either. It returns the keys it dropped.
func ExactKeys(tree any, t reflect.Type) (dropped []string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return nil // the type reads its own JSON
	}
	switch v := tree.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Struct:
			fields := jsonFields(t)
			for k, child := range v {
				if ft, ok := fields[k]; ok {
					dropped = append(dropped, ExactKeys(child, ft)...)
					continue
				}
				for name := range fields {
					if strings.EqualFold(name, k) {
						delete(v, k)
						dropped = append(dropped, k)
						break
					}
				}
			}
		case reflect.Map:
			for _, child := range v {
				dropped = append(dropped, ExactKeys(child, t.Elem())...)
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, child := range v {
				dropped = append(dropped, ExactKeys(child, t.Elem())...)
			}
		}
	}
	return dropped
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	fieldCache          sync.Map // reflect.Type -> map[string]reflect.Type
)

// jsonFields maps the JSON names of a struct's fields, those of embedded
// structs included (a shallower field hides a deeper one of the same
// name, as in encoding/json), to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	var deeper []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			deeper = append(deeper, ft)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	for _, d := range deeper {
		for name, ft := range jsonFields(d) {
			if _, ok := out[name]; !ok {
				out[name] = ft
			}
		}
	}
	fieldCache.Store(t, out)
	return out
}

// InexactKey is an error naming a key of js that would reach v's fields
// only by a case-insensitive match, for readers that refuse unknown keys;
// nil when there is none, or js is not JSON (the decoder then says why).
func InexactKey(js []byte, v any) error {
	_, keys := DropInexactKeys(js, v)
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	return fmt.Errorf("unknown field %q (keys are matched exactly)", keys[0])
}

// DropInexactKeys decodes body as a JSON tree and drops from it the keys
// that would reach v's fields only by a case-insensitive match
// (ExactKeys), returning the tree and those keys; nothing for a body that
// is not JSON.
func DropInexactKeys(body []byte, v any) (tree any, dropped []string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&tree) != nil {
		return nil, nil
	}
	return tree, ExactKeys(tree, reflect.TypeOf(v))
}

// ExactKeysOf is body without the keys that would reach v's fields only
// by a case-insensitive match (see ExactKeys); body as it is when it has
// none, or is not valid JSON (the decoder then says why).
func ExactKeysOf(body []byte, v any) []byte {
	tree, dropped := DropInexactKeys(body, v)
	if len(dropped) == 0 {
		return body
	}
	out, err := json.Marshal(tree)
	if err != nil {
		return body
	}
	return out
}

// JSONType names a Go kind as JSON names its type.
func JSONType(kind string) string {
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"):
		return "integer"
	case strings.HasPrefix(kind, "float"):
		return "number"
	case kind == "map", kind == "struct":
		return "object"
	case kind == "slice", kind == "array":
		return "array"
	case kind == "bool":
		return "boolean"
	}
	return kind
}

// JSONFields maps the JSON names of a struct type's fields, those of
// embedded structs included, to their types, as encoding/json sees them.
func JSONFields(t reflect.Type) map[string]reflect.Type { return jsonFields(t) }
