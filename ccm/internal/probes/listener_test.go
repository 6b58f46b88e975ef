package probes

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestListenerReapsIdleAndSlowClients: a connection that sends half a
// request, a body it never finishes, or nothing after its answer is
// closed by the server after the port's limits, not kept for ever.
func TestListenerReapsIdleAndSlowClients(t *testing.T) {
	for name, v := range map[string]time.Duration{"header": listenerLimits.header, "read": listenerLimits.read,
		"write": listenerLimits.write, "idle": listenerLimits.idle} {
		if v <= 0 || v > time.Minute {
			t.Errorf("the port's %s limit is %v, want one from 1ns to 1m", name, v)
		}
	}
	srv, err := serve(t.Context(), "127.0.0.1:0", nil, limits{header: 100 * time.Millisecond, read: 200 * time.Millisecond,
		write: time.Second, idle: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetReady(true)
	for name, send := range map[string]string{
		"half a header":   "GET /healthz HTTP/1.1\r\nHost: ccm\r\n",
		"half a body":     "POST /healthz HTTP/1.1\r\nHost: ccm\r\nContent-Length: 1000\r\n\r\nab",
		"idle after one":  "GET /readyz HTTP/1.1\r\nHost: ccm\r\n\r\n",
		"nothing at all":  "",
		"too big headers": "GET /healthz HTTP/1.1\r\nHost: ccm\r\nX: " + strings.Repeat("x", 64<<10) + "\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, send); err != nil {
				t.Fatal(err)
			}
			// The bound of this test: far above the limits.
			if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(conn)
			for range 3 { // at most one answer before the close
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					var netErr net.Error
					if errors.As(err, &netErr) && netErr.Timeout() {
						t.Fatalf("the connection is still open after 10s")
					}
					return // closed by the server
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if name == "too big headers" && resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
					t.Errorf("status %d, want 431", resp.StatusCode)
				}
			}
			t.Fatal("more answers than requests")
		})
	}
}
