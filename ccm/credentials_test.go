package ccm

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/record"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// tokenLog records the bearer tokens a proxy in front of fakecloud saw.
type tokenLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *tokenLog) add(t string) { l.mu.Lock(); l.seen = append(l.seen, t); l.mu.Unlock() }

// last is the token of the last request, and how many requests bore tok.
func (l *tokenLog) last(tok string) (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.seen {
		if s == tok {
			n++
		}
	}
	if len(l.seen) == 0 {
		return "", n
	}
	return l.seen[len(l.seen)-1], n
}

// writeFile replaces a credential file as a Secret's update does.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestTokenFileRotates: HCLOUD_TOKEN_FILE is read again. A new token the
// API takes is sent from then on; one it refuses, or one that cannot be
// sent, is not: the old one goes on, once checked, with a Warning event on
// the CCM's Pod and a failing readiness check until the file holds a
// token that works. Nothing is read again because a token changed.
func TestTokenFileRotates(t *testing.T) {
	oldToken, newToken, badToken := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)
	c := newCloud(t, 3, fakecloud.Options{Tokens: []string{oldToken, newToken}})
	log := &tokenLog{}
	target, _ := url.Parse(c.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	file := filepath.Join(t.TempDir(), "token")
	writeFile(t, file, oldToken)
	cfg, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN_FILE": file, "HCLOUD_ENDPOINT": front.URL + "/v1",
		"HCLOUD_METRICS_ADDRESS": "127.0.0.1:0"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := build(t.Context(), cfg, buildOptions{credentialsPeriod: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rec := record.NewFakeRecorder(10)
	cl.rotation.setRecorder(rec)
	cl.SetPod("kube-system", "hcloud-ccm-0")
	call := func() string {
		t.Helper()
		if err := cl.inv.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		last, _ := log.last("")
		return last
	}
	if got := call(); got != oldToken {
		t.Fatalf("sent %q at start", got)
	}

	writeFile(t, file, newToken)
	fakecloudtest.Eventually(t, 5*time.Second, "the new token taken", func() bool { return cl.rotation.creds[0].get()[0] == newToken })
	if got := call(); got != newToken {
		t.Errorf("after the rotation the CCM sends %.8s…, want the new token", got)
	}
	if err := cl.rotation.Check(t.Context()); err != nil {
		t.Errorf("readiness after a good rotation: %v", err)
	}

	writeFile(t, file, badToken)
	fakecloudtest.Eventually(t, 5*time.Second, "the refused token reported", func() bool {
		err := cl.rotation.Check(t.Context())
		return err != nil && strings.Contains(err.Error(), "refused")
	})
	time.Sleep(50 * time.Millisecond) // ten more reads of the file
	if _, checks := log.last(badToken); checks != 1 {
		t.Errorf("the refused token was sent %d times, want once, to check it", checks)
	}
	if got := call(); got != newToken {
		t.Errorf("after a refused token the CCM sends %.8s…, want the previous one", got)
	}
	expectEvent(t, rec, "Warning", eventCredentialsRejected, "HCLOUD_TOKEN_FILE", "previous ones are still sent")
	if s := problemOf(cl.rotation.creds[0]); strings.Contains(s, badToken) || strings.Contains(s, newToken) {
		t.Error("a message shows a token")
	}

	writeFile(t, file, "with space")
	fakecloudtest.Eventually(t, 5*time.Second, "an unsendable token reported", func() bool {
		err := cl.rotation.Check(t.Context())
		return err != nil && strings.Contains(err.Error(), "HTTP header")
	})
	if _, sent := log.last("with space"); sent != 0 {
		t.Errorf("a token with a space was sent %d times", sent)
	}

	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 5*time.Second, "a missing file reported", func() bool {
		err := cl.rotation.Check(t.Context())
		return err != nil && strings.Contains(err.Error(), "cannot read it")
	})
	writeFile(t, file, newToken)
	fakecloudtest.Eventually(t, 5*time.Second, "ready again", func() bool { return cl.rotation.Check(t.Context()) == nil })
	if got := call(); got != newToken {
		t.Errorf("sends %.8s…, want the new token throughout", got)
	}
}

// TestRobotFilesRotate: ROBOT_PASSWORD_FILE is read again; a password the
// webservice takes is sent from then on, one it refuses is not.
func TestRobotFilesRotate(t *testing.T) {
	var mu sync.Mutex
	valid := map[string]bool{"old": true, "new": true}
	var sent []string
	robot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		mu.Lock()
		sent = append(sent, pass)
		ok := valid[pass] && user == "#ws+user"
		mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"status":401,"code":"UNAUTHORIZED","message":"Unauthorized"}}`))
			return
		}
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(robot.Close)
	lastSent := func() string { mu.Lock(); defer mu.Unlock(); return sent[len(sent)-1] }
	c := newCloud(t, 1, fakecloud.Options{})
	file := filepath.Join(t.TempDir(), "password")
	writeFile(t, file, "old")
	cfg := testConfig(c)
	rcfg, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": fakecloud.DefaultToken, "ROBOT_ENABLED": "true", "ROBOT_USER": "#ws+user",
		"ROBOT_PASSWORD_FILE": file, "ROBOT_ENDPOINT": robot.URL}), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Robot = rcfg.Robot
	cfg.Robot.CacheTimeout = time.Nanosecond // every listing asks the webservice
	cl, err := build(t.Context(), cfg, buildOptions{credentialsPeriod: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	list := func() string {
		t.Helper()
		if _, err := cl.robot.Servers(t.Context()); err != nil {
			t.Fatal(err)
		}
		return lastSent()
	}
	if got := list(); got != "old" {
		t.Fatalf("sent %q at start", got)
	}
	writeFile(t, file, "new")
	fakecloudtest.Eventually(t, 5*time.Second, "the new password taken", func() bool { return cl.rotation.creds[0].get()[1] == "new" })
	if got := list(); got != "new" {
		t.Errorf("sends %q after the rotation", got)
	}
	writeFile(t, file, "wrong")
	fakecloudtest.Eventually(t, 5*time.Second, "the refused password reported", func() bool { return cl.rotation.Check(t.Context()) != nil })
	if got := list(); got != "new" {
		t.Errorf("sends %q after a refused password, want the previous one", got)
	}
}

func problemOf(r *rotating) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.problem
}
