// Package bounds holds the limits on what the CCM and ccm doctor read: a
// secret file, one answer of an API, and the pages of one listing. A
// read past a limit is an error naming the setting or the endpoint, never
// a crash for want of memory nor a loop without end.
package bounds

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
)

const (
	// SecretFile is the most a *_FILE setting's file may hold. A token
	// or a password is one line.
	SecretFile = 64 << 10
	// Answer is the most one answer of the cloud API, the Robot
	// webservice or the metadata service may hold: a page of 50 servers
	// is about 300 KiB, the Robot's whole server listing a few MiB.
	Answer = 32 << 20
	// Pages is the most pages one listing may have: 10,000 resources at
	// 50 a page, far above any project's limits.
	Pages = 200
)

// ReadSecretFile reads the file a *_FILE setting names: a regular file
// (Kubernetes mounts a Secret's key as one) of at most SecretFile bytes.
// Its errors are *fs.PathError, whose reason never quotes the content.
func ReadSecretFile(path string) ([]byte, error) {
	// Stat before opening: opening a FIFO with no writer would block.
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s); want a file holding only the secret, "+
			"such as a Secret's key mounted as a volume", info.Mode().Type())}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, SecretFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > SecretFile {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("longer than %d KiB; want a file holding only the secret", SecretFile>>10)}
	}
	return data, nil
}

// Transport sends requests through next (http.DefaultTransport when nil)
// and keeps the limits: an answer longer than Answer bytes fails its
// read, and a request for a page past Pages is not sent.
func Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return transport{next: next}
}

type transport struct{ next http.RoundTripper }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if page, err := strconv.Atoi(req.URL.Query().Get("page")); err == nil && page > Pages {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%s %s: a listing of more than %d pages is not read; the endpoint's pages do not end", req.Method, req.URL.Path, Pages)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	resp.Body = &limited{body: resp.Body, left: Answer, what: req.Method + " " + req.URL.Path}
	return resp, nil
}

// limited fails a read past its limit; the caller closes it.
type limited struct {
	body io.ReadCloser
	left int64
	what string
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// Answers that end exactly at the limit still end cleanly.
		var one [1]byte
		if n, err := l.body.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("%s: the answer is longer than %d MiB; not read further", l.what, Answer>>20)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.body.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limited) Close() error { return l.body.Close() }
