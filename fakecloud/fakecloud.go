package fakecloud

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/faults"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/journal"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/ratelimit"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/world"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/lbtraffic"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/robot"
)

// DefaultToken is the Bearer token accepted when Options.Tokens is empty. It
// is 64 characters long, like a real Hetzner token, so tools that check the
// length accept it.
const DefaultToken = "fakefakefakefakefakefakefakefakefakefakefakefakefakefakefakefake"

// DefaultRobotUser and DefaultRobotPassword are the Robot webservice's
// login when Options.RobotUser is empty.
const (
	DefaultRobotUser = robot.DefaultUser
	// MaxRateLimitRefill is the fastest refill accepted, in requests per second.
	MaxRateLimitRefill   = ratelimit.MaxRefill
	DefaultRobotPassword = robot.DefaultPassword
)

// Options configure a fakecloud. The zero value is ready for unit tests:
// actions finish at once, the default token is accepted, the rate limit is
// the API's 3600 requests per hour.
type Options struct {
	// Tokens are accepted as "Authorization: Bearer <token>" with read and
	// write access. Empty means DefaultToken, also when ReadOnlyTokens
	// are set.
	Tokens []string
	// ReadOnlyTokens may only GET; writes answer 403 forbidden.
	ReadOnlyTokens []string
	// Projects are further projects, by name, each with its read and
	// write tokens: a token sees only its project's world, catalogue,
	// rate limit bucket, actions, faults, journal and counters, as a
	// token of the live API sees one project. Tokens and ReadOnlyTokens
	// are the default project's.
	Projects map[string][]string

	// ActionDuration is how long an action stays running. Zero finishes
	// actions within the request that starts them.
	ActionDuration time.Duration
	// ActionPolls, when positive, makes an action finish on the Nth time a
	// client reads it, whatever the clock says.
	ActionPolls int

	// RateLimit is the bucket size in requests (default 3600); negative
	// turns rate limiting off.
	RateLimit int
	// RateLimitRefill is requests added back per second (default
	// RateLimit/3600, the API's one per second).
	RateLimitRefill float64

	// IDSeed makes IDs, IP addresses and passwords repeatable: the same seed
	// and the same requests give the same world.
	IDSeed uint64

	// Now is the clock (default time.Now); tests may set their own.
	Now func() time.Time
	// Logger receives one record per request (default: discarded).
	Logger *slog.Logger
	// Middleware wraps the API handler after authentication and fault
	// rules, in order, so the first is outermost.
	Middleware []func(http.Handler) http.Handler

	// AdminToken, when set, is the Bearer token of the admin API under
	// /_fakecloud/; when empty the admin API answers loopback clients only.
	AdminToken string
	// LoadBalancerIPv4Range, when set, makes load balancers carry traffic:
	// their public IPv4 addresses come from this range, which must be
	// local to the host (on Linux all of 127.0.0.0/8 is), and each service
	// listens there and forwards to the targets its health checks pass.
	LoadBalancerIPv4Range netip.Prefix
	// LoadBalancerDial replaces how that traffic reaches targets (default
	// a plain dial of the target's address).
	LoadBalancerDial func(ctx context.Context, network, addr string) (net.Conn, error)

	// Realism says how to read what the API's documentation leaves open
	// (default optimistic; see Realism).
	Realism Realism

	// JournalSize is how many requests the journal keeps (default 10000).
	JournalSize int

	// RobotUser and RobotPassword are the login of the Robot webservice
	// under /robot (default DefaultRobotUser and DefaultRobotPassword).
	RobotUser, RobotPassword string
	// RobotRateLimitScale multiplies the webservice's hourly limits per
	// endpoint (GET /server 200, GET /reset 500, ...); 0 means 1, a
	// negative value turns them off.
	RobotRateLimitScale float64
	// RobotRateLimitInterval is the window those limits count in
	// (default an hour).
	RobotRateLimitInterval time.Duration
}

// Server is a running simulated Hetzner Cloud. It is an http.Handler serving
// the API under /v1 (and /, as some clients use a bare base URL).
type Server struct {
	opts     Options
	world    *world.State
	limiter  *ratelimit.Bucket
	faults   *faults.Set
	rec      *journal.Recorder
	api      chi.Router // the API's routes, for naming request templates
	handler  http.Handler
	tokens   map[string]bool // token -> may write
	closing  chan struct{}   // closed by Close: hung requests end
	closed   sync.Once
	mu       sync.Mutex  // guards seed and schedule
	seed     *World      // the last world seeded, for ResetToSeed
	schedule []scheduled // scenario steps waiting for their time, soonest first
	traffic  *lbtraffic.Plane
	robot    *robot.Handler // the Robot webservice under /robot
	// stateFile writes the state file, when there is one.
	stateFile atomic.Pointer[StateFile]
	// projects are the further projects, by name, and byToken each of
	// their tokens' project; each is a Server of its own, without a
	// state file, traffic, metadata service or Robot webservice.
	projects map[string]*Server
	byToken  map[string]*Server
}

// Check refuses options no fakecloud can run with, naming each: a refill
// rate or a Robot limit scale that is not a finite number in range, or a
// Robot login that HTTP basic authentication cannot carry.
func (o Options) Check() error {
	var errs []error
	if o.RateLimitRefill > 0 || math.IsNaN(o.RateLimitRefill) {
		if err := ratelimit.CheckRefill(o.RateLimitRefill); err != nil {
			errs = append(errs, fmt.Errorf("RateLimitRefill: %w", err))
		}
	}
	if err := (robot.Options{User: o.RobotUser, Password: o.RobotPassword, RateLimitScale: o.RobotRateLimitScale}).Check(); err != nil {
		errs = append(errs, fmt.Errorf("robot login or limits: %w", err))
	}
	return errors.Join(append(errs, o.checkProjects()...)...)
}

