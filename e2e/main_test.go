//go:build e2e

// The end-to-end scenarios: the ccm binary against kube-apiserver and
// etcd built from source, and fakecloud. make e2e builds what is missing
// and runs them.
package e2e

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
)

var (
	controlBin = flag.String("control-bin", os.Getenv("E2E_CONTROL_BIN"), "directory with etcd and kube-apiserver")
	// realism is fakecloud's --realism: make e2e runs the node and load
	// balancer scenarios once more with pessimistic.
	realism = flag.String("realism", os.Getenv("E2E_REALISM"), "fakecloud's --realism: optimistic (default) or pessimistic")
)

// root is the repository, two levels up from this package when run by go test.
func root(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// setup starts the system with the e2e world and, unless noCCM, one CCM.
// A failed test keeps the working directory and prints where the logs are.
func setup(t *testing.T, configure ...func(*harness.Options)) *harness.Env {
	t.Helper()
	if *controlBin == "" {
		t.Fatal("no control plane binaries: run make e2e, or set E2E_CONTROL_BIN to the directory scripts/build-control-plane.sh prints")
	}
	start := time.Now()
	r := root(t)
	dir, err := os.MkdirTemp("", "hcloud-ccm-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	o := harness.Options{Dir: dir, ControlBin: *controlBin, CCM: filepath.Join(r, "bin/ccm"), FakeCloud: filepath.Join(r, "bin/fakecloud"),
		Manifests: filepath.Join(r, "deploy/ccm.yaml"), World: filepath.Join(r, "testdata/worlds/e2e.yaml"), Network: "cluster",
		Metadata: "control-plane-1", FakeCloudArgs: []string{"--action-duration=200ms"},
		CCMArgs: []string{"--leader-elect=false", "--route-reconciliation-period=2s", "--node-monitor-period=2s"},
		CCMEnv:  []string{"HCLOUD_LOAD_BALANCERS_LOCATION=fsn1", "HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE=5s"}}
	if *realism != "" {
		o.FakeCloudArgs = append(o.FakeCloudArgs, "--realism="+*realism)
	}
	for _, f := range configure {
		f(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := harness.Start(ctx, o)
	t.Cleanup(func() {
		if env != nil {
			env.Stop()
			// The CCMs run as deploy/ccm.yaml's ServiceAccount: a refusal
			// means its role is not sufficient.
			forbidden, err := env.Forbidden()
			if err != nil {
				t.Error(err)
			}
			for _, line := range forbidden {
				t.Errorf("the CCM was refused: %s", line)
			}
		}
		if t.Failed() {
			t.Logf("logs kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	if err != nil {
		t.Fatalf("starting the system: %v", err)
	}
	t.Logf("system up in %s (%s)", time.Since(start).Round(time.Millisecond), dir)
	return env
}

// timed logs how long a scenario step took, so regressions show.
func timed(t *testing.T, what string) func() {
	start := time.Now()
	return func() { t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond)) }
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(m.Run())
}
