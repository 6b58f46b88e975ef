package adminclient_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

func TestErrorCarriesTheEnvelope(t *testing.T) {
	_, c := start(t, fakecloud.Options{})
	err := c.RemoveFault(t.Context(), 7)
	var e *adminclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("removing an unknown fault: %v, want an *adminclient.Error", err)
	}
	want := &adminclient.Error{Method: "DELETE", Path: "/faults/7", StatusCode: http.StatusNotFound,
		Code: "not_found", Message: "fault with ID '7' not found"}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if got, want := err.Error(), "DELETE /faults/7: not_found: fault with ID '7' not found"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !adminclient.IsError(err, "not_found") || adminclient.IsError(err, "invalid_input") || adminclient.IsError(errors.New("x"), "not_found") {
		t.Error("IsError does not classify by code")
	}
}

func TestErrorWithoutEnvelope(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream down", http.StatusBadGateway)
	}))
	defer srv.Close()
	err := adminclient.New(srv.URL, "", nil).ClearJournal(t.Context())
	var e *adminclient.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadGateway || e.Code != "" || e.Body != "upstream down" {
		t.Fatalf("a 502 in plain text: %#v", err)
	}
	if got, want := err.Error(), "DELETE /journal: HTTP 502: upstream down"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
