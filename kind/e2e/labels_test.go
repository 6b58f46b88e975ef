//go:build e2ekind

package e2e

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// serverLabelsOnNodes: helm upgrade turns the server label sync on (the
// status updates every 20 s and answers 15 s old, so the step is short);
// labels put on a worker's server through the API reach its Node as a
// label, a verbatim label and a taint, and go when the server's go,
// while the Node's own labels stay.
func serverLabelsOnNodes(t *testing.T, ctx context.Context, node string) {
	release := os.Getenv("E2E_KIND_RELEASE")
	if err := helm(ctx, "upgrade", "hccm", "oci://"+os.Getenv("E2E_KIND_REGISTRY")+"/charts/hcloud-ccm", "--version", strings.TrimPrefix(release, "v"),
		"--plain-http", "--reuse-values",
		"--set", "env.HCLOUD_INSTANCES_LABELS_ENABLED.value=true",
		"--set", "env.HCLOUD_INSTANCES_LABELS_VERBATIM.value=hcloud/node-group",
		"--set", "env.HCLOUD_INSTANCES_TAINTS_ENABLED.value=true",
		"--set", "env.HCLOUD_INVENTORY_MAX_AGE.value=15s",
		"--set", "args.node-status-update-frequency=20s"); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(3*time.Minute, func() bool { return ccmReplicasReady(ctx) && ccmPodsUpdated(ctx) }); err != nil {
		t.Fatalf("the CCM with the server label sync did not roll out: %v", err)
	}
	setLabels := func(labels map[string]string) {
		t.Helper()
		s, _, err := cluster.cloud.Client.Server.GetByName(ctx, node)
		if err == nil && s == nil {
			t.Fatalf("no server %s", node)
		}
		if err == nil {
			_, _, err = cluster.cloud.Client.Server.Update(ctx, s, hcloud.ServerUpdateOpts{Labels: labels})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	get := func() *corev1.Node {
		n, err := cluster.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return &corev1.Node{}
		}
		return n
	}
	gpu := func(n *corev1.Node) bool {
		return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == "taint.hcloud.hetzner.cloud/gpu" })
	}
	hostname := get().Labels["kubernetes.io/hostname"]

	start := time.Now()
	setLabels(map[string]string{"hcloud/node-group": "pool1", "env": "prod", "taint.prefernoschedule/gpu": "nvidia"})
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		n := get()
		return n.Labels["hcloud/node-group"] == "pool1" && n.Labels["label.hcloud.hetzner.cloud/env"] == "prod" && gpu(n)
	}); err != nil {
		n := get()
		t.Fatalf("the server's labels not on Node %s: labels %v taints %v: %v", node, n.Labels, n.Spec.Taints, err)
	}
	logf("server labels on the Node %s after they were set", time.Since(start).Round(time.Second))

	start = time.Now()
	setLabels(map[string]string{})
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		n := get()
		_, group := n.Labels["hcloud/node-group"]
		_, env := n.Labels["label.hcloud.hetzner.cloud/env"]
		return !group && !env && !gpu(n)
	}); err != nil {
		n := get()
		t.Fatalf("removed server labels still on Node %s: labels %v taints %v: %v", node, n.Labels, n.Spec.Taints, err)
	}
	logf("removed server labels gone from the Node %s after", time.Since(start).Round(time.Second))
	if got := get().Labels["kubernetes.io/hostname"]; got != hostname || got == "" {
		t.Errorf("kubernetes.io/hostname %q, was %q: a label the CCM did not write changed", got, hostname)
	}
}
