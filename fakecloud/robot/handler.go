package robot

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/go-chi/chi/v5"
)

// The credentials accepted when Options.User is empty. Real webservice
// users are named like this one, "#ws+" and a suffix.
const (
	DefaultUser     = "#ws+fakecloud"
	DefaultPassword = "fakerobotfakerobot"
)

// Options configure the webservice.
type Options struct {
	// User and Password are the webservice login (default DefaultUser
	// and DefaultPassword).
	User, Password string
	// Servers returns the dedicated servers in number order; the handler
	// only reads what it gets.
	Servers func() []Server
	// Now is the clock of the limits and the login block (default time.Now).
	Now func() time.Time
	// RateLimitScale multiplies every endpoint's hourly limit (rounded
	// up, at least 1); 0 means 1, a negative value turns the limits off.
	RateLimitScale float64
	// RateLimitInterval is the window the limits count in (default an
	// hour); the 403 answer's interval gives it in seconds.
	RateLimitInterval time.Duration
	// Prefix is the path the handler is mounted under, e.g. "/robot".
	Prefix string
	// Wrap, when set, wraps every endpoint and the not-found and
	// method-not-allowed answers, after authentication and limits.
	Wrap func(http.Handler) http.Handler
}

// Handler serves the webservice.
type Handler struct {
	opts   Options
	router chi.Router
	limits *limiter // nil when the limits are off
	logins *logins
	hourly map[string]int // endpoint ("GET /server") -> documented limit per hour
}

// endpoint is one route with its documented limit per hour (the
// "Request limit" line of each endpoint in the documentation).
type endpoint struct {
	pattern string
	perHour int
	serve   func(r *http.Request) (any, *apiError)
}

// MaxRateLimitScale is the largest RateLimitScale: the limits stay exact
// integers.
const MaxRateLimitScale = 1e6

// Check refuses options that cannot work: a login that HTTP basic
// authentication cannot carry (a user with a colon, control characters
// in either) and a scale that is not a number up to MaxRateLimitScale.
func (o Options) Check() error {
	var errs []error
	if strings.Contains(o.User, ":") || strings.ContainsFunc(o.User, unicode.IsControl) {
		errs = append(errs, fmt.Errorf("user %q: basic authentication cannot carry a colon or control characters in the user", o.User))
	}
	if strings.ContainsFunc(o.Password, unicode.IsControl) {
		errs = append(errs, errors.New("password: basic authentication cannot carry control characters"))
	}
	if math.IsNaN(o.RateLimitScale) || o.RateLimitScale > MaxRateLimitScale {
		errs = append(errs, fmt.Errorf("rate limit scale %v: want a number up to %g (negative: no limits)", o.RateLimitScale, float64(MaxRateLimitScale)))
	}
	return errors.Join(errs...)
}

// New returns the webservice handler. It panics on options Check refuses.
func New(opts Options) *Handler {
	if err := opts.Check(); err != nil {
		panic("robot.New: " + err.Error())
	}
	if opts.User == "" {
		opts.User, opts.Password = DefaultUser, DefaultPassword
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Servers == nil {
		opts.Servers = func() []Server { return nil }
	}
	if opts.Wrap == nil {
		opts.Wrap = func(h http.Handler) http.Handler { return h }
	}
	h := &Handler{opts: opts, hourly: map[string]int{},
		logins: &logins{now: opts.Now, failures: map[string][]time.Time{}, blocked: map[string]time.Time{}}}
	if opts.RateLimitScale >= 0 {
		scale, interval := opts.RateLimitScale, opts.RateLimitInterval
		if scale == 0 {
			scale = 1
		}
		if interval <= 0 {
			interval = time.Hour
		}
		h.limits = &limiter{now: opts.Now, interval: interval, scale: scale, used: map[usageKey][]time.Time{}}
	}
	r := chi.NewRouter()
	r.NotFound(opts.Wrap(answer(func(r *http.Request) (any, *apiError) {
		return nil, newError("NOT_FOUND", "not found: "+r.URL.Path)
	})).ServeHTTP)
	r.MethodNotAllowed(opts.Wrap(answer(func(r *http.Request) (any, *apiError) {
		return nil, newError("METHOD_NOT_ALLOWED", "method "+r.Method+" is not allowed on "+r.URL.Path)
	})).ServeHTTP)
	for _, e := range []endpoint{
		{"/server", 200, h.listServers},
		{"/server/{server-number}", 200, h.getServer},
		{"/reset", 500, h.listResets},
		{"/reset/{server-number}", 500, h.getReset},
	} {
		h.hourly["GET "+e.pattern] = e.perHour
		r.Get(e.pattern, h.limited("GET "+e.pattern, opts.Wrap(answer(e.serve))))
	}
	h.router = r
	return h
}

// ServeHTTP refuses blocked client IPs and wrong credentials, then serves.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p) // a fault dropped the connection
			}
			newError("INTERNAL_ERROR", fmt.Sprintf("internal error in fakecloud: %v", p)).write(w)
		}
	}()
	ip := clientIP(r)
	// A blocked IP gets the webservice's only login error, 401
	// UNAUTHORIZED, whatever it sends: the documentation names no error
	// of its own for the block, so a client cannot tell the block from a
	// wrong password.
	if until, blocked := h.logins.blockedUntil(ip); blocked {
		newError("UNAUTHORIZED", fmt.Sprintf("unauthorized: %d failed logins from %s; blocked until %s",
			maxFailedLogins, ip, until.UTC().Format(time.RFC3339))).write(w)
		return
	}
	if !h.authorized(r) {
		h.logins.fail(ip)
		newError("UNAUTHORIZED", "unauthorized").write(w)
		return
	}
	h.router.ServeHTTP(w, r)
}

