package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// newClock is the test kit's clock, standing at the tests' day.
func newClock() *fakecloudtest.Clock {
	return fakecloudtest.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
}

func TestErrorEnvelopes(t *testing.T) {
	f := newFixture(t, Options{ReadOnlyTokens: []string{"ro"}, Tokens: []string{DefaultToken}})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	tests := []struct {
		name, method, path, body, token string
		status                          int
		code                            string
	}{
		{"json_error", "POST", "/v1/servers", `{"name":`, "", 422, "json_error"},
		{"not an object", "POST", "/v1/servers", `[1,2]`, "", 422, "json_error"},
		{"trailing data", "POST", "/v1/servers", `{} {}`, "", 422, "json_error"},
		{"invalid_input", "POST", "/v1/servers", `{"name":"a b"}`, "", 422, "invalid_input"},
		{"not_found", "GET", "/v1/servers/1", "", "", 404, "not_found"},
		{"bad id", "GET", "/v1/servers/abc", "", "", 422, "invalid_input"},
		{"unknown endpoint", "GET", "/v1/volcanoes", "", "", 404, "not_found"},
		{"unknown action", "POST", fmt.Sprintf("/v1/servers/%d/actions/levitate", s.ID), "", "", 404, "not_found"},
		{"method_not_allowed", "PATCH", "/v1/servers", "", "", 405, "method_not_allowed"},
		{"uniqueness_error", "POST", "/v1/servers", `{"name":"a","server_type":"cx23","image":"ubuntu-24.04"}`, "", 409, "uniqueness_error"},
		{"unauthorized", "GET", "/v1/servers", "", "wrong", 401, "unauthorized"},
		{"no token", "GET", "/v1/servers", "", "-", 401, "unauthorized"},
		{"forbidden", "POST", "/v1/servers", `{}`, "ro", 403, "forbidden"},
		{"actions need an id", "GET", "/v1/actions", "", "", 422, "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), tt.method, f.url+tt.path, strings.NewReader(tt.body))
			switch tt.token {
			case "":
				req.Header.Set("Authorization", "Bearer "+DefaultToken)
			case "-":
			default:
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var env struct {
				Error struct {
					Code    string          `json:"code"`
					Message string          `json:"message"`
					Details json.RawMessage `json:"details"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
				t.Fatalf("body is not an error envelope: %v", err)
			}
			if resp.StatusCode != tt.status || env.Error.Code != tt.code || env.Error.Message == "" {
				t.Fatalf("got %d %+v, want %d %s", resp.StatusCode, env.Error, tt.status, tt.code)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if resp.Header.Get("X-Correlation-Id") == "" {
				t.Error("no X-Correlation-Id")
			}
		})
	}
	// The read-only token reads.
	resp, err := http.DefaultClient.Do(mustRequest(t, "GET", f.url+"/v1/servers", "ro"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("read-only GET: %v %v", resp, err)
	}
	resp.Body.Close()
}

func mustRequest(t *testing.T, method, url, token string) *http.Request {
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func TestInvalidInputNamesEveryField(t *testing.T) {
	f := newFixture(t, Options{})
	_, body := f.do(t, "POST", "/v1/servers", `{"name":"-bad-","server_type":"nope","image":"nope","location":"nowhere"}`)
	var env struct {
		Error struct {
			Details struct {
				Fields []struct {
					Name     string   `json:"name"`
					Messages []string `json:"messages"`
				} `json:"fields"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fd := range env.Error.Details.Fields {
		names = append(names, fd.Name)
		if len(fd.Messages) == 0 {
			t.Errorf("field %s has no message", fd.Name)
		}
	}
	if diff := cmp.Diff([]string{"name", "server_type", "location"}, names); diff != "" {
		t.Errorf("fields (-want +got):\n%s\n%s", diff, body)
	}
	// hcloud-go exposes them too.
	_, _, err := f.client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: "-bad-", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	var herr hcloud.Error
	if !asError(err, &herr) || herr.Details.(hcloud.ErrorDetailsInvalidInput).Fields[0].Name != "name" {
		t.Errorf("hcloud-go error %v", err)
	}
}

func TestBareBaseURL(t *testing.T) {
	f := newFixture(t, Options{})
	resp, body := f.do(t, "GET", "/locations?name=fsn1", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"fsn1"`) {
		t.Fatalf("bare base URL: %d %s", resp.StatusCode, body)
	}
}

func TestEmptyListsAndNulls(t *testing.T) {
	f := newFixture(t, Options{})
	_, body := f.do(t, "GET", "/v1/servers", "")
	if !strings.Contains(string(body), `"servers":[]`) || !strings.Contains(string(body), `"previous_page":null`) {
		t.Errorf("empty list body %s", body)
	}
	off := false
	res, _, err := f.client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: "v6only", ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"},
		PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: false, EnableIPv6: true}, StartAfterCreate: &off})
	if err != nil {
		t.Fatal(err)
	}
	_, body = f.do(t, "GET", fmt.Sprintf("/v1/servers/%d", res.Server.ID), "")
	for _, want := range []string{`"ipv4":null`, `"private_net":[]`, `"labels":{}`, `"load_balancers":[]`, `"iso":null`, `"placement_group":null`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("server body lacks %s: %s", want, body)
		}
	}
}

func TestCorrelationIDEchoed(t *testing.T) {
	f := newFixture(t, Options{})
	req := mustRequest(t, "GET", f.url+"/v1/locations", DefaultToken)
	req.Header.Set("X-Correlation-Id", "abc123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Correlation-Id"); got != "abc123" {
		t.Errorf("X-Correlation-Id %q, want the client's", got)
	}
}
