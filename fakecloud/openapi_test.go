package fakecloud

import (
	"net/http/httptest"
	"testing"
)

// TestValidatorRejectsWrongShape proves the OpenAPI check used by every
// contract test is not vacuous.
func TestValidatorRejectsWrongShape(t *testing.T) {
	r := httptest.NewRequest("GET", "http://127.0.0.1:1234/v1/servers/5", nil)
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(200)
	_, _ = rec.WriteString(`{"server":{"id":"x"}}`)
	if ok, _ := openAPI(t).ValidateHttpResponse(r, rec.Result()); ok {
		t.Fatal("a server with a string id validated against the OpenAPI description")
	}
}