// DefaultProject is the name of the project of Options.Tokens.
const DefaultProject = "default"

// checkProjects refuses a project without a name or a token, a name that
// is not a simple word, and a token given to two projects.
func (o Options) checkProjects() []error {
	var errs []error
	owner := map[string]string{}
	for _, t := range append(append([]string{}, o.Tokens...), o.ReadOnlyTokens...) {
		owner[t] = DefaultProject
	}
	if len(o.Tokens) == 0 {
		owner[DefaultToken] = DefaultProject
	}
	for _, name := range slices.Sorted(maps.Keys(o.Projects)) {
		if name == DefaultProject || !projectNameRe.MatchString(name) {
			errs = append(errs, fmt.Errorf("project %q: a name is letters, digits, - and _, at most 64, and not %q", name, DefaultProject))
		}
		if len(o.Projects[name]) == 0 {
			errs = append(errs, fmt.Errorf("project %q: has no token", name))
		}
		for _, t := range o.Projects[name] {
			if other, taken := owner[t]; taken && other != name {
				errs = append(errs, fmt.Errorf("project %q: a token of it is project %q's too; a token belongs to one project", name, other))
			}
			owner[t] = name
		}
	}
	return errs
}

var projectNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// New returns a fakecloud with an empty world and the seeded catalogue.
// It panics on options Check refuses: a program error, as a bad pattern
// is to regexp.MustCompile.
func New(opts Options) *Server {
	if err := opts.Check(); err != nil {
		panic("fakecloud.New: " + err.Error())
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, tokens: map[string]bool{}, closing: make(chan struct{}),
		faults: faults.New(opts.IDSeed, opts.Now, codeStatus), rec: journal.New(opts.JournalSize)}
	s.faults.KnowCommands(world.Commands())
	s.world = world.New(world.Config{Now: opts.Now, ActionDuration: opts.ActionDuration, ActionPolls: opts.ActionPolls,
		IDSeed: opts.IDSeed, Realism: opts.Realism, ActionFault: s.faults.ForAction})
	if len(opts.Tokens) == 0 {
		s.tokens[DefaultToken] = true
	}
	for _, t := range opts.ReadOnlyTokens {
		s.tokens[t] = false
	}
	for _, t := range opts.Tokens {
		s.tokens[t] = true
	}
	if opts.RateLimit >= 0 {
		limit := opts.RateLimit
		if limit == 0 {
			limit = 3600
		}
		refill := opts.RateLimitRefill
		if refill <= 0 {
			refill = float64(limit) / 3600
		}
		s.limiter = ratelimit.New(limit, refill, opts.Now)
	}
	s.robot = robot.New(robot.Options{User: opts.RobotUser, Password: opts.RobotPassword, Servers: s.world.DedicatedServers, Now: opts.Now,
		RateLimitScale: opts.RobotRateLimitScale, RateLimitInterval: opts.RobotRateLimitInterval, Prefix: robotPrefix, Wrap: s.injectRobotFaults})
	s.projects, s.byToken = map[string]*Server{}, map[string]*Server{}
	for _, name := range slices.Sorted(maps.Keys(opts.Projects)) {
		p := newProject(opts, name)
		s.projects[name] = p
		for _, t := range opts.Projects[name] {
			s.byToken[t] = p
		}
	}
	s.handler = limitURI(s.dispatch(s.routes()))
	if opts.LoadBalancerIPv4Range.IsValid() {
		s.startTraffic()
	}
	return s
}

// newProject is a further project: a Server of its own with the
// project's tokens and the same settings, its IDs and passwords seeded
// apart from the default project's. It carries no traffic and has no
// state file, metadata service or Robot webservice: those are the
// default project's.
func newProject(opts Options, name string) *Server {
	o := opts
	o.Tokens, o.ReadOnlyTokens, o.Projects = opts.Projects[name], nil, nil
	o.LoadBalancerIPv4Range, o.LoadBalancerDial = netip.Prefix{}, nil
	h := fnv.New64a()
	h.Write([]byte(name))
	o.IDSeed = opts.IDSeed ^ h.Sum64()
	return New(o)
}

// Project is the further project of the name (Options.Projects), to
// script as a Server; false for a name there is none of.
// DefaultProject is the Server itself.
func (s *Server) Project(name string) (*Server, bool) {
	if name == DefaultProject || name == "" {
		return s, true
	}
	p, ok := s.projects[name]
	return p, ok
}

// Projects lists the projects' names: the default one first, then the
// others in order.
func (s *Server) Projects() []string {
	return append([]string{DefaultProject}, slices.Sorted(maps.Keys(s.projects))...)
}

// ServeHTTP serves the API, the admin API and /metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// Close ends requests that a fault holds (hang, latency) by closing their
// connections without an answer, so an HTTP server can shut down and no
// client takes a held request for a success. The Server must not be used
// afterwards.
func (s *Server) Close() {
	s.closed.Do(func() {
		close(s.closing)
		if s.traffic != nil {
			s.traffic.Close()
		}
		for _, p := range s.projects {
			p.Close()
		}
	})
}

// dispatch hands an API request bearing a further project's token to that
// project; the rest (the default project's, the admin API, the metadata
// service, the Robot webservice and /metrics) is this Server's.
func (s *Server) dispatch(next http.Handler) http.Handler {
	if len(s.byToken) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := s.byToken[wire.Bearer(r)]; ok && !ownPath(r.URL.Path) {
			p.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownPath reports whether a path is the default project's whatever the
// token: the admin API, the metadata service, the Robot webservice and
// the metrics.
func ownPath(path string) bool {
	for _, prefix := range []string{"/_fakecloud", "/metadata", robotPrefix, "/metrics"} {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}
