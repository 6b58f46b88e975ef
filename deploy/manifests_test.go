package deploy

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

var update = flag.Bool("update", false, "rewrite ccm.yaml, ccm-networks.yaml and ccm-webhook.yaml from the chart (make manifests)")

// What the official chart renders and an upgrade from it to this chart
// keeps (hetznercloud/hcloud-cloud-controller-manager, chart/).
const (
	// The Deployment, DaemonSet, ServiceAccount and PodMonitor.
	officialName = "hcloud-cloud-controller-manager"
	// The ClusterRole; up to v1.27 the chart bound cluster-admin instead.
	officialClusterRole = "system:hcloud-cloud-controller-manager"
	// The Lease of leader election, the cloud-provider default, in kube-system.
	officialLease = "cloud-controller-manager"
	// The release the tests install, as the official README names it.
	release = "hccm"
)

// The official chart's ClusterRoleBinding since v1.28, bound to its own
// ClusterRole (up to v1.27 "system:hcloud-cloud-controller-manager" bound
// cluster-admin).
const officialBinding = "system:hcloud-cloud-controller-manager:restricted"

// manifests are the plain manifests rendered from the chart, each with the
// flags beyond manifestFlags.
var manifests = []struct {
	file  string
	flags []string
}{
	{"ccm.yaml", nil},
	{"ccm-networks.yaml", []string{"--set", "networking.enabled=true"}},
	{"ccm-webhook.yaml", []string{"--set", "webhook.enabled=true"}},
}

// manifestFlags are in every plain manifest's render: the official plain
// manifests' selector.
var manifestFlags = []string{"-f", "manifests-values.yaml"}

// header heads a plain manifest: how it was made and what it leaves out.
func header(flags []string) string {
	var b strings.Builder
	b.WriteString("# Generated from deploy/chart by `make manifests`; do not edit: change the\n")
	b.WriteString("# chart (or deploy/manifests-values.yaml) and run it again. In deploy/ it runs\n")
	fmt.Fprintf(&b, "#   helm template %s ./chart --namespace kube-system %s\n", release, strings.Join(append(slices.Clone(manifestFlags), flags...), " "))
	b.WriteString("# with helm from scripts/helm.sh. The Secret \"hcloud\" is not in here; create it\n")
	b.WriteString("# first, before kubectl apply -f of this file:\n")
	b.WriteString("#   kubectl -n kube-system create secret generic hcloud --from-literal=token=<API token>")
	if slices.Contains(flags, "networking.enabled=true") {
		b.WriteString(" \\\n#     --from-literal=network=<network name or ID>")
	}
	b.WriteString("\n")
	return b.String()
}

// TestManifests: ccm.yaml and ccm-networks.yaml are the chart's render;
// with -update it writes them.
func TestManifests(t *testing.T) {
	for _, m := range manifests {
		t.Run(m.file, func(t *testing.T) {
			out, err := render(t, append(slices.Clone(manifestFlags), m.flags...)...)
			if err != nil {
				t.Fatal(err)
			}
			got := append([]byte(header(m.flags)), out...)
			if *update {
				if err := os.WriteFile(m.file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(m.file)
			if err != nil {
				t.Fatal(err)
			}
			if d := drift(want, got); d != "" {
				t.Errorf("deploy/%s differs from the chart's render (-file +render):\n%s\nrun make manifests", m.file, d)
			}
		})
	}
}

// drift is the difference between a manifest file and a render, "" when
// there is none: the lines only the file has (-) and only the render has
// (+), each with its line number, from a longest common subsequence.
func drift(file, rendered []byte) string {
	a, b := strings.Split(string(file), "\n"), strings.Split(string(rendered), "\n")
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&out, "-%4d %s\n", i+1, a[i])
			i++
		default:
			fmt.Fprintf(&out, "+%4d %s\n", j+1, b[j])
			j++
		}
	}
	return out.String()
}

