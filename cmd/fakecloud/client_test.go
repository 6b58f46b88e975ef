package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// cli runs a client subcommand against a fakecloud and returns its output.
func cli(t *testing.T, url string, args ...string) (string, error) {
	t.Helper()
	var out, errOut strings.Builder
	err := dispatch(t.Context(), args, envOf(map[string]string{"FAKECLOUD_URL": url + "/v1"}), &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestClientCommands(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	defer srv.Close()
	must := func(args ...string) string {
		t.Helper()
		out, err := cli(t, srv.URL, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return out
	}
	must("seed", "../../testdata/worlds/small.yaml")
	must("faults", "add", "{method: GET, path: /servers, status: 503, count: 1}")
	must("faults", "add-action", `{"command": "add_target", "error_code": "server_error"}`)
	if out := must("faults"); !strings.Contains(out, `"status": 503`) || !strings.Contains(out, `"command": "add_target"`) {
		t.Errorf("faults list:\n%s", out)
	}
	rules, actions := fc.Faults()
	if len(rules) != 1 || len(actions) != 1 {
		t.Fatalf("rules %v actions %v", rules, actions)
	}
	if out, err := cli(t, srv.URL, "faults", "add", "{path: servers, status: 200}"); err == nil || !strings.Contains(err.Error(), "path") || !strings.Contains(err.Error(), "status") {
		t.Errorf("a bad rule: %v %s", err, out)
	}
	must("faults", "rm", "1")
	must("faults", "clear")
	if rules, actions := fc.Faults(); len(rules)+len(actions) != 0 {
		t.Errorf("faults after clear: %v %v", rules, actions)
	}

	must("event", "{type: power_off_server, server_name: worker-1}")
	state := must("state")
	if !strings.Contains(state, `"name": "worker-1"`) {
		t.Fatalf("state:\n%.300s", state)
	}
	snapshot := filepath.Join(t.TempDir(), "snap.json")
	if err := os.WriteFile(snapshot, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	must("reset")
	if data, _ := fc.Export(); strings.Contains(string(data), "worker-1") {
		t.Error("world not empty after reset")
	}
	must("state", "import", snapshot)
	must("reset", "seed")
	must("scenario", "../../testdata/scenarios/lb-locked.yaml")

	if out := must("rate-limit", "--remaining", "100", "--refill", "2"); !strings.Contains(out, `"remaining": 100`) {
		t.Errorf("rate-limit:\n%s", out)
	}
	fc.ResetCounters()
	fc.ClearJournal()
	send := httptest.NewRequest("GET", "/v1/servers", nil)
	send.Header.Set("Authorization", "Bearer "+fakecloud.DefaultToken)
	fc.ServeHTTP(httptest.NewRecorder(), send)
	if out := must("counters"); !strings.Contains(out, "1      GET     /servers  200") {
		t.Errorf("counters:\n%s", out)
	}
	if out := must("journal", "--method", "GET"); !strings.Contains(out, "/servers") || !strings.Contains(out, " 200 ") {
		t.Errorf("journal:\n%s", out)
	}
	if out := must("--url", srv.URL, "counters"); !strings.Contains(out, "COUNT") {
		t.Errorf("--url before the subcommand:\n%s", out)
	}
	if _, err := cli(t, srv.URL, "explode"); err == nil {
		t.Error("an unknown command was accepted")
	}
}

func TestClientJournalFollowStopsWithContext(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 700*time.Millisecond)
	defer cancel()
	var out strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- dispatch(ctx, []string{"journal", "--follow"}, envOf(map[string]string{"FAKECLOUD_URL": srv.URL}), &out, &out)
	}()
	req := httptest.NewRequest("GET", "/v1/locations", nil)
	req.Header.Set("Authorization", "Bearer "+fakecloud.DefaultToken)
	fc.ServeHTTP(httptest.NewRecorder(), req)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("journal --follow did not stop with its context")
	}
	if !strings.Contains(out.String(), "/locations") {
		t.Errorf("followed journal:\n%s", out.String())
	}
}

// serveFake serves an empty fakecloud in process and returns its address.
func serveFake(t *testing.T) (*fakecloud.Server, string) {
	t.Helper()
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	return fc, srv.URL
}

// adminAnswer is fakecloud's answer to GET path under /_fakecloud, as sent.
func adminAnswer(t *testing.T, url, path string) []byte {
	t.Helper()
	resp, err := http.Get(url + "/_fakecloud" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return body
}

// indented is an answer as the client commands print it: indented, with a
// blank line after.
func indented(t *testing.T, answer []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, answer, "", "  "); err != nil {
		t.Fatal(err)
	}
	return out.String() + "\n"
}

func TestClientFlagsAnywhere(t *testing.T) {
	fc, url := serveFake(t)
	env := envOf(map[string]string{"FAKECLOUD_URL": "http://127.0.0.1:1"})
	for _, args := range [][]string{
		{"--url", url, "faults", "add", "{path: /a, status: 500}"},
		{"faults", "--url", url, "add", "{path: /b, status: 500}"},
		{"faults", "add", "--url=" + url, "{path: /c, status: 500}"},
		{"faults", "add", "{path: /d, status: 500}", "--url", url},
	} {
		if err := dispatch(t.Context(), args, env, io.Discard, io.Discard); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
	if rules, _ := fc.Faults(); len(rules) != 4 {
		t.Errorf("rules: %+v, want 4", rules)
	}
}
