package fakecloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// hostile sends generated bad requests to one fakecloud and checks every
// answer: given within answerDeadline, never 5xx, an error envelope valid
// against the OpenAPI description, and a refused request changes nothing
// (the whole export, faults and budget compared). An accepted request is
// undone before the next one, so every case starts from the same world.
type hostile struct {
	t                       testing.TB
	fc                      *Server
	before                  string            // the world, faults and budget every refusal must leave
	world                   []byte            // the first world's export, which undo restores
	values                  map[string]string // valid path values by route prefix
	covered                 map[string]bool   // operations that got requests
	validated               map[string]bool   // operation and status pairs validated
	sent, refused, accepted int
}

func newHostile(t testing.TB) *hostile {
	h := &hostile{t: t, values: map[string]string{}, covered: map[string]bool{}, validated: map[string]bool{}}
	h.fc = hostileWorld(t)
	h.before = h.snapshot()
	h.world = []byte(export(t, h.fc))
	return h
}

// hostileWorld is the small world plus a certificate and an SSH key, with
// rate limiting off (the suite sends more than a bucket holds). It is the
// same world every time: a stopped clock and seeded IDs.
func hostileWorld(t testing.TB) *Server {
	fc, _ := seededServerWith(t, Options{Now: newClock().Now, RateLimit: -1})
	for _, c := range []struct{ path, body string }{
		{"/v1/certificates", `{"name":"cert","type":"managed","domain_names":["example.com"]}`},
		{"/v1/ssh_keys", `{"name":"key","public_key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl x"}`},
	} {
		if rec := answer(t, fc, "POST", c.path, strings.NewReader(c.body)); rec.Code != http.StatusCreated {
			t.Fatalf("prepare %s: %d %s", c.path, rec.Code, rec.Body)
		}
	}
	return fc
}

// snapshot is everything a refused request must leave as it was.
func (h *hostile) snapshot() string {
	data, err := h.fc.Export()
	if err != nil {
		h.t.Fatalf("export: %v", err)
	}
	rules, actionFaults := h.fc.Faults()
	_, remaining, refill, on := h.fc.RateLimit()
	extra, _ := json.Marshal([]any{rules, actionFaults, remaining, refill, on})
	return string(data) + "\n" + string(extra)
}

// send makes one request and checks its answer.
func (h *hostile) send(c hostileCase) *httptest.ResponseRecorder {
	h.t.Helper()
	h.sent++
	remote := c.remote
	if remote == "" {
		remote = loopbackClient
	}
	rec := answerFrom(h.t, h.fc, remote, c.method, c.path, bytes.NewReader(c.body), c.header...)
	what := fmt.Sprintf("%s %s (%s)", c.method, short(c.path), c.why)
	if rec.Code >= 500 {
		h.t.Fatalf("%s: %d %s", what, rec.Code, rec.Body)
	}
	// One answer per operation and status is validated against the
	// description: the envelope's shape depends on nothing else, and the
	// validator is most of the suite's time.
	if key := fmt.Sprint(c.method, " ", h.fc.template(httptest.NewRequest(c.method, c.path, nil)), " ", rec.Code); strings.HasPrefix(c.path, "/v1/") && !h.validated[key] {
		h.validated[key] = true
		req := httptest.NewRequest(c.method, c.path, nil)
		if resp := rec.Result(); !knownDeviation(req, resp) {
			checkResponse(h.t, req, resp, rec.Body.Bytes())
		}
	}
	if rec.Code < 400 {
		h.accepted++
		if c.method != http.MethodGet {
			h.undo(what)
		}
		return rec
	}
	h.refused++
	var env errorEnvelope
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" ||
		rec.Header().Get("Content-Type") != "application/json" {
		h.t.Fatalf("%s: %d without an error envelope: %.300s", what, rec.Code, rec.Body)
	}
	if after := h.snapshot(); after != h.before {
		h.t.Fatalf("%s was refused (%d %s) but changed the world (-before +after):\n%s", what, rec.Code, env.Error.Code, cmp.Diff(h.before, after))
	}
	return rec
}

