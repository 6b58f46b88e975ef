package fakecloud

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// revertJSON takes back the action's change and keeps every other one.
func TestRevertJSON(t *testing.T) {
	for _, tc := range []struct{ why, before, after, current, want string }{
		{"nothing else changed", `{"status":"running","ip":"1"}`, `{"status":"off","ip":"1"}`, `{"status":"off","ip":"1"}`, `{"ip":"1","status":"running"}`},
		{"another member changed", `{"status":"running","ip":"1"}`, `{"status":"off","ip":"1"}`, `{"status":"off","ip":"2"}`, `{"ip":"2","status":"running"}`},
		{"the same member changed again: the later change stays", `{"status":"running"}`, `{"status":"off"}`, `{"status":"starting"}`, `{"status":"starting"}`},
		{"a member the action added", `{}`, `{"x":1}`, `{"x":1}`, `{}`},
		{"an element the action added", `{"s":[{"listen_port":80}]}`, `{"s":[{"listen_port":80},{"listen_port":443}]}`,
			`{"s":[{"listen_port":80},{"listen_port":443},{"listen_port":8080}]}`, `{"s":[{"listen_port":80},{"listen_port":8080}]}`},
		{"an element the action removed comes back in its place", `{"s":[{"listen_port":80},{"listen_port":443}]}`, `{"s":[{"listen_port":443}]}`,
			`{"s":[{"listen_port":443}]}`, `{"s":[{"listen_port":80},{"listen_port":443}]}`},
		{"an element another change removed stays removed", `{"n":[{"network":1,"ip":"a"},{"network":2,"ip":"b"}]}`, `{"n":[{"network":1,"ip":"c"},{"network":2,"ip":"b"}]}`,
			`{"n":[{"network":1,"ip":"c"}]}`, `{"n":[{"ip":"a","network":1}]}`},
		{"a scalar list is a set", `{"c":[1]}`, `{"c":[]}`, `{"c":[2]}`, `{"c":[1,2]}`},
		{"a list without identities is one value", `{"l":[[1]]}`, `{"l":[[2]]}`, `{"l":[[3]]}`, `{"l":[[3]]}`},
		{"numbers keep their precision", `{"id":606028482673874123,"v":1}`, `{"id":606028482673874123,"v":2}`, `{"id":606028482673874123,"v":2}`, `{"id":606028482673874123,"v":1}`},
	} {
		got, err := revertJSON([]byte(tc.before), []byte(tc.after), []byte(tc.current))
		if err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		if diff := cmp.Diff(tc.want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.why, diff)
		}
	}
}
