//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestNodesInitialised: scenario 1, three nodes initialised.
func TestNodesInitialised(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	nodes := []string{"control-plane-1", "worker-1", "worker-2"}
	done := timed(t, "three nodes initialised")
	for i, n := range nodes {
		if err := env.RegisterNode(ctx, n, cidr(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		fakecloudtest.Eventually(t, time.Minute, n+" initialised", func() bool {
			node, err := env.Kube.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			return err == nil && node.Spec.ProviderID != "" && !slices.ContainsFunc(node.Spec.Taints, func(tt corev1.Taint) bool {
				return tt.Key == "node.cloudprovider.kubernetes.io/uninitialized"
			})
		})
	}
	done()
	node, err := env.Kube.CoreV1().Nodes().Get(ctx, "worker-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"node.kubernetes.io/instance-type": "cx33", "topology.kubernetes.io/region": "nbg1",
		"instance.hetzner.cloud/provided-by": "cloud"}
	for k, v := range want {
		if node.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, node.Labels[k], v)
		}
	}
	if node.Labels["topology.kubernetes.io/zone"] == "" {
		t.Error("no zone label")
	}
	var internal string
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			internal = a.Address
		}
	}
	if internal != "10.0.0.4" {
		t.Errorf("InternalIP %q, want 10.0.0.4; addresses %v", internal, node.Status.Addresses)
	}
}

func cidr(i int) string { return "10.244." + strconv.Itoa(i) + ".0/24" }

// TestNodeAddressFollowsTheServer: a server's public IPv4 moved behind
// the CCM's back (a primary IP swapped in the Console, which under
// pessimistic realism leaves no server action) shows in its Node's
// addresses at a later status update.
func TestNodeAddressFollowsTheServer(t *testing.T) {
	env := setup(t, func(o *harness.Options) {
		o.CCMArgs = append(o.CCMArgs, "--node-status-update-frequency=2s")
		o.CCMEnv = append(o.CCMEnv, "HCLOUD_INVENTORY_MAX_AGE=5s")
	})
	ctx := context.Background()
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	if err := env.RegisterNode(ctx, "worker-1", cidr(0)); err != nil {
		t.Fatal(err)
	}
	external := func() string {
		n, err := env.Kube.CoreV1().Nodes().Get(ctx, "worker-1", metav1.GetOptions{})
		if err != nil {
			return ""
		}
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeExternalIP && !strings.Contains(a.Address, ":") {
				return a.Address
			}
		}
		return ""
	}
	fakecloudtest.Eventually(t, time.Minute, "worker-1 has an ExternalIP", func() bool { return external() != "" })
	if err := env.Cloud().Apply(ctx, fakecloud.Event{Type: "set_server_ip", ServerName: "worker-1", IP: "203.0.113.9"}); err != nil {
		t.Fatal(err)
	}
	done := timed(t, "new address on the Node")
	fakecloudtest.Eventually(t, time.Minute, "worker-1's ExternalIP 203.0.113.9", func() bool { return external() == "203.0.113.9" })
	done()
}
