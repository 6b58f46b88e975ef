package fakecloud

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// floodRequest is the i-th of a flood no token admits: made-up routes,
// actions and methods, bad tokens, and User-Agent and X-Correlation-Id
// headers of 8 KB, each read into memory of its own as from the wire.
func floodRequest(i int) *http.Request {
	var r *http.Request
	switch i % 5 {
	case 0:
		r = httptest.NewRequest("GET", fmt.Sprintf("/v1/no-such-thing-%d", i), nil)
	case 1:
		r = httptest.NewRequest("POST", fmt.Sprintf("/v1/servers/%d/actions/made-up-%d", 100000+i%7, i), nil)
	case 2:
		r = httptest.NewRequest(fmt.Sprintf("BREW%d", i), "/v1/servers", nil)
	case 3:
		r = httptest.NewRequest("GET", fmt.Sprintf("/v1/load_balancers/%d/actions/made-up-%d", i, i), nil)
	default:
		r = httptest.NewRequest("POST", fmt.Sprintf("/v1/networks/%d/actions/x%d", i, i), strings.NewReader("{}"))
	}
	r.RemoteAddr = "192.0.2.7:4000"
	if i%3 != 0 {
		r.Header.Set("Authorization", fmt.Sprintf("Bearer bad-token-%d", i))
	}
	if i%2 == 0 {
		r.Header.Set("User-Agent", fmt.Sprintf("%08d", i)+strings.Repeat("u", 8<<10))
	}
	if i%4 == 1 {
		r.Header.Set("X-Correlation-Id", fmt.Sprintf("%08d", i)+strings.Repeat("c", 8<<10))
	}
	return r
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHostileFloodBounded: 20,000 requests no token admits (made-up
// routes, actions and methods, bad tokens, 8 KB headers) leave fakecloud's
// heap within 24 MB of where it was after the first 1,000, /metrics under
// 64 KB, the log at about 20 lines a second, every one answered 401, 404
// or 405, and every journal entry small, its long headers cut and marked.
func TestHostileFloodBounded(t *testing.T) {
	lines := &countingHandler{}
	fc := New(Options{Logger: slog.New(lines)})
	began := time.Now()
	send := func(i int) {
		rec := httptest.NewRecorder()
		fc.ServeHTTP(rec, floodRequest(i))
		if rec.Code != http.StatusUnauthorized && rec.Code != http.StatusNotFound && rec.Code != http.StatusMethodNotAllowed {
			t.Fatalf("request %d: %d %.200s", i, rec.Code, rec.Body)
		}
	}
	for i := range 1000 {
		send(i)
	}
	before := heapInUse()
	for i := 1000; i < 20000; i++ {
		send(i)
	}
	after := heapInUse()
	elapsed := time.Since(began)
	rec := answer(t, fc, "GET", "/metrics", nil)
	t.Logf("heap %.1f MB before the last 19,000, %.1f MB after; /metrics %d bytes, %d counters",
		float64(before)/(1<<20), float64(after)/(1<<20), rec.Body.Len(), len(fc.Counters()))
	if growth := int64(after) - int64(before); growth > 24<<20 {
		t.Errorf("the heap grew by %.1f MB over 19,000 rejected requests, want at most 24 MB", float64(growth)/(1<<20))
	}
	// One client: at most 20 lines and a count of the rest per second.
	if most := int64(21 * (int(elapsed/rejectLogWindow) + 2)); lines.n.Load() > most {
		t.Errorf("%d log lines for 20,000 rejected requests of one client in %v, want at most %d", lines.n.Load(), elapsed, most)
	}
	if rec.Body.Len() > 64<<10 {
		t.Errorf("/metrics is %d bytes after the flood, want at most 64 KB", rec.Body.Len())
	}
	for _, e := range fc.Journal(JournalFilter{}) {
		if size := len(e.Method) + len(e.Path) + len(e.Template) + len(e.UserAgent) + len(e.CorrelationID); size > 2<<10 {
			t.Fatalf("journal entry %d keeps %d bytes of strings (truncated %v)", e.Seq, size, e.Truncated)
		}
	}
	ua := fc.Journal(JournalFilter{Limit: 2}) // the last two: 19998 has a long User-Agent
	if e := ua[0]; !strings.HasPrefix(e.UserAgent, "00019998uuu") || !slices.Contains(e.Truncated, "user_agent") {
		t.Errorf("a long User-Agent in the journal: %.40q, truncated %v, want its start, marked truncated", e.UserAgent, e.Truncated)
	}
}

// countingHandler counts log records.
type countingHandler struct{ n atomic.Int64 }

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(context.Context, slog.Record) error {
	h.n.Add(1)
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }
