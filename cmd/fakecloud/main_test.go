package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// envOf is a getenv reading only the given map, so the tests never see the
// machine's own FAKECLOUD_* variables.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var defaults = config{
	listen: "127.0.0.1:8080", actionDuration: 300 * time.Millisecond, rateLimit: 3600,
	logLevel: slog.LevelInfo, logFormat: "text", stateInterval: 100 * time.Millisecond,
	realism:   fakecloud.Realism{Mode: fakecloud.RealismOptimistic},
	robotUser: fakecloud.DefaultRobotUser, robotPassword: fakecloud.DefaultRobotPassword, robotRateLimit: 1, robotInterval: time.Hour,
}

func TestParseConfig(t *testing.T) {
	with := func(edit func(c *config)) config {
		c := defaults
		edit(&c)
		return c
	}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want config
	}{
		{name: "defaults", want: defaults},
		{
			name: "flags",
			args: []string{
				"--listen", "127.0.0.1:0", "--token", "a", "--token", "b", "--read-only-token", "r",
				"--seed", "w.yaml", "--action-duration", "2s", "--action-polls", "3", "--rate-limit", "0",
				"--rate-limit-refill", "2.5", "--id-seed", "42", "--log-level", "debug", "--log-format", "json",
				"--state-file", "s.json", "--state-interval", "1s", "--admin-token", "adm", "--lb-ipv4-range", "127.0.100.0/24",
				"--lb-target-address", "10.0.0.3=127.0.1.3", "--realism", "pessimistic", "--action-retention", "5m",
				"--robot-user", "#ws+ops", "--robot-password", "pw", "--robot-rate-limit", "0", "--robot-rate-limit-interval", "1m",
			},
			want: config{
				listen: "127.0.0.1:0", tokens: []string{"a", "b"}, readOnly: []string{"r"}, seed: "w.yaml",
				actionDuration: 2 * time.Second, actionPolls: 3, rateLimit: 0, rateRefill: 2.5, idSeed: 42,
				logLevel: slog.LevelDebug, logFormat: "json", stateFile: "s.json", stateInterval: time.Second, adminToken: "adm",
				lbRange:      netip.MustParsePrefix("127.0.100.0/24"),
				lbTargetArgs: []string{"10.0.0.3=127.0.1.3"},
				lbTargets:    targetMap{netip.MustParseAddr("10.0.0.3"): netip.MustParseAddr("127.0.1.3")},
				realism:      fakecloud.Realism{Mode: fakecloud.RealismPessimistic, ActionRetention: fakecloud.Duration(5 * time.Minute)},
				robotUser:    "#ws+ops", robotPassword: "pw", robotRateLimit: 0, robotInterval: time.Minute,
			},
		},
		{
			name: "projects",
			args: []string{"--project", "ci-1=t1", "--project", "ci-2=t2", "--project", "ci-1=t3"},
			want: with(func(c *config) {
				c.projectArgs = []string{"ci-1=t1", "ci-2=t2", "ci-1=t3"}
				c.projects = map[string][]string{"ci-1": {"t1", "t3"}, "ci-2": {"t2"}}
			}),
		},
		{
			name: "projects from the environment",
			env:  map[string]string{"FAKECLOUD_PROJECTS": "a=x, b=y"},
			want: with(func(c *config) {
				c.projectArgs = []string{"a=x", "b=y"}
				c.projects = map[string][]string{"a": {"x"}, "b": {"y"}}
			}),
		},
		{
			name: "single-dash flags",
			args: []string{"-listen=127.0.0.1:9", "-action-duration=0s"},
			want: with(func(c *config) { c.listen, c.actionDuration = "127.0.0.1:9", 0 }),
		},
		{
			name: "environment fallbacks",
			env: map[string]string{
				"FAKECLOUD_LISTEN": "127.0.0.1:7", "FAKECLOUD_TOKENS": " x, y,,z ", "FAKECLOUD_READ_ONLY_TOKENS": "ro",
				"FAKECLOUD_SEED": "e.yaml", "FAKECLOUD_ACTION_DURATION": "1m", "FAKECLOUD_ACTION_POLLS": "2",
				"FAKECLOUD_RATE_LIMIT": "100", "FAKECLOUD_RATE_LIMIT_REFILL": "0.5", "FAKECLOUD_ID_SEED": "7",
				"FAKECLOUD_LOG_LEVEL": "warn", "FAKECLOUD_LOG_FORMAT": "json",
				"FAKECLOUD_STATE_FILE": "e.json", "FAKECLOUD_STATE_INTERVAL": "2s", "FAKECLOUD_ADMIN_TOKEN": "a",
				"FAKECLOUD_LB_IPV4_RANGE": "127.0.200.0/28", "FAKECLOUD_REALISM": "pessimistic",
				"FAKECLOUD_ROBOT_USER": "#ws+env", "FAKECLOUD_ROBOT_PASSWORD": "epw", "FAKECLOUD_ROBOT_RATE_LIMIT": "0.5",
				"FAKECLOUD_ROBOT_RATE_LIMIT_INTERVAL": "10m",
			},
			want: config{
				listen: "127.0.0.1:7", tokens: []string{"x", "y", "z"}, readOnly: []string{"ro"}, seed: "e.yaml",
				actionDuration: time.Minute, actionPolls: 2, rateLimit: 100, rateRefill: 0.5, idSeed: 7,
				logLevel: slog.LevelWarn, logFormat: "json", stateFile: "e.json", stateInterval: 2 * time.Second, adminToken: "a",
				lbRange:   netip.MustParsePrefix("127.0.200.0/28"),
				realism:   fakecloud.Realism{Mode: fakecloud.RealismPessimistic, ActionRetention: fakecloud.Duration(fakecloud.DefaultActionRetention)},
				robotUser: "#ws+env", robotPassword: "epw", robotRateLimit: 0.5, robotInterval: 10 * time.Minute,
			},
		},
		{
			name: "flags win over the environment",
			args: []string{"--listen", "127.0.0.1:1", "--token", "flag", "--log-level", "error", "--action-polls", "5"},
			env: map[string]string{
				"FAKECLOUD_LISTEN": "127.0.0.1:2", "FAKECLOUD_TOKENS": "env", "FAKECLOUD_LOG_LEVEL": "debug",
				"FAKECLOUD_ACTION_POLLS": "nonsense",
			},
			want: with(func(c *config) {
				c.listen, c.tokens, c.logLevel, c.actionPolls = "127.0.0.1:1", []string{"flag"}, slog.LevelError, 5
			}),
		},
		{
			name: "empty environment values are unset",
			env:  map[string]string{"FAKECLOUD_LISTEN": "", "FAKECLOUD_RATE_LIMIT": "", "FAKECLOUD_TOKENS": ""},
			want: defaults,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			got, err := parseConfig(tt.args, envOf(tt.env), &out)
			if err != nil {
				t.Fatalf("parseConfig: %v\noutput: %s", err, out.String())
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(config{}), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
				cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigInvalid(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string // each must appear in the error
	}{
		{name: "action duration", args: []string{"--action-duration", "soon"}, want: []string{"--action-duration", `"soon"`}},
		{name: "negative action duration", args: []string{"--action-duration", "-1s"}, want: []string{"--action-duration", `"-1s"`}},
		{name: "action polls", args: []string{"--action-polls", "-1"}, want: []string{"--action-polls", `"-1"`}},
		{name: "action polls not a number", args: []string{"--action-polls", "many"}, want: []string{"--action-polls", `"many"`}},
		{name: "rate limit", args: []string{"--rate-limit", "-5"}, want: []string{"--rate-limit", `"-5"`}},
		{name: "robot rate limit", args: []string{"--robot-rate-limit", "-1"}, want: []string{"--robot-rate-limit", `"-1"`}},
		{name: "robot rate limit interval", args: []string{"--robot-rate-limit-interval", "0s"}, want: []string{"--robot-rate-limit-interval", `"0s"`}},
		{name: "robot login", args: []string{"--robot-password", ""}, want: []string{"--robot-user, --robot-password"}},
		{name: "rate limit refill zero", args: []string{"--rate-limit-refill", "0"}, want: []string{"--rate-limit-refill", `"0"`}},
		{name: "rate limit refill text", args: []string{"--rate-limit-refill", "fast"}, want: []string{"--rate-limit-refill"}},
		{name: "rate limit refill NaN", args: []string{"--rate-limit-refill", "NaN"}, want: []string{"--rate-limit-refill", `"NaN"`, "up to 1e+06"}},
		{name: "rate limit refill Inf", args: []string{"--rate-limit-refill", "+Inf"}, want: []string{"--rate-limit-refill", `"+Inf"`}},
		{name: "rate limit refill huge", args: []string{"--rate-limit-refill", "1e300"}, want: []string{"--rate-limit-refill", `"1e300"`}},
		{name: "robot rate limit NaN", args: []string{"--robot-rate-limit", "nan"}, want: []string{"--robot-rate-limit", `"nan"`, "up to 1e+06"}},
		{name: "robot rate limit huge", args: []string{"--robot-rate-limit", "1e12"}, want: []string{"--robot-rate-limit", `"1e12"`}},
		{name: "robot user with a colon", args: []string{"--robot-user", "ops:1", "--robot-password", "pw"}, want: []string{"--robot-user", "colon"}},
		{name: "robot password with a newline", args: []string{"--robot-user", "ops", "--robot-password", "p\nw"}, want: []string{"--robot-password", "control characters"}},
		{name: "id seed", args: []string{"--id-seed", "-3"}, want: []string{"--id-seed", `"-3"`}},
		{name: "log level", args: []string{"--log-level", "loud"}, want: []string{"--log-level", `"loud"`}},
		{name: "log format", args: []string{"--log-format", "xml"}, want: []string{"--log-format", `"xml"`}},
		{name: "realism", args: []string{"--realism", "gloomy"}, want: []string{"--realism", `"gloomy"`, "pessimistic"}},
		{name: "action retention", args: []string{"--realism", "pessimistic", "--action-retention", "-1m"}, want: []string{"--action-retention", `"-1m"`}},
		{name: "lb range text", args: []string{"--lb-ipv4-range", "local"}, want: []string{"--lb-ipv4-range", `"local"`}},
		{name: "lb range ipv6", args: []string{"--lb-ipv4-range", "fd00::/64"}, want: []string{"--lb-ipv4-range", `"fd00::/64"`}},
		{name: "lb range too small", args: []string{"--lb-ipv4-range", "127.0.100.1/32"}, want: []string{"--lb-ipv4-range"}},
		{name: "lb target address", args: []string{"--lb-ipv4-range", "127.0.100.0/24", "--lb-target-address", "10.0.0.3"}, want: []string{"--lb-target-address", `"10.0.0.3"`, "FROM=TO"}},
		{name: "lb target address without a range", args: []string{"--lb-target-address", "10.0.0.3=127.0.1.3"}, want: []string{"--lb-target-address needs --lb-ipv4-range"}},
		{name: "env action polls", env: map[string]string{"FAKECLOUD_ACTION_POLLS": "abc"}, want: []string{"--action-polls", `"abc"`}},
		{name: "env rate limit", env: map[string]string{"FAKECLOUD_RATE_LIMIT": "lots"}, want: []string{"--rate-limit", `"lots"`}},
		{name: "env action duration", env: map[string]string{"FAKECLOUD_ACTION_DURATION": "1 fortnight"}, want: []string{"--action-duration"}},
		{name: "env log format", env: map[string]string{"FAKECLOUD_LOG_FORMAT": "yaml"}, want: []string{"--log-format", `"yaml"`}},
		{name: "unknown flag", args: []string{"--colour", "red"}, want: []string{"colour"}},
		{name: "project without a token", args: []string{"--project", "ci"}, want: []string{"--project", `"ci"`, "NAME=TOKEN"}},
		{name: "project token of two projects", args: []string{"--project", "a=t", "--project", "b=t"}, want: []string{"--project", "belongs to one project"}},
		{name: "project named default", args: []string{"--project", "default=t"}, want: []string{"--project", `"default"`}},
		{name: "positional argument", args: []string{"serve"}, want: []string{`"serve"`}},
		{
			name: "several bad values at once",
			args: []string{"--log-format", "xml", "--log-level", "loud", "--id-seed", "x", "--action-polls", "-2"},
			env:  map[string]string{"FAKECLOUD_RATE_LIMIT": "-1"},
			want: []string{"--log-format", "--log-level", "--id-seed", "--action-polls", "--rate-limit"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(tt.args, envOf(tt.env), io.Discard)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}

func TestParseConfigHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := parseConfig([]string{"-h"}, envOf(nil), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
	for _, name := range []string{"-listen", "-token", "-seed", "FAKECLOUD_LISTEN", "FAKECLOUD_TOKENS"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("usage lacks %s:\n%s", name, out.String())
		}
	}
	// run treats help as success.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := run(ctx, []string{"-h"}, envOf(nil), io.Discard, nil); err != nil {
		t.Errorf("run -h: %v", err)
	}
}

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startRun runs run in a goroutine and returns its ready and result
// channels and the context's cancel.
func startRun(t *testing.T, args []string, env map[string]string, stderr io.Writer) (<-chan string, <-chan error, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- run(ctx, args, envOf(env), stderr, ready)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(10 * time.Second):
			t.Error("run did not return within 10s of cancel")
		}
	})
	return ready, done, cancel
}

