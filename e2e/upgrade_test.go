//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
)

var (
	helm3   = flag.String("helm3", os.Getenv("E2E_HELM3"), "a Helm 3 binary (scripts/helm.sh)")
	helm4   = flag.String("helm4", os.Getenv("E2E_HELM4"), "a Helm 4 binary (HELM_VERSION=v4.3.1 scripts/helm.sh)")
	kubectl = flag.String("kubectl", os.Getenv("E2E_KUBECTL"), "a kubectl binary; default: the one in -control-bin")
)

// Placeholders in an upgrade's commands.
const (
	officialChart = "{official-chart}" // the official chart v1.35.0
	ourChart      = "{chart}"          // deploy/chart
	userValues    = "{values}"         // helm get values of the release, as the migration guide says
)

// The official CCM's install as of v1.35.0 (deploy/testdata/official/README.md).
const officialChartFile = "deploy/testdata/official/hcloud-cloud-controller-manager-1.35.0.tgz"

// upgrade is a way from the official CCM's install to this one and back,
// each step a list of commands: a tool (helm3, helm4, kubectl) and its
// arguments.
type upgrade struct {
	name                       string
	install, upgrade, rollback [][]string
	// What the objects must match after the upgrade and after the way
	// back: for Helm the charts rendered with set (the user's values),
	// for kubectl the two manifest files.
	set              []string
	ours, officialMF string
}

// deleteRollout is the migration guide's last step of the manifests' way back: the
// official manifests lack the rollout guard's Role, which kubectl leaves.
var deleteRollout = []string{"kubectl", "-n", "kube-system", "delete", "role,rolebinding", "hcloud-cloud-controller-manager-rollout"}

var upgrades = []upgrade{
	{name: "helm 3",
		install:  [][]string{{"helm3", "install", "hccm", officialChart}},
		upgrade:  [][]string{{"helm3", "upgrade", "hccm", ourChart, "-f", userValues}},
		rollback: [][]string{{"helm3", "rollback", "hccm", "1"}}},
	{name: "helm 4 server-side over a helm 3 install with networking",
		set:      []string{"networking.enabled=true"},
		install:  [][]string{{"helm3", "install", "hccm", officialChart, "--set", "networking.enabled=true"}},
		upgrade:  [][]string{{"helm4", "upgrade", "hccm", ourChart, "-f", userValues, "--server-side=true"}},
		rollback: [][]string{{"helm4", "rollback", "hccm", "1", "--server-side=true"}}},
	{name: "helm 4",
		install:  [][]string{{"helm4", "install", "hccm", officialChart}},
		upgrade:  [][]string{{"helm4", "upgrade", "hccm", ourChart, "-f", userValues}},
		rollback: [][]string{{"helm4", "rollback", "hccm", "1"}}},
	{name: "helm 4 DaemonSet",
		set:      []string{"kind=DaemonSet"},
		install:  [][]string{{"helm4", "install", "hccm", officialChart, "--set", "kind=DaemonSet"}},
		upgrade:  [][]string{{"helm4", "upgrade", "hccm", ourChart, "-f", userValues}},
		rollback: [][]string{{"helm4", "rollback", "hccm", "1"}}},
	{name: "kubectl apply", ours: "deploy/ccm.yaml", officialMF: "deploy/testdata/official/manifests-ccm.yaml",
		install:  [][]string{{"kubectl", "apply", "-f", "deploy/testdata/official/manifests-ccm.yaml"}},
		upgrade:  [][]string{{"kubectl", "apply", "-f", "deploy/ccm.yaml"}},
		rollback: [][]string{{"kubectl", "apply", "-f", "deploy/testdata/official/manifests-ccm.yaml"}, deleteRollout}},
	{name: "kubectl apply server-side with networking", ours: "deploy/ccm-networks.yaml", officialMF: "deploy/testdata/official/manifests-ccm-networks.yaml",
		install:  [][]string{{"kubectl", "apply", "--server-side", "-f", "deploy/testdata/official/manifests-ccm-networks.yaml"}},
		upgrade:  [][]string{{"kubectl", "apply", "--server-side", "-f", "deploy/ccm-networks.yaml"}},
		rollback: [][]string{{"kubectl", "apply", "--server-side", "-f", "deploy/testdata/official/manifests-ccm-networks.yaml"}, deleteRollout}},
	// As Flux and Argo CD do when they take over what was applied by hand.
	{name: "kubectl apply server-side over a client-side install", ours: "deploy/ccm.yaml", officialMF: "deploy/testdata/official/manifests-ccm.yaml",
		install:  [][]string{{"kubectl", "apply", "-f", "deploy/testdata/official/manifests-ccm.yaml"}},
		upgrade:  [][]string{{"kubectl", "apply", "--server-side", "-f", "deploy/ccm.yaml"}},
		rollback: [][]string{{"kubectl", "apply", "--server-side", "-f", "deploy/testdata/official/manifests-ccm.yaml"}, deleteRollout}},
}

