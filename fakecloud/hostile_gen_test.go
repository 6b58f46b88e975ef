package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestHostileGenerated runs the generated bad requests against every
// operation fakecloud serves, API and admin, from two workers (one per
// core, each with its own fakecloud) that take operations in turn, the
// heaviest first; each world is checked at the end.
func TestHostileGenerated(t *testing.T) {
	ops := specOps(t, New(Options{}).api)
	admin := adminOps(t)
	checkAdminRoutes(t, New(Options{}), admin)
	jobs := make(chan func(*hostile), len(ops)+len(admin)+1)
	jobs <- func(h *hostile) {
		for _, c := range classCases() {
			h.send(c)
		}
	}
	for _, op := range admin { // the heaviest
		jobs <- func(h *hostile) {
			for _, c := range h.adminCases(op) {
				h.send(c)
			}
		}
	}
	for _, op := range ops {
		jobs <- func(h *hostile) {
			for _, c := range h.opCases(op) {
				h.send(c)
			}
		}
	}
	close(jobs)
	var mu sync.Mutex
	total := hostile{covered: map[string]bool{}, validated: map[string]bool{}}
	t.Run("workers", func(t *testing.T) {
		for worker := range 2 {
			t.Run(fmt.Sprint(worker), func(t *testing.T) {
				t.Parallel()
				h := newHostile(t, hostileAdminToken)
				for job := range jobs {
					job(h)
				}
				export(t, h.fc)
				mu.Lock()
				defer mu.Unlock()
				total.add(h)
			})
		}
	})
	remote := newHostile(t, "")
	for _, c := range remoteAdminCases(admin) {
		remote.send(c)
	}
	total.add(remote)
	api := 0
	for k := range total.covered {
		if !strings.Contains(k, "/_fakecloud") {
			api++
		}
	}
	if api < 60 {
		t.Errorf("only %d API operations were covered", api)
	}
	t.Logf("%d requests to %d API operations (of %d in the description's served paths) and %d admin operations: %d refused, %d accepted; %d answers validated against the description",
		total.sent, api, len(ops), len(total.covered)-api, total.refused, total.accepted, total.checked)
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

// target is an operation's path under /v1 with valid parameters (its
// validRequest's id and query, else the first listed resource), or with
// bad as the parameter at index which.
func (h *hostile) target(op specOp, which int, bad string) string {
	vr := validRequests[op.method+" "+op.path]
	segs := strings.Split(strings.TrimPrefix(op.path, "/"), "/")
	n := 0
	for i, s := range segs {
		if !strings.HasPrefix(s, "{") {
			continue
		}
		segs[i] = h.value("/" + strings.Join(segs[:i], "/"))
		if n == 0 && vr.id != "" {
			segs[i] = filled(vr.id, h.refs)
		}
		if n < len(vr.params) {
			segs[i] = filled(vr.params[n], h.refs)
		}
		if n == which {
			segs[i] = bad
		}
		n++
	}
	path := "/v1/" + strings.Join(segs, "/")
	if vr.query != "" {
		path += "?" + filled(vr.query, h.refs)
	}
	return path
}

// base is the body of an operation's valid request, or nil.
func (h *hostile) base(op specOp) map[string]any {
	vr, ok := validRequests[op.method+" "+op.path]
	if !ok || vr.body == "" {
		return nil
	}
	var base map[string]any
	if err := json.Unmarshal([]byte(filled(vr.body, h.refs)), &base); err != nil {
		h.t.Fatalf("%s %s: valid body: %v", op.method, op.path, err)
	}
	return base
}

// opCases checks that an operation's valid requests are accepted and
// returns its bad requests. It returns none when fakecloud answers the
// operation "not simulated".
func (h *hostile) opCases(op specOp) []hostileCase {
	cases := h.generate(op)
	probe := h.send(cases[0])
	if probe.Code == http.StatusNotFound && strings.Contains(probe.Body.String(), "not simulated") {
		return nil
	}
	h.covered[op.method+" "+op.path] = true
	_, known := validRequests[op.method+" "+op.path]
	switch {
	case known && probe.Code >= 300:
		h.t.Errorf("%s %s: the valid request answered %d %.300s", op.method, cases[0].path, probe.Code, probe.Body)
	case !known && op.body != nil:
		h.t.Errorf("%s %s takes a body but has no valid request in validRequests", op.method, op.path)
	}
	for _, v := range alsoValid {
		if v.op == op.method+" "+op.path {
			h.send(hostileCase{why: "a valid request", method: op.method, path: cases[0].path, body: []byte(filled(v.body, h.refs)), want: http.StatusCreated})
		}
	}
	return cases[1:]
}

// generate is an operation's valid request (or, without one, the
// description's example) followed by its bad requests.
func (h *hostile) generate(op specOp) []hostileCase {
	path := h.target(op, -1, "")
	base := h.base(op)
	var body []byte
	if base != nil {
		body = mustMarshal(base)
	} else if op.body != nil {
		body = mustMarshal(example(op.body))
	}
	out := []hostileCase{{why: "the valid request", method: op.method, path: path, body: body}}
	s := newSampler(op.method + " " + op.path)
	pathParams := 0
	for _, p := range op.params {
		if p.in == "path" {
			bads := append(take(s, badIDs, 3), nonexistent)
			if p.name == "rr_name" { // a name, not an ID: add_records creates one it does not find
				bads = take(s, badRRSetNames, 4)
			}
			for _, bad := range bads {
				out = append(out, hostileCase{why: p.name + "=" + short(bad), method: op.method, path: h.target(op, pathParams, bad), body: body, invalid: true})
			}
			pathParams++
		}
	}
	out = append(out, queryCases(s, op.method, path, op.params)...)
	if base != nil {
		_, required := properties(op.body)
		out = append(out, bodyCases(s, op.method, path, base, op.body, required, 4, false)...)
	}
	for _, auth := range take(s, badAuth, 2) {
		out = append(out, hostileCase{why: "Authorization " + short(auth), method: op.method, path: path, body: body,
			header: []string{"Authorization", auth}, invalid: true, want: http.StatusUnauthorized})
	}
	if op.method != http.MethodGet {
		out = append(out, hostileCase{why: "read-only token", method: op.method, path: path, body: body,
			header: []string{"Authorization", "Bearer viewer"}, invalid: true, want: http.StatusForbidden})
	}
	return out
}
