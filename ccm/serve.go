package ccm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/component-base/metrics/legacyregistry"
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // workqueue_*, rest_client_*, leader_election_*, as dashboards of the official CCM read
	"k8s.io/klog/v2"
)

// server answers on HCLOUD_METRICS_ADDRESS whatever HCLOUD_METRICS_ENABLED
// says: /healthz and /livez (liveness: the work queues move, the leader
// still holds its lease), /readyz (the provider is built, the apiserver
// and the cloud answer; health.go), and /metrics when metrics are on. No path needs
// authentication, so probes work with no RBAC and no certificates.
type server struct {
	addr   net.Addr
	ready  atomic.Bool
	checks checks
}

// serve listens on addr until ctx ends. reg, when not nil, holds the
// hcloud_* metrics; the Kubernetes libraries' registry (Go, process,
// workqueue, client, leader election) is served beside it. A busy address
// is an error at start, not a silent absence of probes.
func serve(ctx context.Context, addr string, reg *prometheus.Registry) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("HCLOUD_METRICS_ADDRESS=%q: %w", addr, err)
	}
	s := &server{addr: ln.Addr()}
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
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
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
