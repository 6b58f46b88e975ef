package fakecloud

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeRequests sends arbitrary bodies to every writing endpoint: no
// answer is a 5xx, every error is an envelope, and a rejected request leaves
// the world as it was.
func FuzzDecodeRequests(f *testing.F) {
	seeds := []string{`{}`, `{"name":"x"}`, `{"name":"n","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.0.0.0/24","network_zone":"eu-central"}]}`,
		`{"protocol":"http","listen_port":81,"http":{"certificates":[1]}}`, `{"type":"label_selector","label_selector":{"selector":"a in (b,c)"}}`,
		`{"destination":"10.9.0.0/16","gateway":"10.0.0.9"}`, `{"name":"s","server_type":"cx23","image":"ubuntu-24.04","networks":[1]}`, `null`, `{"labels":null}`}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	fc, ids := seededServer(f)
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		method, path := endpoint(int(which), ids)
		before := export(t, fc)
		if code := send(t, fc, method, path, body); code >= 400 {
			if after := export(t, fc); before != after {
				t.Fatalf("%s %s %q rejected with %d but changed the world", method, path, body, code)
			}
		}
	})
}

// FuzzHostile sends fuzzed queries and bodies to the API's and the admin
// API's operations, seeded from the generated cases, with the same checks;
// an accepted body that takes a body must be UTF-8.
func FuzzHostile(f *testing.F) {
	h := newHostile(f, hostileAdminToken)
	ops := specOps(f, h.fc.api)
	admin := adminOps(f)
	for i, op := range ops {
		for j, c := range h.generate(op) {
			if j%17 == 0 && c.header == nil { // a sample keeps the corpus small
				_, query, _ := strings.Cut(c.path, "?")
				f.Add(uint16(i), query, c.body)
			}
		}
	}
	for i, op := range admin {
		var base map[string]any
		if json.Unmarshal([]byte(op.body), &base) != nil {
			continue
		}
		for j, c := range bodyCases(newSampler(op.path), op.method, op.path, base, nil, op.required, op.depth, true) {
			if j%17 == 0 {
				f.Add(uint16(len(ops)+i), "", c.body)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, query string, body []byte) {
		h.t = t
		c := hostileCase{why: "fuzzed", body: body}
		hasBody := false
		if i := int(which) % (len(ops) + len(admin)); i < len(ops) {
			c.method, c.path, hasBody = ops[i].method, h.target(ops[i], -1, ""), ops[i].body != nil
		} else {
			op := admin[i-len(ops)]
			c.method, c.path, hasBody = op.method, "/_fakecloud"+strings.Replace(op.path, "{id}", "1", 1), op.body != ""
			c.header = []string{"Authorization", "Bearer " + hostileAdminToken}
		}
		c.invalid = hasBody && !utf8.Valid(body)
		if query != "" {
			c.path, _, _ = strings.Cut(c.path, "?")
			c.path += "?" + query
		}
		if _, err := url.ParseRequestURI(c.path); err != nil || strings.ContainsAny(c.path, " #") {
			return // not a request line a client can send
		}
		h.send(c)
	})
}
