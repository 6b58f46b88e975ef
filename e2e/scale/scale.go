// Package scale runs the real ccm binary against a real control plane and
// fakecloud with many Nodes and load balancers, phase by phase, and
// measures what each phase costs: cloud requests (fakecloud's counters),
// wall time, and the CCM's peak memory and CPU time. make scale runs it.
package scale

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// Config is one run's setting.
type Config struct {
	Nodes    int // Nodes registered at once, one server each
	Services int // LoadBalancer Services
	NotReady int // Nodes NotReady at once in the "many" phase
	Pool     int // Nodes the load balancers target (a Hetzner load balancer holds 25 to 150)
	// Dedicated Nodes run on dedicated (Robot) servers of fakecloud's
	// Robot webservice, the hybrid setting; 0: none.
	Dedicated int

	// Speed runs the CCM's clocks this many times faster: its status
	// period, node monitor period and inventory ages are divided by it,
	// and so are the rate windows. Rates are per hour of that clock.
	Speed  float64
	Window time.Duration // each rate window at speed 1; 5m covers one status period

	ActionDuration time.Duration // how long fakecloud's actions run

	Root       string // the repository: bin/ccm, bin/fakecloud, deploy/ccm.yaml
	ControlBin string // etcd and kube-apiserver
	Dir        string // working directory, kept when the run fails
	Keep       bool   // keep it anyway, with each phase's journal of requests
	Log        io.Writer
}

// Defaults are the full setting.
func Defaults() Config {
	return Config{Nodes: 1000, Services: 100, NotReady: 50, Pool: 20, Speed: 1, Window: 5 * time.Minute, ActionDuration: time.Second}
}

// periods are the CCM's default clocks at speed 1.
const (
	statusPeriod      = 5 * time.Minute
	monitorPeriod     = 5 * time.Second
	inventoryMaxAge   = 5 * time.Minute
	lifecycleMaxAge   = time.Minute
	heartbeatAtSpeed1 = time.Minute
	robotCacheTimeout = 5 * time.Minute // ROBOT_CACHE_TIMEOUT's and ROBOT_RATE_LIMIT_WAIT_TIME's default
)

func (c Config) scaled(d time.Duration) time.Duration { return time.Duration(float64(d) / c.Speed) }

func (c Config) check() error {
	switch {
	case c.Nodes < 4:
		return fmt.Errorf("nodes: %d; at least 4", c.Nodes)
	case c.Services < 1:
		return fmt.Errorf("services: %d; at least 1", c.Services)
	case c.Pool < 2 || c.Pool > c.Nodes-2:
		return fmt.Errorf("pool: %d; between 2 and nodes-2 (%d)", c.Pool, c.Nodes-2)
	case c.NotReady < 1 || c.Pool+c.NotReady > c.Nodes-1:
		return fmt.Errorf("not-ready: %d; between 1 and nodes-pool-1 (%d): NotReady Nodes are taken after the pool, and the last Node is deleted", c.NotReady, c.Nodes-c.Pool-1)
	case c.Dedicated < 0 || c.Dedicated > 250 || c.Pool+c.NotReady+c.Dedicated > c.Nodes-1:
		return fmt.Errorf("dedicated: %d; between 0 and 250, and at most nodes-pool-not-ready-1 (%d): dedicated Nodes are the last but one", c.Dedicated, c.Nodes-c.Pool-c.NotReady-1)
	case c.Speed < 1:
		return fmt.Errorf("speed: %g; 1 or more", c.Speed)
	case c.Window < time.Minute:
		return fmt.Errorf("window: %s; a minute or more", c.Window)
	}
	return nil
}

