package fakecloud

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Actions as the live API writes them (the sources are in
// docs/reference/fakecloud/deviations.md): a running action has progress
// 0 when it starts, finished and error null, started to the microsecond;
// the resources it names in the API's order; a finished one progress 100
// and its finished time; a failed one status error and an error object
// of code and message.

// actionJSON is an action as its JSON object, for comparing whole.
func actionJSON(t *testing.T, body []byte, key string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	a, ok := doc[key].(map[string]any)
	if !ok {
		t.Fatalf("no %q object in %s", key, body)
	}
	delete(a, "id")
	return a
}

func resources(refs ...any) []any {
	out := []any{}
	for i := 0; i < len(refs); i += 2 {
		out = append(out, map[string]any{"type": refs[i], "id": float64(refs[i+1].(int64))})
	}
	return out
}

func TestActionShapes(t *testing.T) {
	clock := newClock()
	clock.Advance(700 * time.Millisecond) // mid-second: progress must not count the part before the start
	f := newFixture(t, Options{ActionDuration: 2 * time.Second, Now: clock.Now})
	if _, err := f.fc.AddActionFault(ActionFault{Command: "stop_server", ErrorCode: "action_failed", ErrorMessage: "Action failed", Count: 1}); err != nil {
		t.Fatal(err)
	}
	id := func(body []byte, key string) int64 {
		t.Helper()
		var doc map[string]json.RawMessage
		var obj struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(doc[key], &obj); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return obj.ID
	}
	post := func(path, body string) []byte {
		t.Helper()
		resp, b := f.do(t, "POST", path, body)
		if resp.StatusCode != 201 {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
		}
		return b
	}
	started := "2026-11-01T12:00:00.7Z"
	running := func(command string, res []any) map[string]any {
		return map[string]any{"command": command, "status": "running", "progress": float64(0), "started": started,
			"finished": nil, "error": nil, "resources": res}
	}

	_, b := f.do(t, "POST", "/v1/networks", `{"name":"n","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","network_zone":"eu-central","ip_range":"10.0.1.0/24"}]}`)
	network := id(b, "network")
	b = post("/v1/servers", `{"name":"a","server_type":"cpx22","image":"ubuntu-24.04","location":"fsn1","networks":[`+fmt.Sprint(network)+`]}`)
	server := id(b, "server")
	if diff := cmp.Diff(running("create_server", resources("server", server)), actionJSON(t, b, "action")); diff != "" {
		t.Errorf("create_server as it starts (-want +got):\n%s", diff)
	}
	var created struct {
		NextActions []map[string]any `json:"next_actions"`
	}
	if err := json.Unmarshal(b, &created); err != nil {
		t.Fatal(err)
	}
	var next []map[string]any
	for _, a := range created.NextActions {
		delete(a, "id")
		next = append(next, a)
	}
	wantNext := []map[string]any{running("start_server", resources("server", server)),
		running("attach_to_network", resources("server", server, "network", network))}
	if diff := cmp.Diff(wantNext, next); diff != "" {
		t.Errorf("next_actions as they start (-want +got):\n%s", diff)
	}
	b = post("/v1/load_balancers", `{"name":"lb","load_balancer_type":"lb11","location":"fsn1"}`)
	lb := id(b, "load_balancer")
	clock.Advance(3 * time.Second)
	started = "2026-11-01T12:00:03.7Z"

	attach := post(fmt.Sprintf("/v1/load_balancers/%d/actions/attach_to_network", lb), fmt.Sprintf(`{"network":%d}`, network))
	if diff := cmp.Diff(running("attach_to_network", resources("load_balancer", lb, "network", network)), actionJSON(t, attach, "action")); diff != "" {
		t.Errorf("a load balancer's attach_to_network as it starts (-want +got):\n%s", diff)
	}
	off := post(fmt.Sprintf("/v1/servers/%d/actions/poweroff", server), ``)
	if diff := cmp.Diff(running("stop_server", resources("server", server)), actionJSON(t, off, "action")); diff != "" {
		t.Errorf("poweroff as it starts (-want +got):\n%s", diff)
	}
	clock.Advance(time.Second)
	_, b = f.do(t, "GET", fmt.Sprintf("/v1/actions/%d", id(attach, "action")), "")
	if got := actionJSON(t, b, "action"); got["progress"] != float64(50) || got["status"] != "running" {
		t.Errorf("halfway: progress %v, status %v; want 50 and running", got["progress"], got["status"])
	}
	clock.Advance(time.Second)
	finished := "2026-11-01T12:00:05.7Z"
	_, b = f.do(t, "GET", fmt.Sprintf("/v1/actions/%d", id(attach, "action")), "")
	want := map[string]any{"command": "attach_to_network", "status": "success", "progress": float64(100), "started": started,
		"finished": finished, "error": nil, "resources": resources("load_balancer", lb, "network", network)}
	if diff := cmp.Diff(want, actionJSON(t, b, "action")); diff != "" {
		t.Errorf("attach_to_network once done (-want +got):\n%s", diff)
	}
	_, b = f.do(t, "GET", fmt.Sprintf("/v1/actions/%d", id(off, "action")), "")
	want = map[string]any{"command": "stop_server", "status": "error", "progress": float64(100), "started": started,
		"finished": finished, "error": map[string]any{"code": "action_failed", "message": "Action failed"}, "resources": resources("server", server)}
	if diff := cmp.Diff(want, actionJSON(t, b, "action")); diff != "" {
		t.Errorf("a failed poweroff (-want +got):\n%s", diff)
	}
}
