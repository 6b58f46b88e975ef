package fakecloud

import (
	"net/http"
	"strings"
	"testing"
)

// TestTokensChangeWhileRunning: a token added through the admin API is
// taken at once, read-only ones may only read, a revoked one gets 401,
// and what no project can take is refused without a change.
func TestTokensChangeWhileRunning(t *testing.T) {
	fc := New(Options{Projects: map[string][]string{"other": {"other-token"}}})
	get := func(token string) int {
		return answer(t, fc, "GET", "/v1/servers", nil, "Authorization", "Bearer "+token).Code
	}
	keys := 0
	post := func(token string) int {
		keys++
		body := `{"name":"k` + itoa(keys) + `","public_key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl x"}`
		return answer(t, fc, "POST", "/v1/ssh_keys", strings.NewReader(body), "Authorization", "Bearer "+token).Code
	}
	admin := func(path, body string) int {
		return answer(t, fc, "POST", "/_fakecloud"+path, strings.NewReader(body)).Code
	}

	if got := get("new-token"); got != http.StatusUnauthorized {
		t.Fatalf("an unknown token: %d", got)
	}
	if got := admin("/tokens", `{"token":"new-token"}`); got != http.StatusNoContent {
		t.Fatalf("adding a token: %d", got)
	}
	if got := post("new-token"); got != http.StatusCreated {
		t.Errorf("a write with the added token: %d", got)
	}
	if got := admin("/tokens", `{"token":"viewer-2","read_only":true}`); got != http.StatusNoContent {
		t.Fatalf("adding a read-only token: %d", got)
	}
	if get("viewer-2") != http.StatusOK || post("viewer-2") != http.StatusForbidden {
		t.Error("a read-only token added at run time may read, and only read")
	}
	if got := admin("/tokens/revoke", `{"token":"`+DefaultToken+`"}`); got != http.StatusNoContent {
		t.Fatalf("revoking the default token: %d", got)
	}
	if got := get(DefaultToken); got != http.StatusUnauthorized {
		t.Errorf("the revoked token: %d, want 401", got)
	}
	for _, bad := range []struct{ path, body string }{
		{"/tokens", `{"token":""}`},
		{"/tokens", `{"token":"with space"}`},
		{"/tokens", `{"token":"other-token"}`},
		{"/tokens/revoke", `{"token":"never-given"}`},
		{"/tokens/revoke", `{"token":"new-token","read_only":true}`},
	} {
		if got := admin(bad.path, bad.body); got != http.StatusUnprocessableEntity {
			t.Errorf("POST %s %s: %d, want 422", bad.path, bad.body, got)
		}
	}
	if got := answer(t, fc, "POST", "/_fakecloud/tokens?project=other", strings.NewReader(`{"token":"t2"}`)).Code; got != http.StatusUnprocessableEntity {
		t.Errorf("adding a token to a further project: %d, want 422", got)
	}
	if get("new-token") != http.StatusOK || get("other-token") != http.StatusOK {
		t.Error("a refused change changed a token")
	}
}