// TestDriftDetected: a changed file, or a changed render, is drift.
func TestDriftDetected(t *testing.T) {
	out, err := render(t, manifestFlags...)
	if err != nil {
		t.Fatal(err)
	}
	file := append([]byte(header(nil)), out...)
	if d := drift(file, file); d != "" {
		t.Fatalf("identical files drift:\n%s", d)
	}
	edited := bytes.Replace(file, []byte("--route-reconciliation-period=30s"), []byte("--route-reconciliation-period=10s"), 1)
	if bytes.Equal(edited, file) {
		t.Fatal("the render has no --route-reconciliation-period=30s to change")
	}
	d := drift(edited, file)
	if !strings.Contains(d, "--route-reconciliation-period=10s") || !strings.Contains(d, "--route-reconciliation-period=30s") ||
		strings.Count(d, "\n") != 2 {
		t.Errorf("an edited line is not one line out and one in:\n%s", d)
	}
	if d := drift(file, file[:len(file)-1]); d == "" {
		t.Error("a shorter render is no drift")
	}
}

// TestPlainManifests: what kubectl apply of the plain manifests over the
// official ones, and the e2e harness, rely on.
func TestPlainManifests(t *testing.T) {
	for _, m := range manifests {
		t.Run(m.file, func(t *testing.T) {
			raw, err := os.ReadFile(m.file)
			if err != nil {
				t.Fatal(err)
			}
			objs := decode(t, raw)
			noSecret(t, objs)
			d := one[*appsv1.Deployment](t, objs)
			if d.Name != officialName || d.Namespace != "kube-system" {
				t.Errorf("Deployment %s/%s, want kube-system/%s", d.Namespace, d.Name, officialName)
			}
			// The official plain manifests' selector, which cannot change.
			if diff := cmp.Diff(map[string]string{"app": officialName}, d.Spec.Selector.MatchLabels); diff != "" {
				t.Errorf("selector (-official +ours):\n%s", diff)
			}
			// kind/e2e finds the pods, and the anti-affinity spreads them, by this label.
			if got := d.Spec.Template.Labels["app.kubernetes.io/name"]; got != officialName {
				t.Errorf("pod label app.kubernetes.io/name=%q, want %q", got, officialName)
			}
			if got := one[*corev1.ServiceAccount](t, objs).Name; got != officialName {
				t.Errorf("ServiceAccount %q, want %q", got, officialName)
			}
			networks := slices.Contains(m.flags, "networking.enabled=true")
			webhook := slices.Contains(m.flags, "webhook.enabled=true")
			want := []string{"--allow-untagged-cloud", "--cloud-provider=hcloud", "--leader-elect-resource-namespace=kube-system",
				"--route-reconciliation-period=30s", "--secure-port=0"}
			if !webhook {
				want = append(want, "--webhook-secure-port=0")
			}
			if networks {
				want = append(want, "--allocate-node-cidrs=true", "--cluster-cidr=10.244.0.0/16")
			}
			want = append(want, "--leader-elect=true")
			if webhook {
				want = append(want, "--webhooks=service", "--webhook-secure-port=10260",
					"--webhook-cert-secret=kube-system/hcloud-cloud-controller-manager-webhook-tls",
					"--webhook-service=kube-system/hcloud-cloud-controller-manager-webhook", "--webhook-configuration=hcloud-cloud-controller-manager")
			}
			c := d.Spec.Template.Spec.Containers[0]
			if diff := cmp.Diff(want, c.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if got := d.Spec.Template.Spec.HostNetwork; got != networks {
				t.Errorf("hostNetwork %v, want %v", got, networks)
			}
			network := env(c, "HCLOUD_NETWORK")
			if networks != (network != nil) {
				t.Errorf("HCLOUD_NETWORK %+v with networking %v", network, networks)
			}
			if networks && (network.ValueFrom == nil || network.ValueFrom.SecretKeyRef == nil ||
				network.ValueFrom.SecretKeyRef.Name != "hcloud" || network.ValueFrom.SecretKeyRef.Key != "network") {
				t.Errorf("HCLOUD_NETWORK %+v, want the Secret hcloud's key network", network)
			}
		})
	}
}
