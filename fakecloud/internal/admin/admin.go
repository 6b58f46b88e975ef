package admin

import (
	"crypto/subtle"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/event"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/faults"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/fidelity"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/journal"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/ratelimit"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/realism"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/scenario"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/seed"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/statefile"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/robot"
)

// Backend is what the admin API acts on: a fakecloud's operations that
// are not API requests.
type Backend interface {
	Faults() ([]faults.Rule, []faults.ActionFault)
	AddFault(faults.Rule) (faults.Rule, error)
	AddActionFault(faults.ActionFault) (faults.ActionFault, error)
	RemoveFault(id int) bool
	ClearFaults()
	RateLimit() (limit, remaining int, refill float64, on bool)
	SetRateLimit(remaining int, refill float64) error
	Apply(event.Event) error
	StateFileStatus() (statefile.Status, bool)
	Realism() realism.Realism
	SetRealism(realism.Realism) error
	Reset()
	ResetToSeed() error
	Seed(seed.World) error
	Export() ([]byte, error)
	Import([]byte) error
	LoadScenario(scenario.Scenario) error
	Journal(journal.Filter) []journal.Entry
	ClearJournal()
	Counters() []journal.Counter
	ResetCounters()
	AddToken(token string, readOnly bool) error
	RevokeToken(token string) error
}

// tokenRequest is a token the admin API adds or revokes.
type tokenRequest struct {
	Token    string `json:"token"`
	ReadOnly bool   `json:"read_only,omitempty"`
}