// TestUpgradeFromTheOfficialCCM installs the official CCM with each tool
// on a fresh kube-apiserver, moves over to this one with the same tool,
// and back, checking after each step that the objects are exactly the
// target's (upgrade_check_test.go): nothing left behind, nothing missing.
func TestUpgradeFromTheOfficialCCM(t *testing.T) {
	tools := map[string]string{"helm3": *helm3, "helm4": *helm4, "kubectl": *kubectl}
	if tools["kubectl"] == "" && *controlBin != "" {
		tools["kubectl"] = filepath.Join(*controlBin, "kubectl")
	}
	for name, path := range tools {
		if path == "" {
			t.Fatalf("no %s: run make e2e, or set E2E_HELM3, E2E_HELM4 and E2E_KUBECTL", name)
		}
	}
	if *controlBin == "" {
		t.Fatal("no control plane binaries: run make e2e, or set E2E_CONTROL_BIN")
	}
	for _, u := range upgrades {
		t.Run(u.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			api, err := harness.StartAPIServer(ctx, dir, *controlBin)
			if err != nil {
				t.Fatal(err)
			}
			defer api.Stop()
			r := &runner{t: t, ctx: ctx, root: root(t), kubeconfig: api.AdminConf, tools: tools, dir: dir}
			official, ours := r.targets(u)
			r.steps(u.install)
			check(ctx, t, api, "the official install", official)
			r.steps(u.upgrade)
			check(ctx, t, api, "the upgrade", ours)
			r.steps(u.rollback)
			check(ctx, t, api, "the way back", official)
		})
	}
}

// runner runs an upgrade's commands from the repository's root.
type runner struct {
	t                     *testing.T
	ctx                   context.Context
	root, kubeconfig, dir string
	tools                 map[string]string
}

func (r *runner) steps(cmds [][]string) {
	for _, c := range cmds {
		r.run(c...)
	}
}

// run runs one command with its placeholders filled in and returns its
// standard output; a failure fails the test with the command's output.
func (r *runner) run(c ...string) []byte {
	r.t.Helper()
	args := []string{"--kubeconfig", r.kubeconfig}
	if c[0] != "kubectl" {
		args = append(args, "-n", "kube-system")
	}
	for _, a := range c[1:] {
		switch a {
		case officialChart:
			a = officialChartFile
		case ourChart:
			a = "deploy/chart"
		case userValues:
			a = r.values(c[0])
		}
		args = append(args, a)
	}
	cmd := exec.CommandContext(r.ctx, r.tools[c[0]], args...)
	cmd.Dir = r.root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("%s %s: %v\n%s%s", c[0], strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// values writes what `helm get values` says of the release to a file.
func (r *runner) values(tool string) string {
	out := r.run(tool, "get", "values", "hccm", "-o", "yaml")
	path := filepath.Join(r.dir, "values.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		r.t.Fatal(err)
	}
	return path
}

// targets are the objects of the official install and of this CCM's, as
// the case's charts render them or its manifests say.
func (r *runner) targets(u upgrade) (official, ours []runtime.Object) {
	if u.ours != "" {
		return r.decodeFile(u.officialMF), r.decodeFile(u.ours)
	}
	render := func(chart string, extra ...string) []runtime.Object {
		args := []string{"helm3", "template", "hccm", chart}
		for _, s := range u.set {
			args = append(args, "--set", s)
		}
		objs, err := harness.DecodeManifests(r.run(append(args, extra...)...))
		if err != nil {
			r.t.Fatal(err)
		}
		return objs
	}
	return render(officialChart), render(ourChart)
}

func (r *runner) decodeFile(path string) []runtime.Object {
	raw, err := os.ReadFile(filepath.Join(r.root, path))
	if err != nil {
		r.t.Fatal(err)
	}
	objs, err := harness.DecodeManifests(raw)
	if err != nil {
		r.t.Fatalf("%s: %v", path, err)
	}
	return objs
}