func TestRunServesSeededWorld(t *testing.T) {
	var logs lockedBuffer
	ready, done, cancel := startRun(t, []string{"--listen", "127.0.0.1:0", "--seed", "../../testdata/worlds/small.yaml"}, nil, &logs)

	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("run returned before ready: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("not ready within 30s\n%s", logs.String())
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		t.Fatalf("ready address %q is not loopback: %v", addr, err)
	}

	get := func(token string) (*http.Response, []byte) {
		t.Helper()
		ctx, cancelReq := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancelReq()
		req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/v1/servers", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	resp, body := get(fakecloud.DefaultToken)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/servers: %d %s", resp.StatusCode, body)
	}
	var list struct {
		Servers []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list.Servers {
		names = append(names, s.Name+"/"+s.Status)
	}
	if diff := cmp.Diff([]string{"control-plane-1/running", "worker-1/running", "worker-2/off"}, names); diff != "" {
		t.Errorf("seeded servers (-want +got):\n%s", diff)
	}
	if resp, body := get("wrong-token"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %d %s, want 401", resp.StatusCode, body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return within 10s of cancel")
	}
	for _, want := range []string{"seeded world", "servers=3", "http://" + addr + "/v1", "shutting down"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

func TestRunSeedErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string // "" means the file does not exist
		want    string // also in the error, besides the path
	}{
		{"missing file", "", "no such file"},
		{"not YAML", "servers: [\n  - {name: a\n", "parse"},
		{"unknown field", "servers:\n  - name: a\n    colour: red\n", "colour"},
		{"unknown server type", "servers:\n  - name: a\n    server_type: cx999\n", "cx999"},
		{"unknown network", "servers:\n  - name: a\n    networks:\n      - network: nowhere\n", "nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			if tt.content != "" {
				if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			ready, done, _ := startRun(t, []string{"--listen", "127.0.0.1:0", "--seed", path}, nil, io.Discard)
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("run returned nil for a bad seed file")
				}
				if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %q does not name %s and %q", err, path, tt.want)
				}
			case addr := <-ready:
				t.Fatalf("run served on %s despite a bad seed file", addr)
			case <-time.After(30 * time.Second):
				t.Fatal("run did not return within 30s")
			}
		})
	}
}

func TestRunListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ready, done, _ := startRun(t, []string{"--listen", ln.Addr().String()}, nil, io.Discard)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "listen") {
			t.Errorf("run on a taken port: %v, want a listen error", err)
		}
	case addr := <-ready:
		t.Fatalf("run served on taken address %s", addr)
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return within 30s")
	}
}

func TestRunConfigErrorStopsEarly(t *testing.T) {
	ready, done, _ := startRun(t, []string{"--listen", "127.0.0.1:0", "--log-format", "xml"}, nil, io.Discard)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "--log-format") {
			t.Errorf("run: %v, want an error naming --log-format", err)
		}
	case addr := <-ready:
		t.Fatalf("run served on %s with an invalid config", addr)
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return within 30s")
	}
}