// Run brings the system up, runs every phase and returns the report. The
// working directory is removed when everything ran.
func Run(ctx context.Context, c Config) (*Report, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	world := filepath.Join(c.Dir, "world.yaml")
	if err := writeWorld(world, c); err != nil {
		return nil, err
	}
	r := &runner{cfg: c, started: time.Now(), report: Report{Config: c}}
	r.logf("starting etcd, kube-apiserver, fakecloud (%d servers, %d dedicated) and the CCM in %s", c.Nodes+2-c.Dedicated, c.Dedicated, c.Dir)
	ccmEnv := []string{
		"HCLOUD_LOAD_BALANCERS_LOCATION=fsn1",
		// A network holds at most 100 routes; at this size pods are
		// routed another way, as the official CCM's users do.
		"HCLOUD_NETWORK_ROUTES_ENABLED=false",
		"HCLOUD_INVENTORY_MAX_AGE=" + c.scaled(inventoryMaxAge).String(),
		"HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE=" + c.scaled(lifecycleMaxAge).String(),
	}
	fakecloudArgs := []string{"--action-duration=" + c.ActionDuration.String(), "--log-level=warn"}
	if c.Dedicated > 0 {
		// The Robot settings' defaults, and the webservice's hourly limits,
		// on the run's clock.
		ccmEnv = append(ccmEnv, "ROBOT_ENABLED=true", "ROBOT_USER="+fakecloud.DefaultRobotUser, "ROBOT_PASSWORD="+fakecloud.DefaultRobotPassword,
			"ROBOT_CACHE_TIMEOUT="+c.scaled(robotCacheTimeout).String(), "ROBOT_RATE_LIMIT_WAIT_TIME="+c.scaled(robotCacheTimeout).String())
		fakecloudArgs = append(fakecloudArgs, "--robot-rate-limit-interval="+c.scaled(time.Hour).String())
	}
	env, err := harness.Start(ctx, harness.Options{
		Dir: c.Dir, ControlBin: c.ControlBin, CCM: filepath.Join(c.Root, "bin/ccm"), FakeCloud: filepath.Join(c.Root, "bin/fakecloud"),
		Manifests: filepath.Join(c.Root, "deploy/ccm.yaml"), World: world, Network: "cluster", Metadata: nodeName(1),
		FakeCloudArgs: fakecloudArgs,
		CCMArgs: []string{
			"--node-status-update-frequency=" + c.scaled(statusPeriod).String(),
			"--node-monitor-period=" + c.scaled(monitorPeriod).String(),
		},
		CCMEnv:    ccmEnv,
		Heartbeat: c.scaled(heartbeatAtSpeed1),
		AdminQPS:  1000,
	})
	if err != nil {
		return nil, fmt.Errorf("starting the system: %w", err)
	}
	defer env.Stop()
	r.env, r.cloud = env, env.Cloud()
	r.logf("up in %s", time.Since(r.started).Round(time.Millisecond))
	if r.watch, err = startWatch(ctx, env.Kube); err != nil {
		return nil, err
	}
	defer r.watch.stop()
	for _, p := range r.phases() {
		if err := p(ctx); err != nil {
			return nil, fmt.Errorf("%w (logs in %s)", err, c.Dir)
		}
	}
	env.Stop()
	if c.Keep {
		r.logf("logs and each phase's requests (journal-*.json) kept in %s", c.Dir)
		return &r.report, nil
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		return nil, err
	}
	return &r.report, nil
}

// runner holds the running system and the report being written.
type runner struct {
	cfg     Config
	started time.Time
	env     *harness.Env
	cloud   *harness.Cloud
	pid     int
	metrics string // the CCM's health and metrics address
	watch   *watch
	report  Report
}

// startCCM starts the one CCM replica, as the Deployment runs it.
func (r *runner) startCCM(ctx context.Context) error {
	i, err := r.env.StartCCM(ctx)
	if err != nil {
		return fmt.Errorf("starting the CCM: %w (its log: %s)", err, r.env.CCMLog(0))
	}
	r.pid, r.metrics = r.env.CCMPID(i), r.env.CCMHTTP(i)
	return nil
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "==> [%s] %s\n", time.Since(r.started).Round(time.Second), fmt.Sprintf(format, args...))
	}
}
