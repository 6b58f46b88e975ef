package faults

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// Hooks is what Inject needs from the server it runs in.
type Hooks struct {
	// Path is the path rules match a request by: the API path without /v1.
	Path func(*http.Request) string
	// Closing, once closed, ends requests that a rule holds: their
	// connections are closed without an answer, so no client takes a held
	// request for one that succeeded.
	Closing <-chan struct{}
	// Applied learns which rule applies to a request, for the journal.
	Applied func(w http.ResponseWriter, id int)
	// Answer writes a rule's error: its status, code and message.
	Answer func(w http.ResponseWriter, r *http.Request, rule Rule)
	// Scope, when set, says which rules (by their path) may apply here,
	// so a service mounted under a prefix meets only its own rules.
	Scope func(rulePath string) bool
}

// Inject applies the first matching rule to each request: it delays,
// holds, drops, answers with the rule's error, or serves the request and
// then answers with the error or holds the answer (after commit).
func (fs *Set) Inject(next http.Handler, h Hooks) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rule, ok := fs.match(r.Method, h.Path(r), r.UserAgent(), h.Scope)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		h.Applied(w, rule.ID)
		w.Header().Set("X-Fakecloud-Fault", strconv.Itoa(rule.ID))
		if rule.Latency > 0 && !wait(r, time.Duration(rule.Latency), h.Closing) {
			return
		}
		switch {
		case rule.AfterCommit:
			buf := &bufferedResponse{header: http.Header{}}
			next.ServeHTTP(buf, r)
			if buf.status >= 400 {
				// The request was refused, so nothing was committed: pass the
				// real answer through and give the hit back.
				fs.unhit(rule.ID)
				buf.copyTo(w)
				return
			}
			if rule.Hang {
				wait(r, 0, h.Closing) // the change is made; its answer never comes
				return
			}
			h.Answer(w, r, rule)
		case rule.Hang:
			wait(r, 0, h.Closing)
		case rule.Drop:
			panic(http.ErrAbortHandler) // net/http closes the connection without an answer
		case rule.Status != 0:
			h.Answer(w, r, rule)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// wait blocks for d (or, with d == 0, indefinitely) until the client gives
// up or closing closes; it reports whether the full time passed. When
// closing ends the wait, the handler is aborted: net/http closes the
// connection without an answer, where returning would answer 200 with an
// empty body, a success that never happened.
func wait(r *http.Request, d time.Duration, closing <-chan struct{}) bool {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-r.Context().Done():
	case <-closing:
		panic(http.ErrAbortHandler)
	}
	return false
}

// bufferedResponse holds an answer until a fault decides what to send.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedResponse) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}
