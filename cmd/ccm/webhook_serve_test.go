package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWebhookRequestsAreBounded: a review that is too big, whose body
// never finishes, whose target is long, or that is not a POST, is
// answered with an error within the limits and never reaches the webhook
// (which logs each target whole); a whole one does.
func TestWebhookRequestsAreBounded(t *testing.T) {
	var (
		mu      sync.Mutex
		reached []string
	)
	srv := httptest.NewServer(boundedReview(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		reached = append(reached, string(body))
		mu.Unlock()
	}), 200*time.Millisecond, 1000))
	defer srv.Close()

	for name, tc := range map[string]struct {
		send   string
		status string
	}{
		"a whole review":         {"POST /validate HTTP/1.1\r\nHost: w\r\nContent-Length: 2\r\n\r\n{}", "200 OK"},
		"too big":                {"POST /validate HTTP/1.1\r\nHost: w\r\nContent-Length: 2000\r\n\r\n" + strings.Repeat("x", 2000), "413 Request Entity Too Large"},
		"a body that stalls":     {"POST /validate HTTP/1.1\r\nHost: w\r\nContent-Length: 100\r\n\r\n{", "408 Request Timeout"},
		"the apiserver's target": {"POST /validate?timeout=10s HTTP/1.1\r\nHost: w\r\nContent-Length: 2\r\n\r\n{}", "200 OK"},
		"a long target":          {"POST /validate?" + strings.Repeat("q", 2000) + " HTTP/1.1\r\nHost: w\r\nContent-Length: 2\r\n\r\n{}", "414 Request URI Too Long"},
		"not a POST":             {"GET /validate HTTP/1.1\r\nHost: w\r\n\r\n", "405 Method Not Allowed"},
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second)) // far above the limit
			if _, err := io.WriteString(conn, tc.send); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 64)
			n, err := io.ReadAtLeast(conn, buf, len("HTTP/1.1 ")+len(tc.status))
			if err != nil || !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 "+tc.status) {
				t.Errorf("answer %q, %v; want %s", buf[:n], err, tc.status)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) != 2 || reached[0] != "{}" || reached[1] != "{}" {
		t.Errorf("the webhook saw %q, want only the two whole reviews", reached)
	}
}