func (h *Handler) authorized(r *http.Request) bool {
	user, password, ok := r.BasicAuth()
	return ok && subtle.ConstantTimeCompare([]byte(user), []byte(h.opts.User)) == 1 &&
		subtle.ConstantTimeCompare([]byte(password), []byte(h.opts.Password)) == 1
}

func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// limited counts a request against the user's limit of the endpoint and
// refuses it with 403 RATE_LIMIT_EXCEEDED when the limit is spent.
func (h *Handler) limited(name string, next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user, _, _ := r.BasicAuth()
		if h.limits != nil && !h.limits.take(user, name, h.hourly[name]) {
			h.rateLimitError(name).write(w)
			return
		}
		next.ServeHTTP(w, r)
	}
}

// rateLimitError is the 403 answer of a spent limit: the webservice
// documentation's "Errors" section adds max_request and interval.
func (h *Handler) rateLimitError(name string) *apiError {
	e := newError("RATE_LIMIT_EXCEEDED", "rate limit exceeded")
	e.MaxRequest, e.Interval = h.hourly[name], 3600
	if h.limits != nil {
		e.MaxRequest, e.Interval = h.limits.limit(h.hourly[name]), int(h.limits.interval.Seconds())
	}
	return e
}

// answer encodes what an endpoint returns, or its error.
func answer(serve func(r *http.Request) (any, *apiError)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, aerr := serve(r)
		if aerr != nil {
			aerr.write(w)
			return
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			newError("INTERNAL_ERROR", "encode response: "+err.Error()).write(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(buf.Bytes())
	})
}

// Template is the route a request matches ("/server/{server-number}"),
// without the prefix, or "" for a path no route serves.
func (h *Handler) Template(r *http.Request) string {
	path, ok := strings.CutPrefix(r.URL.Path, h.opts.Prefix)
	rctx := chi.NewRouteContext()
	if !ok || !h.router.Match(rctx, r.Method, path) {
		return ""
	}
	return rctx.RoutePattern()
}

// WriteError answers with the webservice's error envelope: code (or the
// usual code of status), and for RATE_LIMIT_EXCEEDED the limit of the
// request's endpoint. Fault rules answer with it.
func (h *Handler) WriteError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	if code == "" {
		code = CodeOfStatus(status)
	}
	e := &apiError{Status: status, Code: code, Message: message}
	if code == "RATE_LIMIT_EXCEEDED" {
		name := "GET /server"
		if t := h.Template(r); t != "" {
			name = r.Method + " " + t
		}
		limit := h.rateLimitError(name)
		e.MaxRequest, e.Interval = limit.MaxRequest, limit.Interval
	}
	if code == "INVALID_INPUT" {
		var none []string
		e.Missing, e.Invalid = &none, &none
	}
	e.write(w)
}

// Usage lists what each user has spent of each endpoint's limit.
func (h *Handler) Usage() []Usage {
	if h.limits == nil {
		return []Usage{}
	}
	return h.limits.usage(h.hourly)
}

// Blocks lists the client IPs blocked after failed logins.
func (h *Handler) Blocks() []Block { return h.logins.blocks() }

// ClearLimits forgets every counted request, failed login and block.
func (h *Handler) ClearLimits() {
	if h.limits != nil {
		h.limits.clear()
	}
	h.logins.clear()
}

// parseNumber reads a server number: decimal digits only.
func parseNumber(s string) (int64, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
