package fakecloud

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

// exactKeys drops from a decoded JSON tree every object key that names a
// field of the target type only when case is ignored ("Labels" for
// "labels"), as encoding/json would match it. The API, and the contract
// check, match keys exactly: to them such a key is unknown, so it must
// not reach the handler either. It returns the keys it dropped.
func exactKeys(tree any, t reflect.Type) (dropped []string) {
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
					dropped = append(dropped, exactKeys(child, ft)...)
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
				dropped = append(dropped, exactKeys(child, t.Elem())...)
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, child := range v {
				dropped = append(dropped, exactKeys(child, t.Elem())...)
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

// inexactKey is an error naming a key of js that would reach v's fields
// only by a case-insensitive match, for readers that refuse unknown keys;
// nil when there is none, or js is not JSON (the decoder then says why).
func inexactKey(js []byte, v any) error {
	_, keys := dropInexactKeys(js, v)
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	return fmt.Errorf("unknown field %q (keys are matched exactly)", keys[0])
}

// dropInexactKeys decodes body as a JSON tree and drops from it the keys
// that would reach v's fields only by a case-insensitive match
// (exactKeys), returning the tree and those keys; nothing for a body that
// is not JSON.
func dropInexactKeys(body []byte, v any) (tree any, dropped []string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&tree) != nil {
		return nil, nil
	}
	return tree, exactKeys(tree, reflect.TypeOf(v))
}
