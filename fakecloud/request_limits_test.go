package fakecloud

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// limitedServer is fakecloud behind its own HTTPServer, with the given
// read and idle timeouts.
func limitedServer(t *testing.T, read, idle time.Duration) string {
	t.Helper()
	fc := New(Options{})
	srv := httptest.NewUnstartedServer(fc)
	cfg := fc.HTTPServer()
	cfg.ReadTimeout, cfg.IdleTimeout = read, idle
	srv.Config = cfg
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(fc.Close)
	return srv.URL
}

// TestRequestLimits: a URL over 8 KiB is answered 414 with the error
// envelope, before its label selector is matched; headers over 64 KiB get
// net/http's 431.
func TestRequestLimits(t *testing.T) {
	url := limitedServer(t, time.Minute, time.Minute)
	get := func(path string, header string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", url+path, nil)
		req.Header.Set("Authorization", "Bearer "+DefaultToken)
		if header != "" {
			req.Header.Set("X-Big", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	long := "/v1/servers?label_selector=" + strings.Repeat("a", maxURI)
	if resp, body := get(long, ""); resp.StatusCode != http.StatusRequestURITooLong || !strings.Contains(body, `"code":"request_too_large"`) || resp.Header.Get("Link") != "" {
		t.Errorf("a %d-byte URL: %d %s", len(long), resp.StatusCode, body)
	}
	if resp, _ := get("/v1/servers?label_selector="+strings.Repeat("a", 63), ""); resp.StatusCode != http.StatusOK {
		t.Errorf("a short selector: %d", resp.StatusCode)
	}
	if resp, _ := get("/v1/servers", strings.Repeat("h", 2*maxHeaderBytes)); resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a header over 64 KiB: %d, want 431", resp.StatusCode)
	}
}

// TestSlowAndIdleConnectionsClosed: a body that trickles in past the read
// timeout, and a keep-alive connection idle past the idle timeout, are
// closed by fakecloud.
func TestSlowAndIdleConnectionsClosed(t *testing.T) {
	url := limitedServer(t, 300*time.Millisecond, 300*time.Millisecond)
	addr := strings.TrimPrefix(url, "http://")
	closed := func(c net.Conn) bool {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := io.ReadAll(c) // ends at EOF when the server closes
		return err == nil
	}

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "POST /v1/networks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 100\r\n\r\n{", DefaultToken)
	if !closed(slow) {
		t.Error("a body trickling in was not cut off within 5 s")
	}

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprintf(idle, "GET /v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", DefaultToken)
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("keep-alive request: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if !closed(idle) {
		t.Error("an idle keep-alive connection was not closed within 5 s")
	}
}
