package fakecloud

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// answerDeadline bounds how long any request of the hostile tests may take.
const answerDeadline = 5 * time.Second

// answer serves one request in-process and fails the test if no answer
// comes within answerDeadline (a wedged world lock would hang it).
func answer(t testing.TB, h http.Handler, method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.RemoteAddr = "127.0.0.1:40000" // a loopback client, as the admin API asks
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	for i := 0; i+1 < len(header); i += 2 {
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
	var env errorEnvelope
	if json.Unmarshal(rec.Body.Bytes(), &env) != nil {
		return ""
	}
	return env.Error.Code
}

// TestPanicReleasesTheWorld: a handler that panics under the world lock
// answers server_error, and every later request is still answered.
func TestPanicReleasesTheWorld(t *testing.T) {
	fc, _ := seededServer(t)
	fc.api.Get("/panic", fc.serve(func(*call) (int, any, *apiError) { panic("injected") }))

	rec := answer(t, fc, "GET", "/v1/panic", nil)
	if rec.Code != http.StatusInternalServerError || errorCode(rec) != codeServerError {
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
		if rec.Code != http.StatusUnprocessableEntity || errorCode(rec) != codeInvalidInput {
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
		if rec.Code != http.StatusUnprocessableEntity || errorCode(rec) != codeInvalidInput {
			t.Errorf("ID %q: %d %s", bad, rec.Code, rec.Body)
		}
	}
}
