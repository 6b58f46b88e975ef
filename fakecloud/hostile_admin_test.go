package fakecloud

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"sigs.k8s.io/yaml"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/admin"
)

// adminOp is an admin operation with a body it accepts in hostileWorld,
// the body's required properties, how deep its mutations go and, when it
// is not 2xx, the status its valid request answers in hostileWorld.
type adminOp struct {
	method, path, body string
	required           []string
	depth              int
	answers            int
}

// adminOps are the admin API's operations; checkAdminRoutes keeps the
// table complete.
func adminOps(t testing.TB) []adminOp {
	seedJSON, err := yaml.YAMLToJSON([]byte(hostileSeed))
	if err != nil {
		t.Fatal(err)
	}
	state, err := hostileWorld(t, "").Export()
	if err != nil {
		t.Fatal(err)
	}
	return []adminOp{
		{method: "GET", path: "/faults"},
		{method: "POST", path: "/faults", required: []string{"path"}, depth: 1,
			body: `{"name":"r","method":"GET","path":"/servers/{id}","resource_id":7,"status":503,"code":"service_error","message":"m","count":2,"probability":0.5,"latency":"1ms","start":"0s","for":"1m"}`},
		{method: "POST", path: "/action-faults", required: []string{"command"}, depth: 1,
			body: `{"command":"add_target","error_code":"server_error","error_message":"m","count":1,"delay":"1s","start":"0s","for":"1m"}`},
		{method: "DELETE", path: "/faults/{id}"},
		{method: "DELETE", path: "/faults"},
		{method: "GET", path: "/realism"},
		{method: "GET", path: "/fidelity"},
		{method: "GET", path: "/projects"},
		{method: "GET", path: "/state-file", answers: http.StatusNotFound}, // hostileWorld has no state file
		{method: "PUT", path: "/realism", required: []string{"mode"}, depth: 1, body: `{"mode":"pessimistic","action_retention":"10m"}`},
		{method: "GET", path: "/rate-limit"},
		{method: "PUT", path: "/rate-limit", depth: 1, body: `{"remaining":10,"refill":0.5}`},
		{method: "POST", path: "/events", required: []string{"type"}, depth: 1,
			body: `{"type":"set_target_health","load_balancer_name":"ingress","server_name":"worker-1","listen_port":80,"health":"unhealthy"}`},
		{method: "POST", path: "/tokens", required: []string{"token"}, depth: 1, body: `{"token":"hostile-added","read_only":true}`},
		// hostileWorld has no such token to revoke: the request is whole, the answer 422.
		{method: "POST", path: "/tokens/revoke", required: []string{"token"}, depth: 1, body: `{"token":"absent-token"}`, answers: http.StatusUnprocessableEntity},
		{method: "POST", path: "/reset", depth: 1, body: `{"to":"seed"}`},
		{method: "POST", path: "/seed", depth: 2, body: string(seedJSON)},
		{method: "GET", path: "/state"},
		{method: "PUT", path: "/state", required: []string{"version"}, depth: 1, body: string(state)},
		{method: "POST", path: "/scenarios", required: []string{"steps"}, depth: 3,
			body: `{"description":"s","steps":[{"at":"1s","event":{"type":"power_off_server","server_name":"worker-1"}},{"at":"2s","rate_limit":{"remaining":5}}]}`},
		{method: "GET", path: "/journal"},
		{method: "DELETE", path: "/journal"},
		{method: "GET", path: "/counters"},
		{method: "DELETE", path: "/counters"},
		{method: "GET", path: "/robot/limits"},
		{method: "DELETE", path: "/robot/limits"},
	}
}

// journalParams are the journal's query parameters.
var journalParams = []specParam{{name: "method", in: "query"}, {name: "template", in: "query"}, {name: "path", in: "query"},
	{name: "status", in: "query", typ: "integer"}, {name: "since", in: "query", typ: "integer"}, {name: "limit", in: "query", typ: "integer"}}

// adminCases generates the bad requests of one admin operation, sent with
// the admin token unless they are about the token.
func (h *hostile) adminCases(op adminOp) []hostileCase {
	full := "/_fakecloud" + strings.Replace(op.path, "{id}", "1", 1)
	token := []string{"Authorization", "Bearer " + hostileAdminToken}
	probe := h.send(hostileCase{why: "the valid request", method: op.method, path: full, body: []byte(op.body), header: token})
	if probe.Code >= 300 && !strings.Contains(op.path, "{id}") && probe.Code != op.answers {
		h.t.Errorf("%s %s: the valid request answered %d %.300s", op.method, full, probe.Code, probe.Body)
	}
	h.covered[op.method+" /_fakecloud"+op.path] = true
	s := newSampler(op.method + " /_fakecloud" + op.path)
	var out []hostileCase
	if strings.Contains(op.path, "{id}") {
		for _, bad := range append(slices.Clone(badIDs), nonexistent) {
			out = append(out, hostileCase{why: "id=" + short(bad), method: op.method, path: "/_fakecloud" + strings.Replace(op.path, "{id}", bad, 1), invalid: true})
		}
	}
	if op.path == "/journal" {
		out = append(out, queryCases(s, op.method, full, journalParams)...)
	}
	if op.body != "" {
		var base map[string]any
		if err := json.Unmarshal([]byte(op.body), &base); err != nil {
			h.t.Fatalf("admin body %s: %v", op.path, err)
		}
		out = append(out, bodyCases(s, op.method, full, base, nil, op.required, op.depth, true)...)
		limit := admin.BodyLimit(httptest.NewRequest(op.method, full, nil))
		out = append(out, hostileCase{why: "body over its limit", method: op.method, path: full, body: bytes.Repeat([]byte(" "), int(limit)+1),
			invalid: true, want: http.StatusRequestEntityTooLarge})
	}
	for i := range out {
		out[i].header = token
	}
	for _, auth := range append(slices.Clone(badAuth), "Bearer "+DefaultToken, "Bearer viewer") {
		out = append(out, hostileCase{why: "Authorization " + short(auth), method: op.method, path: full, body: []byte(op.body),
			header: []string{"Authorization", auth}, invalid: true, want: http.StatusUnauthorized})
	}
	return out
}

// remoteAdminCases are the valid admin requests from a client that is not
// on loopback, for a fakecloud without an admin token: each is 403.
func remoteAdminCases(ops []adminOp) []hostileCase {
	var out []hostileCase
	for _, op := range ops {
		for _, remote := range []string{"203.0.113.9:4000", "[2001:db8::1]:4000", "10.0.0.2:1", "localhost:80", "garbage"} {
			out = append(out, hostileCase{why: "from " + remote, method: op.method, path: "/_fakecloud" + strings.Replace(op.path, "{id}", "1", 1),
				body: []byte(op.body), remote: remote, invalid: true, want: http.StatusForbidden})
		}
	}
	return out
}

// checkAdminRoutes fails for an admin route the table does not have.
func checkAdminRoutes(t testing.TB, fc *Server, ops []adminOp) {
	t.Helper()
	router, ok := fc.adminOf(fc).(chi.Routes)
	if !ok {
		t.Fatal("the admin API is not a chi router")
	}
	err := chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if !slices.ContainsFunc(ops, func(op adminOp) bool { return op.method == method && shape(op.path) == shape(route) }) {
			t.Errorf("the admin API serves %s %s, which the hostile suite's table does not have", method, route)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
