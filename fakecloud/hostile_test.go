package fakecloud

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
)

// answerDeadline bounds how long any request of the hostile tests may take.
const answerDeadline = 5 * time.Second

// answer serves one request in-process and fails the test if no answer
// comes within answerDeadline (a wedged world lock would hang it).
func answer(t testing.TB, h http.Handler, method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return answerFrom(t, h, loopbackClient, method, target, body, header...)
}

// loopbackClient is a client address the admin API answers.
const loopbackClient = "127.0.0.1:40000"

// answerFrom is answer for a client at remote.
func answerFrom(t testing.TB, h http.Handler, remote, method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.RemoteAddr = remote
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, req)
	}()
	select {
	case <-done:
	case <-time.After(answerDeadline):
		t.Fatalf("%s %s: no answer within %s", method, target, answerDeadline)
	}
	return rec
}

// errorCode is the code of an error envelope, or "" for another body.
func errorCode(rec *httptest.ResponseRecorder) string {
	var env wire.Envelope
	if json.Unmarshal(rec.Body.Bytes(), &env) != nil {
		return ""
	}
	return env.Error.Code
}

// TestPanicReleasesTheWorld: a handler that panics under the world lock
// answers server_error, and every later request is still answered.
func TestPanicReleasesTheWorld(t *testing.T) {
	fc, _ := seededServer(t)
	fc.api.Get("/panic", fc.serve(func(*call) (int, any, *apierr.Error) { panic("injected") }))

	rec := answer(t, fc, "GET", "/v1/panic", nil)
	if rec.Code != http.StatusInternalServerError || errorCode(rec) != apierr.CodeServerError {
		t.Fatalf("panic answered %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{"/v1/servers", "/_fakecloud/state", "/metadata/control-plane-1/hetzner/v1/metadata/hostname"} {
		if rec := answer(t, fc, "GET", path, nil); rec.Code != http.StatusOK {
			t.Errorf("GET %s after the panic: %d %s", path, rec.Code, rec.Body)
		}
	}
}

// TestOverflowingPage: a page near the largest int64 is an empty page of
// a list, not an overflow; one beyond int64 is invalid_input.
func TestOverflowingPage(t *testing.T) {
	fc, _ := seededServer(t)
	rec := answer(t, fc, "GET", "/v1/servers?page=9223372036854775807&per_page=50", nil)
	var list struct {
		Servers []json.RawMessage `json:"servers"`
		Meta    listMeta          `json:"meta"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &list) != nil {
		t.Fatalf("largest page: %d %s", rec.Code, rec.Body)
	}
	if len(list.Servers) != 0 || list.Meta.Pagination.Page != 9223372036854775807 || list.Meta.Pagination.NextPage != nil {
		t.Errorf("largest page: %d servers, meta %+v", len(list.Servers), list.Meta.Pagination)
	}
	for _, page := range []string{"9223372036854775808", "99999999999999999999999", "-1", "0", "+1", "01", "1e3", "0x10", "%EF%BC%91"} {
		rec := answer(t, fc, "GET", "/v1/servers?page="+page, nil)
		if rec.Code != http.StatusUnprocessableEntity || errorCode(rec) != apierr.CodeInvalidInput {
			t.Errorf("page=%s: %d %s", page, rec.Code, rec.Body)
		}
	}
	if rec := answer(t, fc, "GET", "/v1/servers", nil); rec.Code != http.StatusOK {
		t.Fatalf("API after the overflowing pages: %d", rec.Code)
	}
}

// TestIDsArePlainDecimal: path IDs take digits only, from 1 to 2^53-1.
func TestIDsArePlainDecimal(t *testing.T) {
	fc, ids := seededServer(t)
	id := ids["server"]
	if rec := answer(t, fc, "GET", "/v1/servers/"+itoa(int(id)), nil); rec.Code != http.StatusOK {
		t.Fatalf("plain ID: %d", rec.Code)
	}
	for _, bad := range []string{"+" + itoa(int(id)), "0" + itoa(int(id)), itoa(int(id)) + ".0", " " + itoa(int(id)),
		"0", "-1", "9007199254740992", "18446744073709551616", "1e5", "0x1", "%EF%BC%91"} {
		rec := answer(t, fc, "GET", "/v1/servers/"+strings.ReplaceAll(bad, " ", "%20"), nil)
		if rec.Code != http.StatusUnprocessableEntity || errorCode(rec) != apierr.CodeInvalidInput {
			t.Errorf("ID %q: %d %s", bad, rec.Code, rec.Body)
		}
	}
}

// TestUnauthenticatedRequestsSpendNothing: the bucket is the project's, so
// a request without a valid token answers 401, even when the bucket is
// empty, and leaves the budget to the project's clients.
func TestUnauthenticatedRequestsSpendNothing(t *testing.T) {
	fc := New(Options{RateLimit: 5, RateLimitRefill: 1e-9, Now: newClock().Now})
	for _, auth := range []string{"", "Bearer nope", "Basic " + DefaultToken, DefaultToken} {
		for range 10 {
			rec := answer(t, fc, "GET", "/v1/servers", nil, "Authorization", auth)
			if rec.Code != http.StatusUnauthorized || rec.Header().Get("RateLimit-Remaining") != "" {
				t.Fatalf("Authorization %q: %d, RateLimit-Remaining %q", auth, rec.Code, rec.Header().Get("RateLimit-Remaining"))
			}
		}
	}
	for want := 4; want >= 0; want-- {
		rec := answer(t, fc, "GET", "/v1/servers", nil)
		if rec.Code != http.StatusOK || rec.Header().Get("RateLimit-Remaining") != itoa(want) {
			t.Fatalf("authenticated: %d, remaining %s, want %d", rec.Code, rec.Header().Get("RateLimit-Remaining"), want)
		}
	}
	if rec := answer(t, fc, "GET", "/v1/servers", nil); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("empty bucket: %d", rec.Code)
	}
	if rec := answer(t, fc, "GET", "/v1/servers", nil, "Authorization", "Bearer nope"); rec.Code != http.StatusUnauthorized {
		t.Fatalf("bad token on an empty bucket: %d, want 401 before 429", rec.Code)
	}
}

// TestTokens: a read-only token alone keeps the default token, and the
// scheme is Bearer in any case, nothing else.
func TestTokens(t *testing.T) {
	fc := New(Options{ReadOnlyTokens: []string{"viewer"}, AdminToken: "adm"})
	cases := []struct {
		name, method, path, auth string
		want                     int
	}{
		{"default token writes", "POST", "/v1/ssh_keys", "Bearer " + DefaultToken, http.StatusUnprocessableEntity},
		{"read-only reads", "GET", "/v1/servers", "Bearer viewer", http.StatusOK},
		{"read-only writes", "POST", "/v1/ssh_keys", "Bearer viewer", http.StatusForbidden},
		{"scheme in lower case", "GET", "/v1/servers", "bearer viewer", http.StatusOK},
		{"no scheme", "GET", "/v1/servers", "viewer", http.StatusUnauthorized},
		{"admin token", "GET", "/_fakecloud/counters", "Bearer adm", http.StatusOK},
		{"admin token without scheme", "GET", "/_fakecloud/counters", "adm", http.StatusUnauthorized},
		{"admin token as Basic", "GET", "/_fakecloud/counters", "Basic adm", http.StatusUnauthorized},
		{"API token on admin", "GET", "/_fakecloud/counters", "Bearer " + DefaultToken, http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if rec := answer(t, fc, tc.method, tc.path, strings.NewReader("{}"), "Authorization", tc.auth); rec.Code != tc.want {
				t.Errorf("%d %s, want %d", rec.Code, rec.Body, tc.want)
			}
		})
	}
}

// TestRefusedAdminCallsChangeNothing: a refused seed, reset, import,
// scenario, event, fault or rate-limit change leaves the world, its ID
// counters, the faults, the budget and the reset target as they were.
func TestRefusedAdminCallsChangeNothing(t *testing.T) {
	fc, _ := seededServer(t)
	before := export(t, fc)
	rules, actionFaults := fc.Faults()
	_, remaining, _, _ := fc.RateLimit()
	dupSeed := "servers:\n- {name: a}\n- {name: a}\n"
	calls := []struct{ method, path, body string }{
		{"POST", "/_fakecloud/seed", dupSeed},
		{"POST", "/_fakecloud/seed", "null"},
		{"POST", "/_fakecloud/seed", ""},
		{"POST", "/_fakecloud/seed", "~"},
		{"POST", "/_fakecloud/seed", "[]"},
		{"POST", "/_fakecloud/seed", "servers: [{name: \"\xff\"}]"},
		{"PUT", "/_fakecloud/state", "null"},
		{"PUT", "/_fakecloud/state", ""},
		{"PUT", "/_fakecloud/state", `{"version":1,"servers":[null]}`},
		{"POST", "/_fakecloud/reset", ""},
		{"POST", "/_fakecloud/reset", "null"},
		{"POST", "/_fakecloud/reset", `{"to":"elsewhere"}`},
		{"POST", "/_fakecloud/reset", "{}{}"},
		{"POST", "/_fakecloud/seed", "{} x"},
		{"POST", "/_fakecloud/seed", "servers: []\n---\nnetworks: []\n"},
		{"POST", "/_fakecloud/scenarios", "null"},
		{"POST", "/_fakecloud/scenarios", `{"steps":[]}`},
		{"POST", "/_fakecloud/scenarios", `{"steps":[{"fault":{"status":503}},{"event":{"type":"nope"}}]}`},
		{"POST", "/_fakecloud/events", "null"},
		{"POST", "/_fakecloud/events", ""},
		{"POST", "/_fakecloud/faults", "null"},
		{"POST", "/_fakecloud/action-faults", ""},
		{"PUT", "/_fakecloud/rate-limit", "null"},
		{"PUT", "/_fakecloud/rate-limit", `{"remaining":-1}`},
	}
	for _, c := range calls {
		rec := answer(t, fc, c.method, c.path, strings.NewReader(c.body))
		if rec.Code < 400 || rec.Code >= 500 || errorCode(rec) == "" {
			t.Errorf("%s %s %q: %d %s", c.method, c.path, c.body, rec.Code, rec.Body)
		}
		if diff := cmp.Diff(before, export(t, fc)); diff != "" {
			t.Fatalf("%s %s %q changed the world (-before +after):\n%s", c.method, c.path, c.body, diff)
		}
	}
	if r, a := fc.Faults(); len(r) != len(rules) || len(a) != len(actionFaults) {
		t.Errorf("faults changed: %d rules, %d action faults", len(r), len(a))
	}
	if _, now, _, _ := fc.RateLimit(); now != remaining {
		t.Errorf("rate limit remaining %d, was %d", now, remaining)
	}
	fc.Reset()
	if err := fc.ResetToSeed(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, export(t, fc)); diff != "" {
		t.Errorf("reset to seed after the refusals is not the seeded world (-seeded +now):\n%s", diff)
	}
}

// export is the whole world as JSON; an export that fails fails the test,
// so a broken export cannot pass for an unchanged world, and so does a
// world that breaks checkWorld.
func export(t testing.TB, fc *Server) string {
	t.Helper()
	data, err := fc.Export()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	var st world.Snapshot
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("decode the export: %v", err)
	}
	if errs := checkWorld(&st); len(errs) > 0 {
		t.Fatalf("the world breaks its invariants: %v", errors.Join(errs...))
	}
	return string(data)
}
