package fakecloud

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// countingReader counts what the client's transport read of a body.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestOversizedBodies: over TCP, a body over the limit gets 413 with the
// error envelope, which the client receives (no connection reset), every
// time; a client that waits for 100 Continue is refused before it sends.
func TestOversizedBodies(t *testing.T) {
	fc := New(Options{RateLimit: -1})
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	client := &http.Client{Timeout: answerDeadline, Transport: &http.Transport{ExpectContinueTimeout: answerDeadline}}

	post := func(path string, body io.Reader, length int64, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+path, body)
		req.ContentLength = length
		req.Header.Set("Authorization", "Bearer "+DefaultToken)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("POST %s with %d bytes: %v", path, length, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, data
	}
	big := bytes.Repeat([]byte("x"), 3<<20)
	for i := range 20 {
		resp, data := post("/v1/ssh_keys", bytes.NewReader(big), int64(len(big)))
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !containsCode(data, apierr.CodeRequestTooLarge) {
			t.Fatalf("try %d: %d %s", i, resp.StatusCode, data)
		}
	}
	chunked := &countingReader{r: bytes.NewReader(big)}
	if resp, data := post("/v1/ssh_keys", chunked, -1); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked: %d %s", resp.StatusCode, data)
	}
	waiting := &countingReader{r: bytes.NewReader(big)}
	resp, data := post("/v1/ssh_keys", waiting, int64(len(big)), "Expect", "100-continue")
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !containsCode(data, apierr.CodeRequestTooLarge) {
		t.Errorf("100-continue: %d %s", resp.StatusCode, data)
	}
	if n := waiting.n.Load(); n > 0 {
		t.Errorf("100-continue: the client sent %d bytes of a refused body", n)
	}
	if resp, data := post("/v1/ssh_keys", strings.NewReader(`{"name":"k"}`), -1); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a small body after the refusals: %d %s", resp.StatusCode, data)
	}
	seed := bytes.Repeat([]byte(" "), wire.MaxSeedBody+1)
	if resp, data := post("/_fakecloud/seed", bytes.NewReader(seed), int64(len(seed))); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("seed over %d bytes: %d %s", wire.MaxSeedBody, resp.StatusCode, data)
	}
	events := bytes.Repeat([]byte(" "), wire.MaxBody+1)
	if resp, data := post("/_fakecloud/events", bytes.NewReader(events), -1); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("event over %d bytes: %d %s", wire.MaxBody, resp.StatusCode, data)
	}
}
