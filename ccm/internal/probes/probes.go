// Package probes serves the CCM's liveness and readiness probes and its
// metrics on one address, and holds the checks behind them: the cloud
// answers, the apiserver answers, the work queues move.
package probes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // workqueue_*, rest_client_*, leader_election_*, as dashboards of the official CCM read
	"k8s.io/klog/v2"
)

// Probe kinds: a failing liveness check gets the process restarted, a
// failing readiness check marks it not ready.
const (
	Liveness  = "liveness"
	Readiness = "readiness"
)

// check is one named probe check; nil means it passes.
type check struct {
	name string
	run  func(context.Context) error
}

// checks are the server's probe checks by kind.
type checks struct {
	mu   sync.Mutex
	kind map[string][]check
}

func (c *checks) add(kind, name string, run func(context.Context) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kind == nil {
		c.kind = map[string][]check{}
	}
	c.kind[kind] = append(c.kind[kind], check{name, run})
}

// serve answers a probe: 200 "ok", or 503 with a line per failing check.
func (c *checks) serve(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		list := append([]check(nil), c.kind[kind]...)
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		var failed []string
		for _, ch := range list {
			if err := ch.run(ctx); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", ch.name, err))
			}
		}
		if len(failed) > 0 {
			http.Error(w, strings.Join(failed, "\n"), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	}
}

// Server answers on HCLOUD_METRICS_ADDRESS whatever HCLOUD_METRICS_ENABLED
// says: /healthz and /livez (liveness: the work queues move, the leader
// still holds its lease), /readyz (the provider is built, the apiserver
// and the cloud answer; health.go), and /metrics when metrics are on. No path needs
// authentication, so probes work with no RBAC and no certificates.
type Server struct {
	addr   net.Addr
	ready  atomic.Bool
	checks checks
}

// Serve listens on addr until ctx ends. reg, when not nil, holds the
// hcloud_* metrics; the Kubernetes libraries' registry (Go, process,
// workqueue, client, leader election) is served beside it. A busy address
// is an error at start, not a silent absence of probes.
func Serve(ctx context.Context, addr string, reg *prometheus.Registry) (*Server, error) {
	return serve(ctx, addr, reg, listenerLimits)
}

// limits are how long the health and metrics port waits for a client.
type limits struct {
	header, read, write, idle time.Duration
}

// listenerLimits reap idle and slow connections: the port is open on
// every interface without authentication, as the official CCM's is. A
// probe or a scrape sends its request at once; /metrics is written well
// within the write limit.
var listenerLimits = limits{header: 5 * time.Second, read: 10 * time.Second, write: 30 * time.Second, idle: time.Minute}

func serve(ctx context.Context, addr string, reg *prometheus.Registry, l limits) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("HCLOUD_METRICS_ADDRESS=%q: %w", addr, err)
	}
	s := &Server{addr: ln.Addr()}
	mux := http.NewServeMux()
	s.checks.add(Readiness, "start", func(context.Context) error {
		if !s.ready.Load() {
			return errors.New("the first server listing has not finished")
		}
		return nil
	})
	mux.HandleFunc("/healthz", s.checks.serve(Liveness))
	mux.HandleFunc("/livez", s.checks.serve(Liveness))
	mux.HandleFunc("/readyz", s.checks.serve(Readiness))
	if reg != nil {
		g := prometheus.Gatherers{legacyregistry.DefaultGatherer, reg}
		mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorLog: klogLogger{}}))
	} else {
		mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "metrics are off (HCLOUD_METRICS_ENABLED=false)", http.StatusNotFound)
		})
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: l.header, ReadTimeout: l.read, WriteTimeout: l.write, IdleTimeout: l.idle,
		MaxHeaderBytes: 16 << 10}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "Health and metrics server stopped")
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	klog.InfoS("Serving health and metrics", "address", s.addr.String(), "metrics", reg != nil)
	return s, nil
}

// klogLogger reports gathering errors in the log.
type klogLogger struct{}

func (klogLogger) Println(v ...any) { klog.ErrorS(nil, "Gathering metrics", "error", fmt.Sprint(v...)) }

// Addr is where the server listens.
func (s *Server) Addr() net.Addr { return s.addr }

// SetReady ends the start check of readiness: ready once the provider is built.
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// Add adds a check to the probe of kind (Liveness or Readiness); nil
// from run means it passes.
func (s *Server) Add(kind, name string, run func(context.Context) error) {
	s.checks.add(kind, name, run)
}
