package fakecloud

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/robot"
)

const hybridSeed = `
servers:
  - name: worker-1
dedicated_servers:
  - server_name: bm-1
  - server_number: 321
    server_name: tower-1
    server_ip: 192.0.2.10
    product: EX40
    dc: NBG1-DC3
    operating_status: not supported
`

// robotFixture is a fakecloud seeded with hybridSeed on httptest.
type robotFixture struct {
	fc    *Server
	url   string
	clock *fakecloudtest.Clock
}

func newRobotFixture(t *testing.T, opts Options) *robotFixture {
	t.Helper()
	clock := newClock()
	opts.Now = clock.Now
	fc := New(opts)
	world, err := ParseWorld([]byte(hybridSeed))
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.Seed(world); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	t.Cleanup(fc.Close)
	return &robotFixture{fc: fc, url: srv.URL, clock: clock}
}

// get sends GET /robot<path> with the default webservice login (or user
// and password when given) and decodes the answer.
func (f *robotFixture) get(t *testing.T, path string, login ...string) (int, any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", f.url+"/robot"+path, nil)
	user, password := DefaultRobotUser, DefaultRobotPassword
	if len(login) == 2 {
		user, password = login[0], login[1]
	}
	req.SetBasicAuth(user, password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var body any
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatalf("GET %s: %d %q is not JSON", path, resp.StatusCode, data)
	}
	return resp.StatusCode, body
}

// field digs a value out of decoded JSON: keys and list indices.
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestRobotSeedDefaults: a seed's dedicated server gets its number,
// addresses, data centre and paid-until date by default, and the
// webservice under /robot lists it with the given one.
func TestRobotSeedDefaults(t *testing.T) {
	f := newRobotFixture(t, Options{})
	status, body := f.get(t, "/server")
	if status != http.StatusOK {
		t.Fatalf("GET /robot/server: %d %v", status, body)
	}
	want := map[string]any{"server_ip": "203.0.113.2", "server_ipv6_net": "3fff:1e:8481::", "server_number": 2000001.0,
		"server_name": "bm-1", "product": "AX41-NVMe", "dc": "FSN1-DC14", "traffic": "unlimited", "status": "ready",
		"cancelled": false, "paid_until": "2026-11-30", "ip": []any{"203.0.113.2"},
		"subnet": []any{map[string]any{"ip": "3fff:1e:8481::", "mask": "64"}}}
	if d := cmp.Diff(want, field(body, 1, "server")); d != "" {
		t.Errorf("defaulted server (-want +got):\n%s", d)
	}
	if got := field(body, 0, "server", "server_number"); got != 321.0 {
		t.Errorf("servers are listed in number order: first is %v", got)
	}
	if _, body := f.get(t, "/reset/321"); field(body, "reset", "operating_status") != "not supported" {
		t.Errorf("tower server's reset: %v", body)
	}
}

// TestRobotSeedRefused: a seed with a bad dedicated server is refused,
// naming the server and the field, and changes nothing.
func TestRobotSeedRefused(t *testing.T) {
	f := newRobotFixture(t, Options{})
	before, _ := f.fc.Export()
	for _, tt := range []struct{ seed, want string }{
		{"dedicated_servers: [{server_name: x, dc: fsn1-dc14}]", "seed dedicated_servers[0] (x): dc: "},
		{"dedicated_servers: [{server_name: x, server_ip: 198.18.0.9}]", "server_ip: 198.18.0.9 is in fakecloud's cloud addresses"},
		{"dedicated_servers: [{server_name: a, server_number: 5}, {server_name: b, server_number: 5}]", "server_number: 5 is taken"},
		{"dedicated_servers: [{server_name: a, server_ip: 192.0.2.1}, {server_name: b, server_ip: 192.0.2.1}]", "server_ip: 192.0.2.1 is held by dedicated server"},
		{"dedicated_servers: [{server_name: a, operating_status: \"off\"}]", "operating_status: "},
		{"dedicated_servers: [{server_name: a, power: on}]", "unknown field"},
	} {
		w, err := ParseWorld([]byte(tt.seed))
		if err == nil {
			err = f.fc.Seed(w)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("seed %s: error %v, want one with %q", tt.seed, err, tt.want)
		}
	}
	if after, _ := f.fc.Export(); string(after) != string(before) {
		t.Error("a refused seed changed the world")
	}
}

