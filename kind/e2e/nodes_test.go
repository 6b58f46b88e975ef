//go:build e2ekind

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNodesInitialised: the kubelets' Nodes get provider IDs, labels and
// addresses from fakecloud, lose the uninitialized taint, and the node
// IP the CCM reports is the one the kubelet uses.
func TestNodesInitialised(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	for name, ip := range cluster.nodes {
		if err := waitUntil(3*time.Minute, func() bool {
			n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			return err == nil && n.Spec.ProviderID != "" && !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
				return t.Key == "node.cloudprovider.kubernetes.io/uninitialized"
			})
		}); err != nil {
			t.Fatalf("%s not initialised: %v", name, err)
		}
		n, _ := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if n.Labels["node.kubernetes.io/instance-type"] != "cx22" || n.Labels["topology.kubernetes.io/region"] != "fsn1" {
			t.Errorf("%s labels %v", name, n.Labels)
		}
		var internal string
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				internal = a.Address
			}
		}
		if internal != ip {
			t.Errorf("%s InternalIP %q, want the container's %s", name, internal, ip)
		}
	}
	t.Logf("%d nodes initialised after %s", len(cluster.nodes), time.Since(start).Round(time.Millisecond))
}
