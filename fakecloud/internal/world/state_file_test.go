package world

import (
	"encoding/json"
	"strings"
	"testing"
)

// A version 1 snapshot, which carried the copies, gives the same world.
func TestVersion1SnapshotIsRead(t *testing.T) {
	fc := populated(t)
	v2, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	st, err := DecodeState(v2, fc.w.Cat)
	if err != nil {
		t.Fatal(err)
	}
	st.Version = 1
	v1, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(v1), `"prices"`) {
		t.Fatal("the version 1 form does not carry the copies")
	}
	twin := New(Config{Now: fc.w.Now})
	if err := twin.Import(v1); err != nil {
		t.Fatalf("version 1: %v", err)
	}
	again, _ := twin.Export()
	if string(again) != string(v2) {
		t.Error("a version 1 snapshot gave another world than its version 2 form")
	}
	// A version 2 snapshot that says version 1 would load with empty
	// server types: the version is checked against the content.
	wrong := strings.Replace(string(v2), `"version": 2`, `"version": 1`, 1)
	if err := New(Config{}).Import([]byte(wrong)); err == nil || !strings.Contains(err.Error(), "version 1 carries whole server types") {
		t.Errorf("a version 2 snapshot labelled 1: %v, want refused", err)
	}
	for _, null := range []string{`{"version":1,"servers":[null]}`, `{"version":1,"load_balancers":[null]}`} {
		if err := New(Config{}).Import([]byte(null)); err == nil || !strings.Contains(err.Error(), "null") {
			t.Errorf("%s: %v, want refused naming the null entry", null, err)
		}
	}
}