// undo goes back to the world before an accepted request, after checking
// that the request kept the world's invariants: a new fakecloud (no
// faults, a full budget, the small world as reset target) imports the
// first world's export (after an admin call; the API's only change the
// world, so the same fakecloud imports it).
func (h *hostile) undo(what string) {
	h.t.Helper()
	data, err := h.fc.Export()
	var st state
	if err != nil || json.Unmarshal(data, &st) != nil {
		h.t.Fatalf("%s was accepted; export: %v", what, err)
	}
	if errs := checkInvariants(&st); len(errs) > 0 {
		h.t.Fatalf("%s was accepted and broke the world's invariants: %v", what, errors.Join(errs...))
	}
	if strings.HasPrefix(what, "POST /_fakecloud") || strings.HasPrefix(what, "PUT /_fakecloud") {
		h.fc, _ = seededServerWith(h.t, Options{Now: newClock().Now, RateLimit: -1}) // the reset target too
	}
	if err := h.fc.Import(h.world); err != nil {
		h.t.Fatalf("import the first world: %v", err)
	}
	if now := h.snapshot(); now != h.before {
		h.t.Fatalf("the restored world differs from the first (-first +restored):\n%s", cmp.Diff(h.before, now))
	}
}

// value is a valid value for a path parameter after prefix (a concrete
// path such as /servers or /servers/7/actions): the ID of the first
// resource its listing shows.
func (h *hostile) value(prefix string) string {
	if v, ok := h.values[prefix]; ok {
		return v
	}
	list := prefix
	if list == "/actions" { // the top-level listing wants IDs; any family's actions do
		list = "/servers/actions"
	}
	rec := answer(h.t, h.fc, "GET", "/v1"+list+"?per_page=1", nil)
	var page map[string]json.RawMessage
	_ = json.Unmarshal(rec.Body.Bytes(), &page)
	v := "1"
	for k, raw := range page {
		var items []struct{ ID int64 }
		if k != "meta" && json.Unmarshal(raw, &items) == nil && len(items) > 0 {
			v = fmt.Sprint(items[0].ID)
		}
	}
	h.values[prefix] = v
	return v
}

// target fills a spec path's parameters with valid values, or with bad at
// index which.
func (h *hostile) target(path string, which int, bad string) string {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	n := 0
	for i, s := range segs {
		if !strings.HasPrefix(s, "{") {
			continue
		}
		segs[i] = h.value("/" + strings.Join(segs[:i], "/"))
		if n == which {
			segs[i] = bad
		}
		n++
	}
	return "/" + strings.Join(segs, "/")
}

// opCases generates the bad requests of one API operation. It returns
// none when fakecloud answers the operation "not simulated".
func (h *hostile) opCases(op specOp) []hostileCase {
	path := "/v1" + h.target(op.path, -1, "")
	var base map[string]any
	var body []byte
	if op.body != nil {
		base, _ = example(op.body).(map[string]any)
		body = mustMarshal(base)
	}
	probe := h.send(hostileCase{why: "the example request", method: op.method, path: path, body: body})
	if probe.Code == http.StatusNotFound && strings.Contains(probe.Body.String(), "not simulated") {
		return nil
	}
	h.covered[op.method+" "+op.path] = true
	var out []hostileCase
	pathParams := 0
	for _, p := range op.params {
		if p.in == "path" {
			for _, bad := range badIDs {
				out = append(out, hostileCase{why: p.name + "=" + short(bad), method: op.method, path: "/v1" + h.target(op.path, pathParams, bad), body: body})
			}
			pathParams++
		}
	}
	out = append(out, queryCases(op.method, path, op.params)...)
	if base != nil {
		props, required := properties(op.body)
		types := map[string]string{}
		for name, s := range props {
			types[name], _ = s["type"].(string)
		}
		out = append(out, bodyCases(op.method, path, base, types, required)...)
	}
	for _, auth := range badAuth {
		out = append(out, hostileCase{why: "Authorization " + short(auth), method: op.method, path: path, body: body, header: []string{"Authorization", auth}})
	}
	return out
}

