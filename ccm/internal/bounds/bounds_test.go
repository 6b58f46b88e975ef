package bounds

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
)

func TestReadSecretFile(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSecretFile(token); err != nil || string(got) != "abc\n" {
		t.Fatalf("ReadSecretFile = %q, %v", got, err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, SecretFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		big:                          "longer than 64 KiB",
		"/dev/zero":                  "not a regular file",
		fifo:                         "not a regular file", // no writer: opening it would block
		dir:                          "not a regular file",
		filepath.Join(dir, "absent"): "no such file",
	} {
		got, err := ReadSecretFile(path)
		var pathErr *fs.PathError
		if err == nil || !errors.As(err, &pathErr) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadSecretFile(%s) = %d bytes, %v; want a *fs.PathError saying %q", path, len(got), err, want)
		}
	}
}

func TestTransportBoundsAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(cloudtest.Endless))
	defer srv.Close()
	resp, err := (&http.Client{Transport: Transport(nil)}).Get(srv.URL + "/v1/servers?page=2")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil || !strings.Contains(err.Error(), "GET /v1/servers: the answer is longer than 32 MiB") {
		t.Errorf("reading an endless answer: %v", err)
	}
	if n != Answer {
		t.Errorf("read %d bytes, want the limit, %d", n, Answer)
	}
}

func TestTransportAnswerOfExactlyTheLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(make([]byte, Answer))
	}))
	defer srv.Close()
	resp, err := (&http.Client{Transport: Transport(nil)}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if n, err := io.Copy(io.Discard, resp.Body); err != nil || n != Answer {
		t.Errorf("read %d bytes, %v; want all %d", n, err, Answer)
	}
}

func TestTransportBoundsPages(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { sent.Add(1) }))
	defer srv.Close()
	client := &http.Client{Transport: Transport(nil)}
	for page, refused := range map[int]bool{1: false, Pages: false, Pages + 1: true, 1 << 40: true} {
		resp, err := client.Get(fmt.Sprintf("%s/v1/actions?page=%d&per_page=50", srv.URL, page))
		if resp != nil {
			resp.Body.Close()
		}
		if refused != (err != nil) {
			t.Errorf("page %d: err = %v, want refused %v", page, err, refused)
		}
		if refused && !strings.Contains(err.Error(), "GET /v1/actions: a listing of more than 200 pages") {
			t.Errorf("page %d: %v", page, err)
		}
	}
	if sent.Load() != 2 {
		t.Errorf("%d requests reached the server, want the 2 within the limit", sent.Load())
	}
}