// Routes serves the admin API under /_fakecloud/: faults, events, rate
// limit, reset and seed, state, journal, counters and the Robot
// webservice's limits. Bodies are JSON or YAML; errors use the API's
// envelope. With a token, only requests bearing it are served; without
// one, only loopback clients.
func Routes(s Backend, webservice *robot.Handler, token string, projects func() []string) http.Handler {
	r := chi.NewRouter()
	r.Use(Auth(token), wire.LimitBody(BodyLimit), wire.StrictQuery(nil))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		wire.WriteError(w, apierr.Errorf(apierr.CodeNotFound, "no such admin endpoint: %s %s", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		wire.WriteError(w, apierr.Errorf(apierr.CodeMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	r.Get("/faults", func(w http.ResponseWriter, r *http.Request) {
		rules, actions := s.Faults()
		wire.WriteJSON(w, http.StatusOK, map[string]any{"rules": rules, "action_faults": actions})
	})
	r.Post("/faults", adminApply("rule", func(rule faults.Rule) (any, error) { return s.AddFault(rule) }))
	r.Post("/action-faults", adminApply("action_fault", func(af faults.ActionFault) (any, error) { return s.AddActionFault(af) }))
	r.Delete("/faults", func(w http.ResponseWriter, r *http.Request) {
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	})
	r.Delete("/faults/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, ok := strict.ParseDecimal(r.PathValue("id"), math.MaxInt32)
		if !ok || !s.RemoveFault(int(id)) {
			wire.WriteError(w, apierr.NotFound("fault", r.PathValue("id")))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/rate-limit", func(w http.ResponseWriter, r *http.Request) { writeRateLimit(w, s) })
	r.Put("/rate-limit", func(w http.ResponseWriter, r *http.Request) {
		req := struct {
			Remaining *int     `json:"remaining"`
			Refill    *float64 `json:"refill"`
		}{}
		if err := adminDecode(r, &req); err != nil {
			wire.WriteError(w, err)
			return
		}
		remaining, refill := -1, -1.0
		var f apierr.Fields
		if req.Remaining != nil {
			if remaining = *req.Remaining; remaining < 0 {
				f.Add("remaining", "must be 0 or more")
			}
		}
		if req.Refill != nil {
			if refill = *req.Refill; ratelimit.CheckRefill(refill) != nil {
				f.Add("refill", "must be from 0 to %g requests per second", float64(ratelimit.MaxRefill))
			}
		}
		if err := f.Err(); err != nil {
			wire.WriteError(w, err)
			return
		}
		if err := s.SetRateLimit(remaining, refill); err != nil {
			wire.WriteError(w, apierr.Errorf(apierr.CodeUnsupportedError, "%v", err))
			return
		}
		writeRateLimit(w, s)
	})
	r.Post("/events", adminApply("", func(e event.Event) (any, error) { return nil, s.Apply(e) }))
	r.Post("/tokens", adminApply("", func(t tokenRequest) (any, error) { return nil, s.AddToken(t.Token, t.ReadOnly) }))
	r.Post("/tokens/revoke", adminApply("", func(t tokenRequest) (any, error) {
		if t.ReadOnly {
			return nil, errors.New("read_only: is not used by a revocation")
		}
		return nil, s.RevokeToken(t.Token)
	}))
	r.Get("/state-file", func(w http.ResponseWriter, r *http.Request) {
		st, ok := s.StateFileStatus()
		if !ok {
			wire.WriteError(w, apierr.Errorf(apierr.CodeNotFound, "fakecloud runs without a state file"))
			return
		}
		status := http.StatusOK
		if st.Unsaved {
			status = http.StatusServiceUnavailable // for a health probe
		}
		wire.WriteJSON(w, status, map[string]any{"state_file": st})
	})
	r.Get("/fidelity", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, map[string]any{"fidelity": fidelity.Simulated})
	})
	r.Get("/realism", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, map[string]any{"realism": s.Realism()})
	})
	r.Put("/realism", func(w http.ResponseWriter, r *http.Request) {
		var re realism.Realism
		if err := adminDecode(r, &re); err != nil {
			wire.WriteError(w, err)
			return
		}
		if re.Mode == "" {
			wire.WriteError(w, apierr.InvalidField("mode", "is required: %s or %s", realism.RealismOptimistic, realism.RealismPessimistic))
			return
		}
		if err := s.SetRealism(re); err != nil {
			wire.WriteError(w, fieldsError(err))
			return
		}
		wire.WriteJSON(w, http.StatusOK, map[string]any{"realism": s.Realism()})
	})
	r.Post("/reset", func(w http.ResponseWriter, r *http.Request) {
		req := struct {
			To string `json:"to"`
		}{}
		if err := adminDecode(r, &req); err != nil {
			wire.WriteError(w, err)
			return
		}
		switch req.To {
		case "", "empty":
			s.Reset()
		case "seed":
			if err := s.ResetToSeed(); err != nil {
				wire.WriteError(w, apierr.Errorf(apierr.CodeInvalidInput, "%v", err))
				return
			}
		default:
			wire.WriteError(w, apierr.InvalidField("to", "%q is not one of empty, seed", req.To))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Post("/seed", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			wire.WriteError(w, apierr.Errorf(apierr.CodeJSONError, "read body: %v", err))
			return
		}
		world, err := seed.ParseWorld(body)
		if err != nil {
			wire.WriteError(w, apierr.Errorf(apierr.CodeInvalidInput, "%v", err))
			return
		}
		if err := s.Seed(world); err != nil {
			wire.WriteError(w, apierr.Errorf(apierr.CodeInvalidInput, "%v", err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/state", func(w http.ResponseWriter, r *http.Request) {
		data, err := s.Export()
		if err != nil {
			wire.WriteError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	})
	r.Put("/state", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			wire.WriteError(w, apierr.Errorf(apierr.CodeJSONError, "read body: %v", err))
			return
		}
		if err := s.Import(body); err != nil {
			wire.WriteError(w, fieldsError(err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Post("/scenarios", adminApply("", func(sc scenario.Scenario) (any, error) { return nil, s.LoadScenario(sc) }))
	r.Get("/journal", func(w http.ResponseWriter, r *http.Request) {
		f, err := journalFilter(r)
		if err != nil {
			wire.WriteError(w, err)
			return
		}
		wire.WriteJSON(w, http.StatusOK, map[string]any{"entries": s.Journal(f)})
	})
	r.Delete("/journal", func(w http.ResponseWriter, r *http.Request) {
		s.ClearJournal()
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/counters", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, map[string]any{"counters": s.Counters()})
	})
	r.Delete("/counters", func(w http.ResponseWriter, r *http.Request) {
		s.ResetCounters()
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/projects", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, map[string]any{"projects": projects()})
	})
	r.Get("/robot/limits", func(w http.ResponseWriter, r *http.Request) {
		wire.WriteJSON(w, http.StatusOK, map[string]any{"usage": webservice.Usage(), "blocked": webservice.Blocks()})
	})
	r.Delete("/robot/limits", func(w http.ResponseWriter, r *http.Request) {
		webservice.ClearLimits()
		w.WriteHeader(http.StatusNoContent)
	})
	return r
}

// adminApply decodes a body into T and applies it. Errors name the bad
// fields; a result is answered 201 under key, no key answers 204.
func adminApply[T any](key string, apply func(T) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var v T
		if err := adminDecode(r, &v); err != nil {
			wire.WriteError(w, err)
			return
		}
		out, err := apply(v)
		if err != nil {
			wire.WriteError(w, fieldsError(err))
			return
		}
		if key == "" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		wire.WriteJSON(w, http.StatusCreated, map[string]any{key: out})
	}
}

// Auth admits the admin token, or loopback clients when there is none.
func Auth(token string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if token != "" {
				if subtle.ConstantTimeCompare([]byte(wire.Bearer(r)), []byte(token)) != 1 {
					wire.WriteError(w, apierr.Errorf(apierr.CodeUnauthorized, "the admin API needs the admin token"))
					return
				}
			} else if host, _, err := net.SplitHostPort(r.RemoteAddr); err != nil || !net.ParseIP(host).IsLoopback() {
				wire.WriteError(w, apierr.Errorf(apierr.CodeForbidden, "the admin API answers loopback clients only; set an admin token to reach it from elsewhere"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func writeRateLimit(w http.ResponseWriter, s Backend) {
	limit, remaining, refill, on := s.RateLimit()
	wire.WriteJSON(w, http.StatusOK, map[string]any{"enabled": on, "limit": limit, "remaining": remaining, "refill": refill})
}

// adminDecode reads a JSON or YAML object strictly: unknown fields are
// refused, and so are an empty body, null and any other non-object.
func adminDecode(r *http.Request, v any) *apierr.Error {
	body, err := io.ReadAll(r.Body) // limitBody has held it to its limit
	if err != nil {
		return apierr.Errorf(apierr.CodeJSONError, "read body: %v", err)
	}
	if err := strict.Object(body, v); err != nil {
		return apierr.Errorf(apierr.CodeInvalidInput, "%v", err)
	}
	return nil
}

// fieldsError turns "field: reason" lines into invalid_input naming each field.
func fieldsError(err error) *apierr.Error {
	var f apierr.Fields
	for line := range strings.SplitSeq(err.Error(), "\n") {
		field, msg, ok := strings.Cut(line, ": ")
		if !ok {
			field, msg = "body", line
		}
		f.Add(field, "%s", msg)
	}
	return f.Err()
}

func journalFilter(r *http.Request) (journal.Filter, *apierr.Error) {
	q := r.URL.Query()
	f := journal.Filter{Method: strings.ToUpper(q.Get("method")), Template: q.Get("template"), Path: q.Get("path")}
	var fe apierr.Fields
	num := func(name string, dst any) {
		v := q.Get(name)
		if v == "" {
			return
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			fe.Add(name, "%q is not a non-negative integer", v)
			return
		}
		switch d := dst.(type) {
		case *int:
			*d = int(n)
		case *uint64:
			*d = n
		}
	}
	num("status", &f.Status)
	num("since", &f.Since)
	num("limit", &f.Limit)
	return f, fe.Err()
}

// BodyLimit lets seeds and snapshots be larger than other admin bodies.
func BodyLimit(r *http.Request) int64 {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/seed"):
		return wire.MaxSeedBody
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/state"):
		return wire.MaxSnapshotBody
	}
	return wire.MaxBody
}
