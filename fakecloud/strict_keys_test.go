package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// TestExactKeysOf: only keys that match a field by case alone go, at any
// depth and through embedded structs; exact keys, unknown keys and the
// keys of maps stay.
func TestExactKeysOf(t *testing.T) {
	type inner struct {
		Port int `json:"port"`
	}
	type target struct {
		schema.ServerUpdateRequest
		Services []inner          `json:"services"`
		Extra    map[string]inner `json:"extra"`
	}
	body := `{"name":"a","Name":"b","Labels":{"x":null},"services":[{"port":1,"PORT":2}],"extra":{"Key":{"Port":3}},"other":1}`
	var got target
	if err := wire.DecodeBytes([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := target{ServerUpdateRequest: schema.ServerUpdateRequest{Name: "a"}, Services: []inner{{Port: 1}}, Extra: map[string]inner{"Key": {}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if same := strict.ExactKeysOf([]byte(`{"name":"a"}`), &got); string(same) != `{"name":"a"}` {
		t.Errorf("a body without such keys changed: %s", same)
	}
}

// TestKeySpellingIsUnknownEverywhere: a key the API does not know because
// of its case ("Labels", "DELETE") changes nothing, whether the contract
// check refuses it or the handler ignores it, where encoding/json alone
// would have stored it.
func TestKeySpellingIsUnknownEverywhere(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a", Labels: map[string]string{"k": "v"}})
	path := fmt.Sprintf("/v1/servers/%d", s.ID)
	for _, c := range []struct{ method, path, body string }{
		{"PUT", path, `{"Labels":{"k":null}}`},
		{"POST", path + "/actions/change_protection", `{"DELETE":true,"Rebuild":true}`},
		{"PUT", path, `{"NAME":"b"}`},
	} {
		resp, body := f.do(t, c.method, c.path, c.body)
		if resp.StatusCode >= 500 {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, c.body, resp.StatusCode, body)
		}
		var out struct{ Action *schema.Action }
		if json.Unmarshal(body, &out) == nil && out.Action != nil {
			_ = f.client.Action.WaitFor(ctx, &hcloud.Action{ID: out.Action.ID})
		}
	}
	got, _, err := f.client.Server.GetByID(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "a" || got.Labels["k"] != "v" || got.Protection.Delete || got.Protection.Rebuild {
		t.Errorf("after keys of the wrong case: name %q labels %v protection %+v; want unchanged", got.Name, got.Labels, got.Protection)
	}
}

// Admin bodies, JSON or YAML, refuse a key of the wrong case as unknown
// (they refuse unknown keys), naming it, where encoding/json would have
// taken "Type" for "type".
func TestAdminKeySpellingIsUnknown(t *testing.T) {
	fc := hostileWorld(t, "")
	before := export(t, fc)
	for _, c := range []struct{ path, body, key string }{
		{"/_fakecloud/events", `{"Type":"delete_server","server_name":"worker-1"}`, "Type"},
		{"/_fakecloud/events", "type: delete_server\nServer_Name: worker-1\n", "Server_Name"},
		{"/_fakecloud/seed", `{"servers":[{"Name":"x"}]}`, "Name"},
		{"/_fakecloud/faults", `{"path":"/servers","Status":503}`, "Status"},
		{"/_fakecloud/scenarios", `{"steps":[{"at":"1s","event":{"type":"power_off_server","Server_name":"worker-1"}}]}`, "Server_name"},
	} {
		code, body := txDo(t, fc, "POST", c.path, c.body)
		if code != http.StatusUnprocessableEntity || !strings.Contains(string(body), c.key) {
			t.Errorf("POST %s %s: %d %s, want 422 naming %s", c.path, c.body, code, body, c.key)
		}
	}
	if export(t, fc) != before {
		t.Error("a refused admin body changed the world")
	}
}
