package fakecloud

import (
	"bytes"
	"net/http"
	"time"
)

// injectFaults applies the first matching fault rule to an API request.
func (s *Server) injectFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rule, ok := s.faults.match(r.Method, apiPath(r))
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if rec, ok := w.(*statusRecorder); ok {
			rec.fault = rule.ID
		}
		w.Header().Set("X-Fakecloud-Fault", itoa(rule.ID))
		if rule.Latency > 0 && !s.wait(r, time.Duration(rule.Latency)) {
			return
		}
		switch {
		case rule.Hang:
			s.wait(r, 0)
		case rule.Drop:
			panic(http.ErrAbortHandler) // net/http closes the connection without an answer
		case rule.AfterCommit:
			buf := &bufferedResponse{header: http.Header{}}
			next.ServeHTTP(buf, r)
			if buf.status >= 400 {
				// The request was refused, so nothing was committed: pass the
				// real answer through and give the hit back.
				s.faults.unhit(rule.ID)
				buf.copyTo(w)
				return
			}
			writeFault(w, rule)
		case rule.Status != 0:
			writeFault(w, rule)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// wait blocks for d (or, with d == 0, indefinitely) until the client gives
// up or fakecloud closes; it reports whether the full time passed.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
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
	case <-s.closing:
	}
	return false
}

// writeFault answers with a rule's error, as the envelope or as plain text.
func writeFault(w http.ResponseWriter, rule Rule) {
	code := rule.Code
	if code == "" {
		code = codeOfStatus[rule.Status]
		if code == "" {
			code = codeServerError
		}
	}
	msg := rule.Message
	if msg == "" {
		msg = "injected by fakecloud fault rule " + itoa(rule.ID)
		if rule.Name != "" {
			msg += " (" + rule.Name + ")"
		}
	}
	if rule.PlainBody {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(rule.Status)
		_, _ = w.Write([]byte(msg + "\n"))
		return
	}
	ae := &apiError{Code: code, Message: msg}
	writeErrorStatus(w, ae, rule.Status)
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
