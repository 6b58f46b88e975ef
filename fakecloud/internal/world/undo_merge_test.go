package world

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

// undoTestDoc gives the cases' members types: s and n are lists with
// identities, c a set of scalars, l a list of lists (no identity).
type undoTestDoc struct {
	Status string                        `json:"status"`
	IP     string                        `json:"ip"`
	X      int                           `json:"x"`
	S      []schema.LoadBalancerService  `json:"s"`
	N      []schema.ServerPrivateNet     `json:"n"`
	C      []int64                       `json:"c"`
	L      [][]int                       `json:"l"`
	U      []schema.CertificateUsedByRef `json:"u"`
	ID     int64                         `json:"id"`
	V      int                           `json:"v"`
}

// revertJSON takes back the action's change and keeps every other one.
func TestRevertJSON(t *testing.T) {
	for _, tc := range []struct{ why, before, after, current, want string }{
		{"nothing else changed", `{"status":"running","ip":"1"}`, `{"status":"off","ip":"1"}`, `{"status":"off","ip":"1"}`, `{"ip":"1","status":"running"}`},
		{"another store.Member changed", `{"status":"running","ip":"1"}`, `{"status":"off","ip":"1"}`, `{"status":"off","ip":"2"}`, `{"ip":"2","status":"running"}`},
		{"the same store.Member changed again: the later change stays", `{"status":"running"}`, `{"status":"off"}`, `{"status":"starting"}`, `{"status":"starting"}`},
		{"a store.Member the action added", `{}`, `{"x":1}`, `{"x":1}`, `{}`},
		{"an element the action added", `{"s":[{"listen_port":80}]}`, `{"s":[{"listen_port":80},{"listen_port":443}]}`,
			`{"s":[{"listen_port":80},{"listen_port":443},{"listen_port":8080}]}`, `{"s":[{"listen_port":80},{"listen_port":8080}]}`},
		{"an element the action removed comes back in its place", `{"s":[{"listen_port":80},{"listen_port":443}]}`, `{"s":[{"listen_port":443}]}`,
			`{"s":[{"listen_port":443}]}`, `{"s":[{"listen_port":80},{"listen_port":443}]}`},
		{"an element another change removed stays removed", `{"n":[{"network":1,"ip":"a"},{"network":2,"ip":"b"}]}`, `{"n":[{"network":1,"ip":"c"},{"network":2,"ip":"b"}]}`,
			`{"n":[{"network":1,"ip":"c"}]}`, `{"n":[{"ip":"a","network":1}]}`},
		{"a scalar list is a set", `{"c":[1]}`, `{"c":[]}`, `{"c":[2]}`, `{"c":[1,2]}`},
		{"a list without identities is one value", `{"l":[[1]]}`, `{"l":[[2]]}`, `{"l":[[3]]}`, `{"l":[[3]]}`},
		{"a type without identity is one value, whatever its members look like", `{"u":[{"id":1,"type":"server"}]}`, `{"u":[]}`,
			`{"u":[{"id":2,"type":"server"}]}`, `{"u":[{"id":2,"type":"server"}]}`},
		{"numbers keep their precision", `{"id":606028482673874123,"v":1}`, `{"id":606028482673874123,"v":2}`, `{"id":606028482673874123,"v":2}`, `{"id":606028482673874123,"v":1}`},
	} {
		got, err := revertJSON(reflect.TypeFor[undoTestDoc](), []byte(tc.before), []byte(tc.after), []byte(tc.current))
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.why, diff)
		}
	}
}

// TestEveryListHasAnUndoIdentity: every list of structs in a resource an
// undo restores has an entry in undoIdentities (its identity, or none on
// purpose), so a new list field fails here instead of undoing wrongly.
func TestEveryListHasAnUndoIdentity(t *testing.T) {
	seen := map[reflect.Type]bool{}
	lists := 0
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		switch typ = deref(typ); typ.Kind() {
		case reflect.Struct:
			if seen[typ] {
				return
			}
			seen[typ] = true
			for name, ft := range strict.JSONFields(typ) {
				walk(ft, path+"."+name)
			}
		case reflect.Map:
			walk(typ.Elem(), path+"[key]")
		case reflect.Slice, reflect.Array:
			e := deref(typ.Elem())
			if e.Kind() == reflect.Struct {
				lists++
				if _, ok := undoIdentities[e]; !ok {
					t.Errorf("%s is a list of %v, which undoIdentities lacks: name the members that identify an element, or nil for none", path, e)
				}
			}
			walk(e, path+"[]")
		}
	}
	for _, u := range undoable {
		walk(u, u.Name())
	}
	if lists < 13 {
		t.Errorf("found %d lists of structs in the undoable types, want every one", lists)
	}
	for e := range undoIdentities {
		if !seen[e] {
			t.Errorf("undoIdentities names %v, which no undoable type holds", e)
		}
	}
}