// adminOps are the admin API's operations, each with a valid body.
func adminOps(t testing.TB) []struct{ method, path, body string } {
	seed, err := os.ReadFile("../testdata/worlds/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seedJSON, err := yaml.YAMLToJSON(seed)
	if err != nil {
		t.Fatal(err)
	}
	state, err := hostileWorld(t).Export()
	if err != nil {
		t.Fatal(err)
	}
	return []struct{ method, path, body string }{
		{"GET", "/faults", ""},
		{"POST", "/faults", `{"method":"GET","path":"/servers/{id}","status":503,"count":2,"latency":"1ms"}`},
		{"POST", "/action-faults", `{"command":"add_target","error_code":"server_error","count":1}`},
		{"DELETE", "/faults/{id}", ""},
		{"DELETE", "/faults", ""},
		{"GET", "/rate-limit", ""},
		{"PUT", "/rate-limit", `{"remaining":10,"refill":0.5}`},
		{"POST", "/events", `{"type":"power_off_server","server_name":"worker-1"}`},
		{"POST", "/reset", `{"to":"seed"}`},
		{"POST", "/seed", string(seedJSON)},
		{"GET", "/state", ""},
		{"PUT", "/state", string(state)},
		{"POST", "/scenarios", `{"name":"s","steps":[{"after":"1s","event":{"type":"power_off_server","server_name":"worker-1"}}]}`},
		{"GET", "/journal", ""},
		{"DELETE", "/journal", ""},
		{"GET", "/counters", ""},
		{"DELETE", "/counters", ""},
	}
}

// adminCases generates the bad requests of one admin operation.
func (h *hostile) adminCases(method, path, body string) []hostileCase {
	full := "/_fakecloud" + strings.Replace(path, "{id}", "1", 1)
	h.send(hostileCase{why: "the example request", method: method, path: full, body: []byte(body)})
	h.covered[method+" /_fakecloud"+path] = true
	var out []hostileCase
	if strings.Contains(path, "{id}") {
		for _, bad := range badIDs {
			out = append(out, hostileCase{why: "id=" + short(bad), method: method, path: "/_fakecloud" + strings.Replace(path, "{id}", bad, 1)})
		}
	}
	if path == "/journal" {
		var params []specParam
		for _, name := range []string{"method", "template", "path", "status", "since", "limit"} {
			params = append(params, specParam{name: name, in: "query"})
		}
		out = append(out, queryCases(method, full, params)...)
	}
	if body != "" {
		var base map[string]any
		if err := json.Unmarshal([]byte(body), &base); err != nil {
			h.t.Fatalf("admin example %s: %v", path, err)
		}
		out = append(out, bodyCases(method, full, base, jsonTypes(base), slices.Sorted(maps.Keys(base)))...)
	}
	for _, auth := range []string{"Basic x", "Bearer"} {
		out = append(out, hostileCase{why: "Authorization " + auth, method: method, path: full, body: []byte(body), header: []string{"Authorization", auth}, remote: "203.0.113.9:4000"})
	}
	return out
}

// TestHostileGenerated runs the generated bad requests against every
// operation fakecloud serves, API and admin, and checks the world's
// invariants at the end.
func TestHostileGenerated(t *testing.T) {
	h := newHostile(t)
	ops := specOps(t, h.fc.api)
	for _, op := range ops {
		for _, c := range h.opCases(op) {
			h.send(c)
		}
	}
	api := len(h.covered)
	for _, op := range adminOps(t) {
		for _, c := range h.adminCases(op.method, op.path, op.body) {
			h.send(c)
		}
	}
	export(t, h.fc)
	if api < 60 {
		t.Errorf("only %d API operations were covered", api)
	}
	t.Logf("%d requests to %d API operations (of %d in the description's served paths) and %d admin operations: %d refused, %d accepted",
		h.sent, api, len(ops), len(h.covered)-api, h.refused, h.accepted)
}

// FuzzHostile sends fuzzed queries and bodies to the API's operations,
// seeded from the generated cases, with the same checks.
func FuzzHostile(f *testing.F) {
	h := newHostile(f)
	ops := specOps(f, h.fc.api)
	for i, op := range ops {
		for j, c := range h.opCases(op) {
			if j%7 == 0 { // a sample keeps the corpus small
				_, query, _ := strings.Cut(c.path, "?")
				f.Add(uint16(i), query, c.body)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, query string, body []byte) {
		h.t = t
		op := ops[int(which)%len(ops)]
		path := "/v1" + h.target(op.path, -1, "")
		if query != "" {
			path += "?" + query
		}
		if _, err := url.ParseRequestURI(path); err != nil || strings.ContainsAny(path, " #") {
			return // not a request line a client can send
		}
		h.send(hostileCase{why: "fuzzed", method: op.method, path: path, body: body})
	})
}