// TestRobotEvents: each dedicated server event changes what the
// webservice answers; a refused one changes nothing.
func TestRobotEvents(t *testing.T) {
	f := newRobotFixture(t, Options{})
	steps := []struct {
		event Event
		path  string
		at    []any
		want  any
	}{
		{Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "bm-2", DC: "HEL1-DC2"}}, "/server/2000002", []any{"server", "dc"}, "HEL1-DC2"},
		{Event{Type: "rename_dedicated_server", ServerNumber: 2000001, Name: "bm-renamed"}, "/server", []any{1, "server", "server_name"}, "bm-renamed"},
		{Event{Type: "cancel_dedicated_server", ServerNumber: 2000001}, "/server", []any{1, "server", "cancelled"}, true},
		{Event{Type: "power_off_dedicated_server", ServerNumber: 2000001}, "/reset/2000001", []any{"reset", "operating_status"}, "shut off"},
		{Event{Type: "power_on_dedicated_server", ServerNumber: 2000001}, "/reset/2000001", []any{"reset", "operating_status"}, "running"},
		{Event{Type: "remove_dedicated_server", ServerNumber: 2000001}, "/server", []any{1, "server", "server_number"}, 2000002.0},
		{Event{Type: "remove_dedicated_server", ServerNumber: 2000001}, "/server/2000001", []any{"error", "code"}, "SERVER_NOT_FOUND"},
	}
	for _, st := range steps {
		if err := f.fc.Apply(st.event); err != nil && st.want != "SERVER_NOT_FOUND" {
			t.Fatalf("%s: %v", st.event.Type, err)
		}
		_, body := f.get(t, st.path)
		if got := field(body, st.at...); got != st.want {
			t.Errorf("after %s: %s %v = %v, want %v", st.event.Type, st.path, st.at, got, st.want)
		}
	}
	for _, n := range []int64{321, 2000002} {
		if err := f.fc.Apply(Event{Type: "remove_dedicated_server", ServerNumber: n}); err != nil {
			t.Fatal(err)
		}
	}
	if status, body := f.get(t, "/server"); status != http.StatusNotFound || field(body, "error", "code") != "SERVER_NOT_FOUND" {
		t.Errorf("no servers left: %d %v", status, body)
	}
}

// TestRobotEventsRefused: malformed events and events naming what is not
// there are refused with the field named, and change nothing.
func TestRobotEventsRefused(t *testing.T) {
	f := newRobotFixture(t, Options{})
	before, _ := f.fc.Export()
	for _, tt := range []struct {
		event Event
		want  string
	}{
		{Event{Type: "rename_dedicated_server", ServerNumber: 321}, "name: rename_dedicated_server needs the new name"},
		{Event{Type: "cancel_dedicated_server"}, "server_number: cancel_dedicated_server needs"},
		{Event{Type: "cancel_dedicated_server", ServerNumber: 9}, "server_number: no dedicated server has number 9"},
		{Event{Type: "power_off_dedicated_server", ServerNumber: 321}, "tower server"},
		{Event{Type: "remove_dedicated_server", ServerNumber: 321, ServerName: "worker-1"}, "server_name: is not used by remove_dedicated_server"},
		{Event{Type: "add_dedicated_server"}, "dedicated_server: add_dedicated_server needs the server"},
		{Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Number: 321}}, "dedicated_server.server_number: 321 is taken"},
		{Event{Type: "power_off_dedicated_servers"}, "type: \"power_off_dedicated_servers\" is not one of"},
	} {
		if err := f.fc.Apply(tt.event); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want one with %q", tt.event, err, tt.want)
		}
	}
	if after, _ := f.fc.Export(); string(after) != string(before) {
		t.Error("a refused event changed the world")
	}
}

