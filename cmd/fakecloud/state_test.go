package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestMain lets a test start this binary's main as a child process.
func TestMain(m *testing.M) {
	if args := os.Getenv("FAKECLOUD_TEST_MAIN_ARGS"); args != "" {
		os.Args = append([]string{"fakecloud"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var urlRe = regexp.MustCompile(`url=(http://\S+)`)

// startChild runs fakecloud as a child process and returns its API URL.
func startChild(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FAKECLOUD_TEST_MAIN_ARGS="+strings.Join(args, " "))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("fakecloud exited before serving")
			}
			if m := urlRe.FindStringSubmatch(line); m != nil {
				go func() {
					for range lines {
					}
				}()
				return cmd, m[1]
			}
		case <-deadline:
			t.Fatal("fakecloud did not start within 10 s")
		}
	}
}

func createNetwork(t *testing.T, url, name string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/networks", strings.NewReader(fmt.Sprintf(`{"name":%q,"ip_range":"10.0.0.0/16"}`, name)))
	req.Header.Set("Authorization", "Bearer "+fakecloud.DefaultToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("create network %s: %d", name, resp.StatusCode)
	}
}

// TestStateFileSurvivesKill9: fakecloud is killed with SIGKILL while it
// writes its state file, five times; every start finds a valid file that
// holds everything acknowledged longer than one write interval before.
func TestStateFileSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--listen", "127.0.0.1:0", "--state-file", path, "--state-interval", "5ms", "--rate-limit", "0"}
	durable := 0 // networks that must have been written
	for round := range 5 {
		cmd, url := startChild(t, args...)
		fc := fakecloud.New(fakecloud.Options{})
		found, err := fc.LoadStateFile(path)
		if round > 0 && (!found || err != nil) {
			t.Fatalf("round %d: state file found=%v err=%v", round, found, err)
		}
		var st struct{ Networks []struct{ Name string } }
		data, _ := fc.Export()
		if err := jsonUnmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Networks) < durable {
			t.Fatalf("round %d: %d networks in the state file, want at least %d", round, len(st.Networks), durable)
		}
		for i := range 10 {
			createNetwork(t, url, fmt.Sprintf("r%d-n%d", round, i))
		}
		durable = len(st.Networks) + 10
		// Acknowledged changes reach the file within a few write intervals;
		// a loaded machine may take longer, so wait for it, bounded.
		deadline := time.Now().Add(10 * time.Second)
		for networksInFile(t, path) < durable {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the state file did not get the 10 new networks within 10s", round)
			}
			time.Sleep(5 * time.Millisecond)
		}
		// Keep writing, and kill mid-way through.
		stop := time.After(time.Duration(3+round*7) * time.Millisecond)
	loop:
		for i := 0; ; i++ {
			select {
			case <-stop:
				break loop
			default:
				createNetwork(t, url, fmt.Sprintf("r%d-extra%d", round, i))
			}
		}
		if err := cmd.Process.Signal(os.Kill); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
}

// TestCorruptStateFileIsRefused: fakecloud will not start on a corrupt
// state file, and leaves it untouched.
func TestCorruptStateFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	corrupt := []byte(`{"version": 1, "servers": [{"id": "x"}]`)
	if err := os.WriteFile(path, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	err := run(ctx, []string{"--listen", "127.0.0.1:0", "--state-file", path}, envOf(nil), &strings.Builder{}, nil)
	if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v, want a corrupt state file error naming the file", err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(corrupt) {
		t.Error("the corrupt state file was changed")
	}
}

// TestStateFileRestoresOnRestart: a graceful stop writes the world, and the
// next start restores it instead of seeding.
func TestStateFileRestoresOnRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--listen", "127.0.0.1:0", "--state-file", path, "--seed", "../../testdata/worlds/small.yaml"}
	for round := range 2 {
		ctx, cancel := context.WithCancel(t.Context())
		ready := make(chan string, 1)
		done := make(chan error, 1)
		go func() { done <- run(ctx, args, envOf(nil), &strings.Builder{}, ready) }()
		addr := <-ready
		if round == 0 {
			createNetwork(t, "http://"+addr+"/v1", "added")
		}
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/networks?name=added", nil)
		req.Header.Set("Authorization", "Bearer "+fakecloud.DefaultToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Networks []any }
		_ = jsonDecode(resp, &body)
		if len(body.Networks) != 1 {
			t.Fatalf("round %d: network 'added' missing", round)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("run did not stop")
		}
	}
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

func jsonDecode(resp *http.Response, v any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// networksInFile counts the networks of a state file, 0 if it cannot be read.
func networksInFile(t *testing.T, path string) int {
	fc := fakecloud.New(fakecloud.Options{})
	if found, err := fc.LoadStateFile(path); !found || err != nil {
		return 0
	}
	var st struct{ Networks []struct{ Name string } }
	data, _ := fc.Export()
	if err := jsonUnmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return len(st.Networks)
}

// TestSecondProcessOnStateFileRefused: while one fakecloud holds a state
// file, a second start on it fails at once naming the holder, and writes
// nothing; a start in a directory that does not exist fails too.
func TestSecondProcessOnStateFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	_, url := startChild(t, "--listen", "127.0.0.1:0", "--state-file", path, "--state-interval", "5ms")
	createNetwork(t, url, "first")
	for deadline := time.Now().Add(10 * time.Second); networksInFile(t, path) < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first fakecloud did not write its state file within 10 s")
		}
	}
	before, _ := os.ReadFile(path)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	err := run(ctx, []string{"--listen", "127.0.0.1:0", "--state-file", path}, envOf(nil), &strings.Builder{}, nil)
	if err == nil || !strings.Contains(err.Error(), "in use by another fakecloud") || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("a second start: %v, want refused naming the holder", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the refused start changed the state file")
	}
	err = run(ctx, []string{"--listen", "127.0.0.1:0", "--state-file", filepath.Join(t.TempDir(), "nope", "s.json")}, envOf(nil), &strings.Builder{}, nil)
	if err == nil || !strings.Contains(err.Error(), "does not take new files") {
		t.Errorf("a state file in a missing directory: %v, want refused at start", err)
	}
}
