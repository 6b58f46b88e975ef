package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// endlessPages is a Hetzner API whose every listing has a next page.
func endlessPages(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var page int
		_, _ = fmt.Sscan(r.URL.Query().Get("page"), &page)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"servers":[],"networks":[],"load_balancers":[],"meta":{"pagination":{"page":%d,"per_page":50,"next_page":%d}}}`, page, page+1)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// doctorWithin runs ccm doctor and fails the test if it has not
// reported within limit (far above the bound it is given).
func doctorWithin(t *testing.T, limit time.Duration, args []string, env map[string]string,
	kube func(string, time.Duration) (kubernetes.Interface, error)) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runDoctor(t.Context(), args, doctorIO{getenv: func(k string) string { return env[k] }, stdout: &stdout, stderr: &stderr, kube: kube})
	}()
	select {
	case code := <-done:
		return code, stdout.String() + stderr.String()
	case <-time.After(limit):
		t.Fatalf("ccm doctor %v has not reported after %v", args, limit)
		return 0, ""
	}
}

// TestDoctorEndsOnAHangingAPIServer: an apiserver that accepts and never
// answers costs doctor its --timeout, and the report names the check that
// did not finish and those not run.
func TestDoctorEndsOnAHangingAPIServer(t *testing.T) {
	stop := make(chan struct{})
	apiserver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer apiserver.Close()
	defer close(stop)
	kube := func(_ string, timeout time.Duration) (kubernetes.Interface, error) {
		return kubernetes.NewForConfig(&rest.Config{Host: apiserver.URL, Timeout: timeout})
	}
	code, out := doctorWithin(t, time.Minute, []string{"--timeout", "2s"},
		map[string]string{"HCLOUD_TOKEN": strings.Repeat("t", 64), "HCLOUD_ENDPOINT": endlessPages(t)}, kube)
	if code != doctorFailed {
		t.Errorf("exit status %d, want %d:\n%s", code, doctorFailed, out)
	}
	for _, want := range []string{"the kubernetes check did not finish before doctor's bound (--timeout 2s passed); not checked: token, ccm, robot, node"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
}

// TestDoctorEndsOnEndlessPages: a listing that always has a next page
// stops at 200 pages and is a FAIL of the token check naming it.
func TestDoctorEndsOnEndlessPages(t *testing.T) {
	kube := func(string, time.Duration) (kubernetes.Interface, error) { return fake.NewClientset(), nil }
	code, out := doctorWithin(t, time.Minute, nil,
		map[string]string{"HCLOUD_TOKEN": strings.Repeat("t", 64), "HCLOUD_ENDPOINT": endlessPages(t)}, kube)
	if code != doctorFailed || !strings.Contains(out, "GET /v1/servers: a listing of more than 200 pages is not read") {
		t.Errorf("exit status %d, want %d and the endless listing named:\n%s", code, doctorFailed, out)
	}
	if strings.Contains(out, "bound") {
		t.Errorf("the endless listing cost doctor its bound:\n%s", out)
	}
}