// TestRobotAdminAndScenario: the admin API's events and a scenario step
// reach dedicated servers too.
func TestRobotAdminAndScenario(t *testing.T) {
	f := newRobotFixture(t, Options{})
	resp, err := http.Post(f.url+"/_fakecloud/events", "application/yaml", strings.NewReader("{type: rename_dedicated_server, server_number: 321, name: t2}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST /_fakecloud/events: %d", resp.StatusCode)
	}
	sc, err := ParseScenario([]byte("steps: [{at: 1m, event: {type: power_off_dedicated_server, server_number: 2000001}}]"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.fc.LoadScenario(sc); err != nil {
		t.Fatal(err)
	}
	if _, body := f.get(t, "/reset/2000001"); field(body, "reset", "operating_status") != "running" {
		t.Errorf("before the step: %v", body)
	}
	f.clock.Advance(time.Minute)
	if _, body := f.get(t, "/reset/2000001"); field(body, "reset", "operating_status") != "shut off" {
		t.Errorf("after the step: %v", body)
	}
	if _, body := f.get(t, "/server/321"); field(body, "server", "server_name") != "t2" {
		t.Errorf("after the admin event: %v", body)
	}
}

// TestRobotStateRoundTrip: dedicated servers survive export and import,
// reset to the seed brings removed ones back, reset empties them, and a
// snapshot with a broken one is refused.
func TestRobotStateRoundTrip(t *testing.T) {
	f := newRobotFixture(t, Options{})
	if err := f.fc.Apply(Event{Type: "cancel_dedicated_server", ServerNumber: 321}); err != nil {
		t.Fatal(err)
	}
	_, want := f.get(t, "/server")
	data, err := f.fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	g := &robotFixture{clock: newClock()}
	g.fc = New(Options{Now: g.clock.Now})
	srv := httptest.NewServer(g.fc)
	defer srv.Close()
	g.url = srv.URL
	if err := g.fc.Import(data); err != nil {
		t.Fatal(err)
	}
	if _, got := g.get(t, "/server"); !cmp.Equal(want, got) {
		t.Errorf("after import:\n%s", cmp.Diff(want, got))
	}
	if err := g.fc.Apply(Event{Type: "add_dedicated_server", DedicatedServer: &SeedDedicatedServer{Name: "n"}}); err != nil {
		t.Fatal(err)
	}
	if _, body := g.get(t, "/server/2000002"); field(body, "server", "server_name") != "n" {
		t.Errorf("the number counter did not survive the import: %v", body)
	}
	broken := strings.Replace(string(data), `"server_ip": "192.0.2.10"`, `"server_ip": "203.0.113.2"`, 1)
	if err := g.fc.Import([]byte(broken)); err == nil || !strings.Contains(err.Error(), "public IP 203.0.113.2 is also held by dedicated server") {
		t.Errorf("import with a server_ip twice: %v", err)
	}
	if err := f.fc.Apply(Event{Type: "remove_dedicated_server", ServerNumber: 321}); err != nil {
		t.Fatal(err)
	}
	if err := f.fc.ResetToSeed(); err != nil {
		t.Fatal(err)
	}
	if _, body := f.get(t, "/server/321"); field(body, "server", "cancelled") != false {
		t.Errorf("after ResetToSeed: %v", body)
	}
	f.fc.Reset()
	if status, _ := f.get(t, "/server"); status != http.StatusNotFound {
		t.Errorf("after Reset: status %d", status)
	}
}

// TestRobotJournalAndCounters: webservice requests are journaled and
// counted under /robot templates, apart from the cloud's.
func TestRobotJournalAndCounters(t *testing.T) {
	f := newRobotFixture(t, Options{})
	f.get(t, "/server")
	f.get(t, "/server/321")
	f.get(t, "/server/abc")
	f.get(t, "/nothing")
	got := []string{}
	for _, e := range f.fc.Journal(JournalFilter{Path: "/robot"}) {
		got = append(got, e.Method+" "+e.Path+" "+e.Template+" "+itoa(e.Status))
	}
	want := []string{
		"GET /robot/server /robot/server 200",
		"GET /robot/server/321 /robot/server/{server-number} 200",
		"GET /robot/server/abc /robot/server/{server-number} 400",
		"GET /robot/nothing /robot/unmatched 404",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("journal (-want +got):\n%s", d)
	}
	if n := f.fc.Requests("GET", "/robot/server/{server-number}"); n != 2 {
		t.Errorf("Requests(GET, /robot/server/{server-number}) = %d, want 2", n)
	}
	if n := f.fc.Requests("", "/servers"); n != 0 {
		t.Errorf("Robot requests counted as cloud ones: %d", n)
	}
}

// TestRobotFaults: rules under /robot/** answer in the webservice's
// envelope and codes, cloud rules leave it alone, and each side refuses
// the other's codes.
func TestRobotFaults(t *testing.T) {
	f := newRobotFixture(t, Options{})
	if _, err := f.fc.AddFault(Rule{Path: "/**", Status: 500}); err != nil {
		t.Fatal(err)
	}
	if status, _ := f.get(t, "/server"); status != http.StatusOK {
		t.Errorf("a cloud rule /** applied to the webservice: %d", status)
	}
	f.fc.ClearFaults()
	rule, err := f.fc.AddFault(Rule{Path: "/robot/server/{id}", Code: "RATE_LIMIT_EXCEEDED", Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"error": map[string]any{"status": 403.0, "code": "RATE_LIMIT_EXCEEDED", "max_request": 200.0, "interval": 3600.0,
		"message": "injected by fakecloud fault rule " + itoa(rule.ID)}}
	if status, body := f.get(t, "/server/321"); status != http.StatusForbidden || !cmp.Equal(want, body) {
		t.Errorf("faulted: %d %s", status, cmp.Diff(want, body))
	}
	if status, _ := f.get(t, "/server/321"); status != http.StatusOK {
		t.Errorf("count 1: second request %d", status)
	}
	if e := f.fc.Journal(JournalFilter{Path: "/robot", Status: 403}); len(e) != 1 || e[0].Fault != rule.ID {
		t.Errorf("journal of the faulted request: %+v", e)
	}
	if _, err := f.fc.AddFault(Rule{Path: "/robot/**", Status: 503}); err != nil {
		t.Fatal(err)
	}
	if status, body := f.get(t, "/reset"); status != http.StatusServiceUnavailable || field(body, "error", "code") != "INTERNAL_ERROR" {
		t.Errorf("status-only rule: %d %v", status, body)
	}
	for _, r := range []Rule{{Path: "/robot/**", Code: "server_error"}, {Path: "/servers", Code: "SERVER_NOT_FOUND"}} {
		if _, err := f.fc.AddFault(r); err == nil {
			t.Errorf("rule %+v with the other API's code accepted", r)
		}
	}
}

// TestRobotLoginAndLimits: the options' login, the block after failed
// logins, the scaled limits and the admin view of them.
func TestRobotLoginAndLimits(t *testing.T) {
	f := newRobotFixture(t, Options{RobotUser: "#ws+ops", RobotPassword: "s3cret", RobotRateLimitScale: 0.005})
	if status, _ := f.get(t, "/server"); status != http.StatusUnauthorized {
		t.Errorf("default login with RobotUser set: %d", status)
	}
	if status, _ := f.get(t, "/server", "#ws+ops", "s3cret"); status != http.StatusOK {
		t.Errorf("configured login: %d", status)
	}
	if status, body := f.get(t, "/server", "#ws+ops", "s3cret"); status != http.StatusForbidden || field(body, "error", "max_request") != 1.0 {
		t.Errorf("200*0.005 = 1 an hour: %d %v", status, body)
	}
	f.get(t, "/server", "#ws+ops", "wrong")
	f.get(t, "/server", "#ws+ops", "wrong") // the third failed login
	if status, _ := f.get(t, "/reset", "#ws+ops", "s3cret"); status != http.StatusUnauthorized {
		t.Errorf("blocked client with the right login: %d", status)
	}
	resp, err := http.Get(f.url + "/_fakecloud/robot/limits")
	if err != nil {
		t.Fatal(err)
	}
	var limits struct {
		Usage   []robot.Usage `json:"usage"`
		Blocked []robot.Block `json:"blocked"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&limits)
	resp.Body.Close()
	wantUsage := []robot.Usage{{User: "#ws+ops", Endpoint: "GET /server", Used: 1, Limit: 1, Interval: 3600}}
	if d := cmp.Diff(wantUsage, limits.Usage); d != "" || len(limits.Blocked) != 1 || limits.Blocked[0].IP != "127.0.0.1" {
		t.Errorf("GET /_fakecloud/robot/limits: %+v (usage -want +got: %s)", limits, d)
	}
	req, _ := http.NewRequest("DELETE", f.url+"/_fakecloud/robot/limits", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE /_fakecloud/robot/limits: %v %v", resp, err)
	}
	if status, _ := f.get(t, "/server", "#ws+ops", "s3cret"); status != http.StatusOK {
		t.Errorf("after clearing the limits: %d", status)
	}
}

// TestHybridWorld: testdata/worlds/hybrid.yaml seeds and lists its two
// dedicated servers.
func TestHybridWorld(t *testing.T) {
	w, err := LoadWorld("../testdata/worlds/hybrid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f := newRobotFixture(t, Options{})
	if err := f.fc.Seed(w); err != nil {
		t.Fatal(err)
	}
	_, body := f.get(t, "/server")
	var names []any
	for i := range 3 {
		names = append(names, field(body, i, "server", "server_name"))
	}
	if d := cmp.Diff([]any{"bm-worker-1", "bm-tower-1", nil}, names); d != "" {
		t.Errorf("hybrid world's dedicated servers (-want +got):\n%s", d)
	}
}
