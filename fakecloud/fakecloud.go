package fakecloud

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"golang.org/x/net/publicsuffix"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/faults"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/journal"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/ratelimit"
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
	rejected *rejectLog // limits the log lines of rejected requests
	api      chi.Router // the API's routes, for naming request templates
	handler  http.Handler
	tokMu    sync.RWMutex
	tokens   map[string]bool // token -> may write; AddToken and RevokeToken change it
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
	name     string // a further project's name; empty for the default one
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
		faults: faults.New(opts.IDSeed, opts.Now, codeStatus), rec: journal.New(opts.JournalSize), rejected: newRejectLog()}
	s.faults.KnowCommands(world.Commands())
	s.world = world.New(world.Config{Now: opts.Now, ActionDuration: opts.ActionDuration, ActionPolls: opts.ActionPolls,
		IDSeed: opts.IDSeed, Realism: opts.Realism, ActionFault: s.faults.ForAction, PublicSuffix: publicsuffix.PublicSuffix})
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
