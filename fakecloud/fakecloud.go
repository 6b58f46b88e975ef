package fakecloud

import (
	"net/http"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/fidelity"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/hcloudapi"
)

// DefaultToken is the Bearer token accepted when Options.Tokens is empty. It
// is 64 characters long, like a real Hetzner token, so tools that check the
// length accept it.
const DefaultToken = hcloudapi.DefaultToken

// DefaultRobotUser and DefaultRobotPassword are the Robot webservice's
// login when Options.RobotUser is empty.
const (
	DefaultRobotUser     = hcloudapi.DefaultRobotUser
	DefaultRobotPassword = hcloudapi.DefaultRobotPassword
)

// MaxRateLimitRefill is the fastest refill Options.RateLimitRefill and
// SetRateLimit accept, in requests per second.
const MaxRateLimitRefill = hcloudapi.MaxRateLimitRefill

// Fidelity names the Hetzner Cloud API fakecloud simulates: the OpenAPI
// description, the last changelog entry it follows, and the day its
// catalogue was compared with the public record.
type Fidelity = fidelity.API

// SimulatedAPI is the API this fakecloud is faithful to.
func SimulatedAPI() Fidelity { return fidelity.Simulated }

// Options configure a fakecloud. The zero value is ready for unit tests:
// actions finish at once, the default token is accepted, the rate limit is
// the API's 3600 requests per hour.
type Options = hcloudapi.Options

// Server is a running simulated Hetzner Cloud. It is an http.Handler serving
// the API under /v1 (and /, as some clients use a bare base URL).
type Server struct{ s *hcloudapi.Server }

// New returns a fakecloud with an empty world and the seeded catalogue.
func New(opts Options) *Server { return &Server{hcloudapi.New(opts)} }

// ServeHTTP serves the API, the admin API and /metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.s.ServeHTTP(w, r) }

// Close ends requests that a fault holds (hang, latency) by closing their
// connections without an answer, so an HTTP server can shut down and no
// client takes a held request for a success. The Server must not be used
// afterwards.
func (s *Server) Close() { s.s.Close() }
