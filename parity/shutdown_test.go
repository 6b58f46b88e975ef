package parity

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// ignoresACPI is a server whose OS ignores ACPI: after a shutdown, reads
// of a server show it running until it is powered off.
type ignoresACPI struct {
	mu         sync.Mutex
	shutdowns  int
	ignoring   bool
	poweroffs  int
	rewritten  int
	serverRead *regexp.Regexp
}

func (t *ignoresACPI) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/actions/shutdown"):
		t.shutdowns++
		t.ignoring = true
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/actions/poweroff") && t.ignoring:
		t.poweroffs++
		t.ignoring = false
	}
	ignoring := t.ignoring
	t.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || !ignoring || req.Method != http.MethodGet || !t.serverRead.MatchString(req.URL.Path) {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	changed := bytes.ReplaceAll(body, []byte(`"status":"off"`), []byte(`"status":"running"`))
	t.mu.Lock()
	if !bytes.Equal(changed, body) {
		t.rewritten++
	}
	t.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(changed))
	resp.ContentLength = int64(len(changed))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// TestShutdownIgnored: a server that does not go off after the ACPI
// shutdown gets it again halfway through the wait, then is powered off;
// the scenario goes on, notes it, and still reproduces its snapshot (the
// fallback's requests are not steps).
func TestShutdownIgnored(t *testing.T) {
	acpi := &ignoresACPI{serverRead: regexp.MustCompile(`^/v1/servers/[0-9]+$`)}
	results := Run(t.Context(), Config{
		Open: func() (*Target, error) {
			target, err := OpenFakecloud()
			target.Transport = acpi
			return target, err
		},
		Location: "fsn1", Match: regexp.MustCompile("^server-life$"), Dir: snapshotDir, RunID: "racpi",
	})
	if len(results) != 1 || !results[0].OK() {
		t.Fatalf("the run failed: %+v", results)
	}
	if acpi.shutdowns != 2 || acpi.poweroffs != 1 || acpi.rewritten == 0 {
		t.Errorf("%d shutdowns, %d power offs after them, %d answers showing it running; want 2, 1 and some", acpi.shutdowns, acpi.poweroffs, acpi.rewritten)
	}
	notes := strings.Join(results[0].Snapshot.Notes, "\n")
	for _, want := range []string{"sent it again", "ignored the shutdown for 3m0s: powered off"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
