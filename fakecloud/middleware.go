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
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/journal"
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
// a path no route serves, an action fakecloud does not know among them,
// so the templates, which label counters, are as many as the routes
// whatever clients send. Robot webservice requests keep their prefix:
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
	if _, ok := strings.CutSuffix(t, "/actions/{action}"); ok && r.Method == http.MethodPost {
		return "unmatched" // each known action has a route of its own
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
			e := JournalEntry{Time: start, Method: r.Method, Path: apiPath(r), Template: s.template(r),
				Status: status, UserAgent: r.UserAgent(), CorrelationID: id, Duration: Duration(elapsed), Fault: rec.fault, Actions: note.actions}
			journal.Bound(&e)
			s.rec.Record(e)
			s.logRequest(r, e)
		}()
		next.ServeHTTP(rec, r)
	})
}

// logRequest logs a request as the journal keeps it, the rejected ones
// (answered 4xx; not those a fault left unanswered) limited per client
// (rejectLog).
func (s *Server) logRequest(r *http.Request, e JournalEntry) {
	now := time.Now()
	logged, left := true, []unlogged(nil)
	if e.Status >= 400 && e.Status < 500 && e.Status != statusDropped && e.Status != statusClientGone {
		logged, left = s.rejected.allow(clientOf(r), now)
	} else {
		left = s.rejected.flush(now)
	}
	for _, u := range left {
		s.opts.Logger.LogAttrs(r.Context(), slog.LevelWarn, "rejected requests not logged",
			slog.String("client", u.client), slog.Int("count", u.count), slog.Duration("within", u.window))
	}
	if !logged {
		return
	}
	attrs := []slog.Attr{slog.String("method", e.Method), slog.String("path", e.Path),
		slog.Int("status", e.Status), slog.Duration("duration", time.Duration(e.Duration)),
		slog.String("correlation_id", e.CorrelationID), slog.String("user_agent", e.UserAgent)}
	if e.Truncated != nil {
		attrs = append(attrs, slog.Any("truncated", e.Truncated))
	}
	s.opts.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
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
