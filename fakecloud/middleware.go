package fakecloud

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// Journal statuses for requests that got no answer, as nginx names them.
const (
	statusDropped    = 444 // a fault closed the connection
	statusClientGone = 499 // the client gave up first (a hang, a long latency)
)

// statusRecorder remembers the status a handler wrote, for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	fault  int // the fault rule that applied, if any
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// requestNote is what the handler tells the journal about a request: the
// commands of the actions it started. observe puts it in the context.
type requestNote struct{ actions []string }

type noteKey struct{}

// apiPath is the request path without the /v1 prefix.
func apiPath(r *http.Request) string {
	if p, ok := strings.CutPrefix(r.URL.Path, "/v1"); ok && (p == "" || p[0] == '/') {
		return p
	}
	return r.URL.Path
}

// template is the route a request matches, without /v1: "/servers/{id}",
// "/servers/{id}/actions/poweron", "/actions/{action_id}"; "unmatched" for
// a path no route serves. Robot webservice requests keep their prefix:
// "/robot/server/{server-number}", "/robot/unmatched".
func (s *Server) template(r *http.Request) string {
	if robotPath(r.URL.Path) {
		if t := s.robot.Template(r); t != "" {
			return robotPrefix + t
		}
		return robotPrefix + "/unmatched"
	}
	rctx := chi.NewRouteContext()
	if !s.api.Match(rctx, r.Method, apiPath(r)) {
		return "unmatched"
	}
	t := rctx.RoutePattern()
	if rest, ok := strings.CutSuffix(t, "/actions/{action}"); ok {
		if r.Method == http.MethodPost {
			return rest + "/actions/" + rctx.URLParam("action")
		}
		return rest + "/actions/{action_id}"
	}
	return strings.ReplaceAll(t, "/actions/{action}", "/actions/{action_id}")
}

// observe sets X-Correlation-Id, recovers from panics with the error
// envelope, and logs, journals and counts every API request.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Correlation-Id")
		if id == "" {
			id = fmt.Sprintf("%016x", rand.Uint64())
		}
		w.Header().Set("X-Correlation-Id", id)
		// The API's clock, which its actions' times follow too.
		w.Header().Set("Date", s.opts.Now().UTC().Format(http.TimeFormat))
		rec := &statusRecorder{ResponseWriter: w}
		note := &requestNote{}
		r = r.WithContext(context.WithValue(r.Context(), noteKey{}, note))
		s.runDue()
		defer func() {
			p := recover()
			dropped := p == http.ErrAbortHandler
			if p != nil && !dropped {
				s.opts.Logger.Error("handler panic", "panic", p, "method", r.Method, "path", r.URL.Path)
				if rec.status == 0 {
					wire.WriteError(rec, apierr.Errorf(apierr.CodeServerError, "internal error in fakecloud: %v", p))
				}
			}
			status := rec.status
			switch {
			case dropped:
				status = statusDropped
			case status == 0:
				status = statusClientGone
			}
			defer func() {
				if dropped {
					panic(p) // net/http closes the connection without an answer
				}
			}()
			elapsed := time.Since(start)
			s.rec.Record(JournalEntry{Time: start, Method: r.Method, Path: apiPath(r), Template: s.template(r),
				Status: status, UserAgent: r.UserAgent(), CorrelationID: id, Duration: Duration(elapsed), Fault: rec.fault, Actions: note.actions})
			s.opts.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", status), slog.Duration("duration", elapsed),
				slog.String("correlation_id", id), slog.String("user_agent", r.UserAgent()))
		}()
		next.ServeHTTP(rec, r)
	})
}

// authenticate admits requests with a configured Bearer token.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, known := s.token(wire.Bearer(r)); !known {
			wire.WriteError(w, apierr.Errorf(apierr.CodeUnauthorized, "unable to authenticate"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// permit lets read-only tokens only read. It runs after the rate limit:
// a refused write is still a request of the project.
func (s *Server) permit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if write, _ := s.token(wire.Bearer(r)); !write && r.Method != http.MethodGet && r.Method != http.MethodHead {
			wire.WriteError(w, apierr.Errorf(apierr.CodeForbidden, "insufficient permissions for this request: the token is read-only"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
