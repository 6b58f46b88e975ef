package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
	"github.com/hcloudlab/hcloud-ccm/parity"
)

// testdata is the repository's snapshots.
var testdata = filepath.Join("..", "..", "testdata", "parity")

// liveStandIn is a fakecloud in the live API's place (actions finish at
// once, the wall clock): the live code path, with nothing billed.
func liveStandIn(t *testing.T) (*fakecloud.Server, string) {
	t.Helper()
	fc := fakecloud.New(fakecloud.Options{})
	return fc, fakecloudtest.Serve(t, fc) + "/v1"
}

type outcome struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, endpoint, token, stdin string, args ...string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, env{
		getenv: func(k string) string {
			if k == "HCLOUD_TOKEN" {
				return token
			}
			return ""
		},
		stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, liveEndpoint: endpoint,
	})
	return outcome{code, stdout.String(), stderr.String()}
}

// TestRefusals: what must not reach the live API refuses at once, with a
// message and exit 2, before any request.
func TestRefusals(t *testing.T) {
	tests := []struct {
		name, token string
		args        []string
		wantStderr  string
	}{
		{"-live without HCLOUD_TOKEN", "", []string{"-live"}, "-live needs HCLOUD_TOKEN"},
		{"-live -record without HCLOUD_TOKEN", "", []string{"-live", "-record", "-yes"}, "-live needs HCLOUD_TOKEN"},
		{"-sweep without -live", fakecloud.DefaultToken, []string{"-sweep"}, "give -live too"},
		{"-sweep -live without HCLOUD_TOKEN", "", []string{"-sweep", "-live"}, "-live needs HCLOUD_TOKEN"},
		{"a -run that selects nothing", fakecloud.DefaultToken, []string{"-live", "-run", "nothing"}, "selects no scenario"},
		{"an argument", "", []string{"live"}, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc, endpoint := liveStandIn(t)
			got := runCmd(t, endpoint, tt.token, "yes\n", tt.args...)
			if got.code != exitUsage || !strings.Contains(got.stderr, tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", got.code, got.stderr, exitUsage, tt.wantStderr)
			}
			if n := fc.Requests("", ""); n != 0 {
				t.Errorf("%d requests reached the API", n)
			}
		})
	}
}

// TestLivePlanNotConfirmed: -live prints what it will create and its
// cost (priced from the catalogue, here fakecloud's), asks, and creates
// nothing without a yes.
func TestLivePlanNotConfirmed(t *testing.T) {
	fc, endpoint := liveStandIn(t)
	got := runCmd(t, endpoint, fakecloud.DefaultToken, "no\n", "-live", "-location", "nbg1")
	if got.code != exitFailed {
		t.Errorf("exit %d, want %d", got.code, exitFailed)
	}
	for _, want := range []string{
		"in nbg1:", "server-life", "1 server (cx23, changed to cx33)", "1 load balancer (lb11)",
		"parity.hcloudlab.dev/kit=1", "Estimate:", "Type yes to go on:", "Not confirmed: nothing was created.",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, got.stdout)
		}
	}
	if n := fc.Requests("POST", ""); n != 0 {
		t.Errorf("%d POST requests without a confirmation", n)
	}
}

// TestLiveRecord runs the live code path against a stand-in and records:
// the snapshot says live, with the date; nothing is left.
func TestLiveRecord(t *testing.T) {
	fc, endpoint := liveStandIn(t)
	dir := t.TempDir()
	got := runCmd(t, endpoint, fakecloud.DefaultToken, "", "-live", "-yes", "-record", "-run", "^routes$", "-dir", dir)
	if got.code != exitOK || !strings.Contains(got.stdout, "ok   routes: wrote") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
	snap, err := parity.ReadSnapshot(dir, "routes")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Source != parity.SourceLive || !strings.HasPrefix(snap.Recorded, "20") || len(snap.Verdicts) != 2 {
		t.Errorf("source %q, recorded %q, %d verdicts; want live, a date and 2 verdicts", snap.Source, snap.Recorded, len(snap.Verdicts))
	}
	c := fakecloudtest.Client(strings.TrimSuffix(endpoint, "/v1"), fakecloud.DefaultToken)
	if left, err := c.Network.All(context.Background()); err != nil || len(left) != 0 {
		t.Errorf("networks left: %d (%v)", len(left), err)
	}
	if n := fc.Requests("POST", "/networks"); n == 0 {
		t.Error("the run created no network")
	}
}

// TestLiveSweep removes what an earlier run left, and only that.
func TestLiveSweep(t *testing.T) {
	_, endpoint := liveStandIn(t)
	ctx := t.Context()
	c := fakecloudtest.Client(strings.TrimSuffix(endpoint, "/v1"), fakecloud.DefaultToken)
	_, ipRange, _ := net.ParseCIDR("10.0.0.0/16")
	for name, labels := range map[string]map[string]string{
		"parity-rold-life": {parity.KitLabel: "1", parity.RunLabel: "rold"},
		"team":             {"team": "web"},
	} {
		if _, _, err := c.Network.Create(ctx, hcloud.NetworkCreateOpts{Name: name, IPRange: ipRange, Labels: labels}); err != nil {
			t.Fatal(err)
		}
	}
	got := runCmd(t, endpoint, fakecloud.DefaultToken, "", "-live", "-sweep")
	if got.code != exitOK || !strings.Contains(got.stdout, "removed network parity-rold-life") || !strings.Contains(got.stdout, "1 removed") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
	left, err := c.Network.All(ctx)
	if err != nil || len(left) != 1 || left[0].Name != "team" {
		t.Errorf("networks left %v (%v), want team's only", left, err)
	}
}

// TestFakecloudMode is make parity's default: fakecloud against the
// snapshots; a snapshot fakecloud does not reproduce is a difference,
// printed, and exit 1.
func TestFakecloudMode(t *testing.T) {
	got := runCmd(t, "", "", "", "-run", "^routes$", "-dir", testdata)
	if got.code != exitOK || !strings.Contains(got.stdout, "ok   routes: reproduces") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}

	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(testdata, "routes.json"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"verdict": "does not hold"`, `"verdict": "holds"`, 1)
	if changed == string(data) {
		t.Fatal("routes.json has no verdict to change")
	}
	if err := os.WriteFile(filepath.Join(dir, "routes.json"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runCmd(t, "", "", "", "-run", "^routes$", "-dir", dir)
	if got.code != exitFailed || !strings.Contains(got.stdout, "DIFF routes") || !strings.Contains(got.stdout, "does not hold") {
		t.Errorf("exit %d, stdout:\n%s", got.code, got.stdout)
	}
}

func TestList(t *testing.T) {
	got := runCmd(t, "", "", "", "-list")
	if got.code != exitOK || got.stdout != strings.Join(parity.ScenarioNames(nil), "\n")+"\n" || !strings.Contains(got.stdout, "server-life") {
		t.Errorf("exit %d, stdout %q", got.code, got.stdout)
	}
}
