//go:build e2ekind

package e2e

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// rejoin deletes a worker's Node and restarts its kubelet, which registers
// it again with the uninitialized taint, as a node joining the cluster
// does: this CCM gives it its provider ID, labels and addresses (the
// InternalIP is the kubelet's), the taint goes, and the node's CNI is
// pointed at the pod CIDR it got this time, as a node that really joined
// anew would be.
func rejoin(t *testing.T, ctx context.Context, name string) {
	if err := cluster.kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(time.Minute, func() bool {
		_, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}); err != nil {
		t.Fatalf("Node %s not deleted: %v", name, err)
	}
	docker(t, "exec", name, "systemctl", "restart", "kubelet")
	start := time.Now()
	if err := fakecloudtest.Wait(3*time.Minute, func() bool {
		n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return err == nil && n.Spec.ProviderID != "" && n.Spec.PodCIDR != "" && !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
			return t.Key == uninitializedTaint
		})
	}); err != nil {
		t.Fatalf("%s not initialised: %v", name, err)
	}
	logf("%s registered again and initialised in %s", name, time.Since(start).Round(time.Millisecond))
	n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Spec.ProviderID != takeover.providerIDs[name] {
		t.Errorf("%s provider ID %q, want its server's %q", name, n.Spec.ProviderID, takeover.providerIDs[name])
	}
	if n.Labels["node.kubernetes.io/instance-type"] != "cx23" || n.Labels["topology.kubernetes.io/region"] != "fsn1" {
		t.Errorf("%s labels %v", name, n.Labels)
	}
	var internal string
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			internal = a.Address
		}
	}
	if internal != cluster.nodes[name] {
		t.Errorf("%s InternalIP %q, want the container's %s", name, internal, cluster.nodes[name])
	}
	if err := installCNI(ctx); err != nil {
		t.Fatal(err)
	}
	// The bridge keeps the old pod CIDR's gateway, and the bridge plugin
	// refuses to re-address it; it makes it again for the next pod.
	if out, err := exec.Command("docker", "exec", name, "sh", "-c", "ip link show cni0 >/dev/null 2>&1 && ip link delete cni0 || true").CombinedOutput(); err != nil {
		t.Fatalf("removing %s's cni0 bridge: %v: %s", name, err, out)
	}
}
