// Package exchange records a client's HTTP exchanges with an API: each
// request's method, path, query and body, and each answer's status, Date
// and body, as the client sent and received them.
package exchange

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Exchange is one request and its answer.
type Exchange struct {
	Method string
	Path   string // without the endpoint's own path (/v1)
	Query  url.Values
	Body   []byte

	Status       int
	Date         time.Time // the answer's Date header: the API's clock
	ResponseBody []byte
}

// Recorder keeps the exchanges of the transports it wraps, in the order
// their answers came. A request that got no answer (a transport error, a
// cancelled context) is not kept.
type Recorder struct {
	mu  sync.Mutex
	log []Exchange
}

// Wrap returns a transport that sends through base (nil:
// http.DefaultTransport) and records into r. The endpoint's path (/v1) is
// taken off the recorded paths.
func (r *Recorder) Wrap(base http.RoundTripper, endpoint string) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	prefix := ""
	if u, err := url.Parse(endpoint); err == nil {
		prefix = strings.TrimSuffix(u.Path, "/")
	}
	return &transport{rec: r, base: base, prefix: prefix}
}

// Take returns the exchanges recorded since the last Take.
func (r *Recorder) Take() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.log
	r.log = nil
	return out
}

type transport struct {
	rec    *Recorder
	base   http.RoundTripper
	prefix string
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		_ = req.Body.Close()
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	answer, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	date, _ := http.ParseTime(resp.Header.Get("Date"))
	t.rec.mu.Lock()
	t.rec.log = append(t.rec.log, Exchange{
		Method: req.Method, Path: strings.TrimPrefix(req.URL.Path, t.prefix), Query: req.URL.Query(), Body: body,
		Status: resp.StatusCode, Date: date, ResponseBody: answer,
	})
	t.rec.mu.Unlock()
	return resp, nil
}
