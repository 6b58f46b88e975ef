package fakecloud

import (
	"testing"
)

// FuzzDecodeRequests sends arbitrary bodies to every writing endpoint: no
// answer is a 5xx, every error is an envelope, and a rejected request leaves
// the world as it was.
func FuzzDecodeRequests(f *testing.F) {
	seeds := []string{`{}`, `{"name":"x"}`, `{"name":"n","ip_range":"10.0.0.0/16","subnets":[{"type":"cloud","ip_range":"10.0.0.0/24","network_zone":"eu-central"}]}`,
		`{"protocol":"http","listen_port":81,"http":{"certificates":[1]}}`, `{"type":"label_selector","label_selector":{"selector":"a in (b,c)"}}`,
		`{"destination":"10.9.0.0/16","gateway":"10.0.0.9"}`, `{"name":"s","server_type":"cx22","image":"ubuntu-24.04","networks":[1]}`, `null`, `{"labels":null}`}
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

// FuzzLabelSelector: parsing never panics, and a parsed selector evaluates.
func FuzzLabelSelector(f *testing.F) {
	for _, s := range []string{"a=b", "a in (b,c),!d", "x notin (y)", "k!=v,k2", "a,b,(c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := parseSelector(s)
		if err == nil {
			sel.matches(map[string]string{"a": "b"})
		}
	})
}
