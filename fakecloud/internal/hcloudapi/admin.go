package hcloudapi

import (
	"crypto/subtle"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// adminRoutes serves the admin API under /_fakecloud/: faults, events,
// rate limit, reset and seed, state, journal, counters and the Robot
// webservice's limits. Bodies are JSON
// or YAML; errors use the API's envelope.
func (s *Server) adminRoutes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.adminAuth, limitBody(adminBodyLimit), strictQuery(nil))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(codeNotFound, "no such admin endpoint: %s %s", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(codeMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})
	r.Get("/faults", func(w http.ResponseWriter, r *http.Request) {
		rules, actions := s.Faults()
		writeJSON(w, http.StatusOK, map[string]any{"rules": rules, "action_faults": actions})
	})
	r.Post("/faults", adminApply("rule", func(rule Rule) (any, error) { return s.AddFault(rule) }))
	r.Post("/action-faults", adminApply("action_fault", func(af ActionFault) (any, error) { return s.AddActionFault(af) }))
	r.Delete("/faults", func(w http.ResponseWriter, r *http.Request) {
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	})
	r.Delete("/faults/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, ok := parseDecimal(r.PathValue("id"), math.MaxInt32)
		if !ok || !s.RemoveFault(int(id)) {
			writeError(w, notFound("fault", r.PathValue("id")))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/rate-limit", func(w http.ResponseWriter, r *http.Request) { s.writeRateLimit(w) })
	r.Put("/rate-limit", func(w http.ResponseWriter, r *http.Request) {
		req := struct {
			Remaining *int     `json:"remaining"`
			Refill    *float64 `json:"refill"`
		}{}
		if err := adminDecode(r, &req); err != nil {
			writeError(w, err)
			return
		}
		remaining, refill := -1, -1.0
		var f fieldErrors
		if req.Remaining != nil {
			if remaining = *req.Remaining; remaining < 0 {
				f.Add("remaining", "must be 0 or more")
			}
		}
		if req.Refill != nil {
			if refill = *req.Refill; refill < 0 {
				f.Add("refill", "must be 0 or more requests per second")
			}
		}
		if err := f.Err(); err != nil {
			writeError(w, err)
			return
		}
		if err := s.SetRateLimit(remaining, refill); err != nil {
			writeError(w, errorf(codeUnsupportedError, "%v", err))
			return
		}
		s.writeRateLimit(w)
	})
	r.Post("/events", adminApply("", func(e Event) (any, error) { return nil, s.Apply(e) }))
	r.Get("/state-file", func(w http.ResponseWriter, r *http.Request) {
		st, ok := s.StateFileStatus()
		if !ok {
			writeError(w, errorf(codeNotFound, "fakecloud runs without a state file"))
			return
		}
		status := http.StatusOK
		if st.Unsaved {
			status = http.StatusServiceUnavailable // for a health probe
		}
		writeJSON(w, status, map[string]any{"state_file": st})
	})
	r.Get("/realism", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"realism": s.Realism()})
	})
	r.Put("/realism", func(w http.ResponseWriter, r *http.Request) {
		var re Realism
		if err := adminDecode(r, &re); err != nil {
			writeError(w, err)
			return
		}
		if re.Mode == "" {
			writeError(w, invalidField("mode", "is required: %s or %s", RealismOptimistic, RealismPessimistic))
			return
		}
		if err := s.SetRealism(re); err != nil {
			writeError(w, fieldsError(err))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"realism": s.Realism()})
	})
	r.Post("/reset", func(w http.ResponseWriter, r *http.Request) {
		req := struct {
			To string `json:"to"`
		}{}
		if err := adminDecode(r, &req); err != nil {
			writeError(w, err)
			return
		}
		switch req.To {
		case "", "empty":
			s.Reset()
		case "seed":
			if err := s.ResetToSeed(); err != nil {
				writeError(w, errorf(codeInvalidInput, "%v", err))
				return
			}
		default:
			writeError(w, invalidField("to", "%q is not one of empty, seed", req.To))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Post("/seed", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, errorf(codeJSONError, "read body: %v", err))
			return
		}
		world, err := ParseWorld(body)
		if err != nil {
			writeError(w, errorf(codeInvalidInput, "%v", err))
			return
		}
		if err := s.Seed(world); err != nil {
			writeError(w, errorf(codeInvalidInput, "%v", err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/state", func(w http.ResponseWriter, r *http.Request) {
		data, err := s.Export()
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	})
	r.Put("/state", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, errorf(codeJSONError, "read body: %v", err))
			return
		}
		if err := s.Import(body); err != nil {
			writeError(w, fieldsError(err))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r.Post("/scenarios", adminApply("", func(sc Scenario) (any, error) { return nil, s.LoadScenario(sc) }))
	r.Get("/journal", func(w http.ResponseWriter, r *http.Request) {
		f, err := journalFilter(r)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"entries": s.Journal(f)})
	})
	r.Delete("/journal", func(w http.ResponseWriter, r *http.Request) {
		s.ClearJournal()
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/counters", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"counters": s.Counters()})
	})
	r.Delete("/counters", func(w http.ResponseWriter, r *http.Request) {
		s.ResetCounters()
		w.WriteHeader(http.StatusNoContent)
	})
	r.Get("/robot/limits", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"usage": s.robot.Usage(), "blocked": s.robot.Blocks()})
	})
	r.Delete("/robot/limits", func(w http.ResponseWriter, r *http.Request) {
		s.robot.ClearLimits()
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
			writeError(w, err)
			return
		}
		out, err := apply(v)
		if err != nil {
			writeError(w, fieldsError(err))
			return
		}
		if key == "" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusCreated, map[string]any{key: out})
	}
}

// adminAuth admits the admin token, or loopback clients when there is none.
func (s *Server) adminAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.AdminToken != "" {
			if subtle.ConstantTimeCompare([]byte(bearer(r)), []byte(s.opts.AdminToken)) != 1 {
				writeError(w, errorf(codeUnauthorized, "the admin API needs the admin token"))
				return
			}
		} else if host, _, err := net.SplitHostPort(r.RemoteAddr); err != nil || !net.ParseIP(host).IsLoopback() {
			writeError(w, errorf(codeForbidden, "the admin API answers loopback clients only; set an admin token to reach it from elsewhere"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) writeRateLimit(w http.ResponseWriter) {
	limit, remaining, refill, on := s.RateLimit()
	writeJSON(w, http.StatusOK, map[string]any{"enabled": on, "limit": limit, "remaining": remaining, "refill": refill})
}

// adminDecode reads a JSON or YAML object strictly: unknown fields are
// refused, and so are an empty body, null and any other non-object.
func adminDecode(r *http.Request, v any) *apiError {
	body, err := io.ReadAll(r.Body) // limitBody has held it to its limit
	if err != nil {
		return errorf(codeJSONError, "read body: %v", err)
	}
	if err := strictObject(body, v); err != nil {
		return errorf(codeInvalidInput, "%v", err)
	}
	return nil
}

// fieldsError turns "field: reason" lines into invalid_input naming each field.
func fieldsError(err error) *apiError {
	var f fieldErrors
	for line := range strings.SplitSeq(err.Error(), "\n") {
		field, msg, ok := strings.Cut(line, ": ")
		if !ok {
			field, msg = "body", line
		}
		f.Add(field, "%s", msg)
	}
	return f.Err()
}

func journalFilter(r *http.Request) (JournalFilter, *apiError) {
	q := r.URL.Query()
	f := JournalFilter{Method: strings.ToUpper(q.Get("method")), Template: q.Get("template"), Path: q.Get("path")}
	var fe fieldErrors
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
