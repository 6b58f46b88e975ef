package robotclient

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
)

// webservice answers as the documentation shows: wrapped objects, basic
// auth, the error envelope.
func webservice(t *testing.T, routes map[string]func(w http.ResponseWriter)) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "secret" {
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":{"status":401,"code":"UNAUTHORIZED","message":"Unauthorized"}}`))
			return
		}
		if h, ok := routes[r.Method+" "+r.URL.Path]; ok {
			h(w)
			return
		}
		w.WriteHeader(404)
		_, _ = w.Write([]byte(`{"error":{"status":404,"code":"NOT_FOUND","message":"Not Found"}}`))
	}))
	t.Cleanup(srv.Close)
	return NewClient(srv.URL, "user", "secret", "test", 5*time.Second)
}

func answer(status int, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func TestClientServers(t *testing.T) {
	c := webservice(t, map[string]func(http.ResponseWriter){
		"GET /server": answer(200, `[{"server":{"server_ip":"123.123.123.123","server_ipv6_net":"2a01:4f8:111:4221::","server_number":321,
			"server_name":"server1","product":"DS 3000","dc":"NBG1-DC1","traffic":"5 TB","status":"ready","cancelled":false,
			"paid_until":"2010-09-02","ip":["123.123.123.123"],"subnet":[{"ip":"2a01:4f8:111:4221::","mask":"64"}]}},
			{"server":{"server_ip":"123.123.123.124","server_ipv6_net":"2a01:4f8:111:4222::","server_number":421,"server_name":"server2",
			"product":"X5","dc":"FSN1-DC10","traffic":"2 TB","status":"in process","cancelled":true,"paid_until":"2010-06-11","ip":[],"subnet":null}}]`),
		"GET /server/321": answer(200, `{"server":{"server_ip":"123.123.123.123","server_number":321,"server_name":"server1","product":"DS 3000","dc":"NBG1-DC1","reset":true}}`),
		"GET /reset/321":  answer(200, `{"reset":{"server_ip":"123.123.123.123","server_ipv6_net":"2a01:4f8:111:4221::","server_number":321,"type":["sw","hw","man"],"operating_status":"shut off"}}`),
	})
	got, err := c.Servers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []Server{
		{Number: 321, Name: "server1", IPv4: "123.123.123.123", IPv6Net: "2a01:4f8:111:4221::", Product: "DS 3000", DC: "NBG1-DC1", Status: "ready"},
		{Number: 421, Name: "server2", IPv4: "123.123.123.124", IPv6Net: "2a01:4f8:111:4222::", Product: "X5", DC: "FSN1-DC10", Status: "in process", Cancelled: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Servers (-want +got):\n%s", diff)
	}
	if s, err := c.Server(t.Context(), 321); err != nil || s.Name != "server1" || s.DC != "NBG1-DC1" {
		t.Errorf("Server(321) = %+v, %v", s, err)
	}
	if r, err := c.Reset(t.Context(), 321); err != nil || r.OperatingStatus != "shut off" || r.ServerNumber != 321 {
		t.Errorf("Reset(321) = %+v, %v", r, err)
	}
	if _, err := c.Server(t.Context(), 9); !IsCode(err, CodeNotFound) {
		t.Errorf("Server(9) = %v, want NOT_FOUND", err)
	}
}

// An account without servers answers 404 SERVER_NOT_FOUND to the listing.
func TestClientNoServers(t *testing.T) {
	c := webservice(t, map[string]func(http.ResponseWriter){
		"GET /server": answer(404, `{"error":{"status":404,"code":"SERVER_NOT_FOUND","message":"Server not found"}}`),
	})
	if got, err := c.Servers(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("Servers = %v, %v; want none", got, err)
	}
}

func TestClientErrors(t *testing.T) {
	c := webservice(t, map[string]func(http.ResponseWriter){
		"GET /server":  answer(403, `{"error":{"status":403,"code":"RATE_LIMIT_EXCEEDED","max_request":200,"interval":3600,"message":"Rate limit exceeded"}}`),
		"GET /reset/1": answer(502, `<html>Bad Gateway</html>`),
	})
	_, err := c.Servers(t.Context())
	var e *Error
	if !IsCode(err, CodeRateLimitExceeded) || !asError(err, &e) || e.MaxRequest != 200 || e.Interval != 3600 {
		t.Fatalf("Servers = %v, want RATE_LIMIT_EXCEEDED with 200 per 3600 s", err)
	}
	if _, err := c.Reset(t.Context(), 1); !asError(err, &e) || e.Status != 502 {
		t.Fatalf("Reset = %v, want the status 502 kept", err)
	}
	bad := NewClient(c.endpoint, "user", "wrong", "test", 5*time.Second)
	if _, err := bad.Servers(t.Context()); !IsCode(err, CodeUnauthorized) {
		t.Fatalf("Servers with a wrong password = %v", err)
	}
}

func asError(err error, e **Error) bool { return errors.As(err, e) }

// TestClientBoundsTheAnswer: an answer that never ends is an error naming
// the request after 32 MiB, and a timeout that is not positive is 15 s,
// not none.
func TestClientBoundsTheAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(cloudtest.Endless))
	defer srv.Close()
	c := NewClient(srv.URL, "u", "p", "test", 0)
	if c.http.Timeout != 15*time.Second {
		t.Errorf("timeout %v, want 15s", c.http.Timeout)
	}
	_, err := c.Servers(t.Context())
	if err == nil || !strings.Contains(err.Error(), "GET /server: the answer is longer than 32 MiB") {
		t.Errorf("Servers = %v, want the endless answer named", err)
	}
}
