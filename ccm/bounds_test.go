package ccm

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
)

// TestSecretFilesAreBounded: a *_FILE setting naming an endless or a huge
// file is refused at once, naming the setting, not read until memory
// runs out.
func TestSecretFilesAreBounded(t *testing.T) {
	huge := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(huge, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN_FILE": "/dev/zero",
		"ROBOT_ENABLED": "true", "ROBOT_USER_FILE": "/dev/urandom", "ROBOT_PASSWORD_FILE": huge}), nil)
	for _, want := range []string{`HCLOUD_TOKEN_FILE="/dev/zero": cannot read it: not a regular file`,
		`ROBOT_USER_FILE="/dev/urandom": cannot read it: not a regular file`, `ROBOT_PASSWORD_FILE="` + huge + `": cannot read it: longer than 64 KiB`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v; want it to say %s", err, want)
		}
	}
}

// hostileAPI answers every request as answer does, and counts them.
func hostileAPI(t *testing.T, answer http.HandlerFunc) (Config, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1); answer(w, r) }))
	t.Cleanup(srv.Close)
	return Config{Token: strings.Repeat("t", 64), Endpoint: srv.URL + "/v1", AddressFamily: AddressFamilyIPv4,
		InventoryMaxAge: 5 * time.Minute, LifecycleMaxAge: time.Minute, ListingMaxAge: time.Hour}, &n
}

// TestStartOnAHostileAPI: the first listing against an API whose answer
// never ends, whose pages never end, or that never answers fails naming
// the endpoint, within the bounds of deadlines.go, and the CCM starts
// again later; it is not a crash for want of memory nor a hang.
func TestStartOnAHostileAPI(t *testing.T) {
	pages := func(w http.ResponseWriter, r *http.Request) {
		var page int
		_, _ = fmt.Sscan(r.URL.Query().Get("page"), &page)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"servers":[],"meta":{"pagination":{"page":%d,"per_page":50,"next_page":%d,"previous_page":null,"last_page":null,"total_entries":null}}}`, page, page+1)
	}
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	for name, tc := range map[string]struct {
		answer   http.HandlerFunc
		attempt  time.Duration
		want     string
		requests int64
	}{
		"an answer without end": {cloudtest.Endless, 0, "GET /v1/servers: the answer is longer than 32 MiB", 1},
		// The first page, which tells no total, then the bounded listing.
		"pages without end": {pages, 0, "GET /v1/servers: a listing of more than 200 pages is not read", 201},
		"no answer":         {hang, 200 * time.Millisecond, `list servers: Get "http://`, Retries + 1},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, requests := hostileAPI(t, tc.answer)
			_, err := build(t.Context(), cfg, buildOptions{httpTimeout: tc.attempt, retryBase: time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "first server listing") {
				t.Errorf("start: %v; want a failed first server listing saying %q", err, tc.want)
			}
			if requests.Load() != tc.requests {
				t.Errorf("%d requests sent, want %d", requests.Load(), tc.requests)
			}
		})
	}
}
