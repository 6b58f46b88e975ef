package fakecloud

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// admin sends a request to the admin API and decodes a JSON answer into out.
func (f *fixture) admin(t *testing.T, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, f.url+"/_fakecloud"+path, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return resp.StatusCode
}

func TestAdminFaultsAndEvents(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})

	var env wire.Envelope
	if code := f.admin(t, "POST", "/faults", `{"pth": "/servers", "status": 500}`, &env); code != 422 || !strings.Contains(env.Error.Message, "pth") {
		t.Errorf("unknown field: %d %+v", code, env)
	}
	var inv struct {
		Error struct {
			Details apierr.InvalidInputDetails `json:"details"`
		} `json:"error"`
	}
	if code := f.admin(t, "POST", "/faults", "path: servers\nstatus: 200\nprobability: 3\n", &inv); code != 422 || len(inv.Error.Details.Fields) != 3 {
		t.Errorf("invalid rule: %d %+v", code, inv)
	}
	var added struct{ Rule Rule }
	if code := f.admin(t, "POST", "/faults", "method: GET\npath: /servers/{id}\nstatus: 503\ncount: 1\n", &added); code != 201 || added.Rule.ID == 0 {
		t.Fatalf("add rule: %d %+v", code, added)
	}
	_, _, err := f.client.Server.GetByID(ctx, s.ID)
	wantCode(t, err, "unavailable")

	if code := f.admin(t, "POST", "/action-faults", `{"command":"start_server","error_code":"server_error","count":1}`, nil); code != 201 {
		t.Fatalf("add action fault: %d", code)
	}
	var listed struct {
		Rules        []Rule        `json:"rules"`
		ActionFaults []ActionFault `json:"action_faults"`
	}
	f.admin(t, "GET", "/faults", "", &listed)
	if len(listed.Rules) != 1 || listed.Rules[0].Hits != 1 || len(listed.ActionFaults) != 1 {
		t.Errorf("faults %+v", listed)
	}
	if code := f.admin(t, "DELETE", "/faults/"+itoa(listed.Rules[0].ID), "", nil); code != 204 {
		t.Errorf("delete rule: %d", code)
	}
	if code := f.admin(t, "DELETE", "/faults/9999", "", nil); code != 404 {
		t.Errorf("delete unknown rule: %d", code)
	}
	if code := f.admin(t, "DELETE", "/faults", "", nil); code != 204 {
		t.Errorf("clear: %d", code)
	}

	if code := f.admin(t, "POST", "/events", `{"type":"power_off_server","server":`+itoa(int(s.ID))+`}`, nil); code != 204 {
		t.Fatalf("event: %d", code)
	}
	if got, _, _ := f.client.Server.GetByID(ctx, s.ID); got.Status != hcloud.ServerStatusOff {
		t.Errorf("status %s after the event", got.Status)
	}
	if code := f.admin(t, "POST", "/events", `{"type":"delete_server","server":1}`, &inv); code != 422 || inv.Error.Details.Fields[0].Name != "server" {
		t.Errorf("event on a missing server: %d %+v", code, inv)
	}

	var rl map[string]any
	if code := f.admin(t, "PUT", "/rate-limit", `{"remaining": 7, "refill": 0}`, &rl); code != 200 || rl["remaining"] != float64(7) {
		t.Errorf("rate limit: %d %v", code, rl)
	}
	if code := f.admin(t, "PUT", "/rate-limit", `{"remaining": -1}`, nil); code != 422 {
		t.Errorf("negative remaining: %d", code)
	}
}

