package fakecloud

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCloseAnswersNoHeldRequest: Close ends the requests a rule holds
// (hung before or after the change, or slowed) by closing their
// connections, so no client takes a held request for a success.
func TestCloseAnswersNoHeldRequest(t *testing.T) {
	for name, rule := range map[string]Rule{
		"hang":              {Path: "/networks", Hang: true},
		"hang after commit": {Path: "/networks", Hang: true, AfterCommit: true},
		"latency":           {Path: "/networks", Latency: Duration(time.Hour)},
	} {
		t.Run(name, func(t *testing.T) {
			fc := New(Options{})
			srv := httptest.NewServer(fc)
			defer srv.Close()
			if _, err := fc.AddFault(rule); err != nil {
				t.Fatal(err)
			}
			type answer struct {
				status int
				err    error
			}
			done := make(chan answer, 1)
			go func() {
				req, _ := http.NewRequest("POST", srv.URL+"/v1/networks", strings.NewReader(`{"name":"n","ip_range":"10.0.0.0/16"}`))
				req.Header.Set("Authorization", "Bearer "+DefaultToken)
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					resp.Body.Close()
					done <- answer{status: resp.StatusCode}
					return
				}
				done <- answer{err: err}
			}()
			waitFor(t, func() bool { rules, _ := fc.Faults(); return len(rules) == 1 && rules[0].Hits == 1 })
			fc.Close()
			select {
			case a := <-done:
				if a.err == nil {
					t.Errorf("a request held at Close was answered %d, want its connection closed", a.status)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the held request still waits 10 s after Close")
			}
		})
	}
}