func TestAdminInspection(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	seed, err := os.ReadFile("../testdata/worlds/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if code := f.admin(t, "POST", "/seed", string(seed), nil); code != 204 {
		t.Fatalf("seed: %d", code)
	}
	if code := f.admin(t, "POST", "/seed", "servers:\n  - name: x\n    server_type: nope\n", nil); code != 422 {
		t.Errorf("bad seed: %d", code)
	}
	// A refused seed resets to empty; reset to seed brings the last good one back.
	if code := f.admin(t, "POST", "/reset", `{"to":"seed"}`, nil); code != 204 {
		t.Fatalf("reset to seed: %d", code)
	}
	all, _ := f.client.Server.All(ctx)
	if len(all) != 3 {
		t.Fatalf("%d servers after reset to seed, want 3", len(all))
	}
	if code := f.admin(t, "POST", "/reset", `{"to":"nowhere"}`, nil); code != 422 {
		t.Errorf("bad reset: %d", code)
	}
	var st world.Snapshot
	if code := f.admin(t, "GET", "/state", "", &st); code != 200 || len(st.Servers) != 3 || len(st.LoadBalancers) != 1 {
		t.Errorf("state: %d %d servers", code, len(st.Servers))
	}

	f.admin(t, "DELETE", "/counters", "", nil)
	f.admin(t, "DELETE", "/journal", "", nil)
	for range 3 {
		if _, err := f.client.Server.All(ctx); err != nil {
			t.Fatal(err)
		}
	}
	f.client.Server.GetByID(ctx, 1)
	var counters struct{ Counters []Counter }
	f.admin(t, "GET", "/counters", "", &counters)
	want := map[string]uint64{"GET /servers 200": 3, "GET /servers/{id} 404": 1}
	if len(counters.Counters) != len(want) {
		t.Fatalf("counters %+v, want %v", counters.Counters, want)
	}
	for _, c := range counters.Counters {
		if want[c.Method+" "+c.Template+" "+itoa(c.Status)] != c.Count {
			t.Errorf("counter %+v, want %v", c, want)
		}
	}
	var journal struct{ Entries []JournalEntry }
	f.admin(t, "GET", "/journal?template=/servers/{id}&status=404", "", &journal)
	if len(journal.Entries) != 1 || journal.Entries[0].Path != "/servers/1" || !strings.HasPrefix(journal.Entries[0].UserAgent, "hcloud-go") || journal.Entries[0].CorrelationID == "" {
		t.Errorf("journal %+v", journal.Entries)
	}
	f.admin(t, "GET", "/journal?limit=2", "", &journal)
	if len(journal.Entries) != 2 || journal.Entries[1].Template != "/servers/{id}" {
		t.Errorf("journal limit: %+v", journal.Entries)
	}
	if code := f.admin(t, "GET", "/journal?since=x", "", nil); code != 422 {
		t.Errorf("bad since: %d", code)
	}

	resp, err := http.Get(f.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, line := range []string{`fakecloud_requests_total{method="GET",path="/servers",status="200"} 3`, "fakecloud_rate_limit_remaining"} {
		if !strings.Contains(string(body), line) {
			t.Errorf("/metrics lacks %s:\n%s", line, body)
		}
	}
}

func TestAdminAccess(t *testing.T) {
	open := New(Options{})
	req := httptest.NewRequest("GET", "/_fakecloud/counters", nil)
	req.RemoteAddr = "192.0.2.10:5555"
	rec := httptest.NewRecorder()
	open.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("non-loopback client without an admin token: %d", rec.Code)
	}
	guarded := New(Options{AdminToken: "sesame"})
	for token, want := range map[string]int{"": 401, "wrong": 401, "sesame": 200} {
		req := httptest.NewRequest("GET", "/_fakecloud/counters", nil)
		req.RemoteAddr = "192.0.2.10:5555"
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		guarded.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("admin token %q: %d, want %d", token, rec.Code, want)
		}
	}
	// The API's tokens do not open the admin API, nor the other way round.
	req = httptest.NewRequest("GET", "/v1/servers", nil)
	req.Header.Set("Authorization", "Bearer sesame")
	rec = httptest.NewRecorder()
	guarded.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("admin token on the API: %d", rec.Code)
	}
}

func TestAdminStateAndScenarios(t *testing.T) {
	f := newFixture(t, Options{})
	newServer(t, f, hcloud.ServerCreateOpts{Name: "keep"})
	resp, err := http.Get(f.url + "/_fakecloud/state")
	if err != nil {
		t.Fatal(err)
	}
	snapshot, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	f.admin(t, "POST", "/reset", "", nil)
	var env wire.Envelope
	if code := f.admin(t, "PUT", "/state", `{"version": 3}`, &env); code != 422 || !strings.Contains(env.Error.Message, "version") {
		t.Errorf("bad snapshot: %d %+v", code, env)
	}
	if code := f.admin(t, "PUT", "/state", string(snapshot), nil); code != 204 {
		t.Fatalf("import: %d", code)
	}
	if s, _, _ := f.client.Server.GetByName(t.Context(), "keep"); s == nil {
		t.Fatal("server missing after import")
	}
	scenario, _ := os.ReadFile("../testdata/scenarios/lb-create-fail-after-commit.yaml")
	if code := f.admin(t, "POST", "/scenarios", string(scenario), nil); code != 204 {
		t.Fatalf("load scenario: %d", code)
	}
	if code := f.admin(t, "POST", "/scenarios", "steps:\n  - event: {type: explode}\n", &env); code != 422 || !strings.Contains(env.Error.Message, "steps[0]") {
		t.Errorf("bad scenario: %d %+v", code, env)
	}
	rules, _ := f.fc.Faults()
	if len(rules) != 1 || rules[0].Name != "lb-create-504" {
		t.Errorf("rules after loading the scenario: %+v", rules)
	}
}
