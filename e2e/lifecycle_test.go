//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

const shutdownTaint = "node.cloudprovider.kubernetes.io/shutdown"

// cluster is the system with a CCM and the nodes registered and initialised.
func cluster(t *testing.T, nodes ...string) (*harness.Env, context.Context) {
	t.Helper()
	return clusterWith(t, nil, nodes...)
}

func node(t *testing.T, env *harness.Env, name string) *corev1.Node {
	t.Helper()
	n, err := env.Kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tainted(n *corev1.Node, key string) bool {
	return n != nil && slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}

// TestDeletedServerDeletesItsNode: scenario 2. A NotReady node whose
// server is deleted goes; a NotReady node whose server exists stays.
func TestDeletedServerDeletesItsNode(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1", "worker-2")
	// worker-1's kubelet fails; worker-2's goes silent with its server.
	if err := env.SetReady(ctx, "worker-1", false); err != nil {
		t.Fatal(err)
	}
	done := timed(t, "deleted server's Node deleted")
	if err := env.Cloud().Apply(ctx, fakecloud.Event{Type: "delete_server", ServerName: "worker-2"}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "worker-2's Node deleted", func() bool { return node(t, env, "worker-2") == nil })
	done()
	env.ForgetNode("worker-2")
	// Several lifecycle passes later, worker-1 (NotReady, server running) is still there.
	time.Sleep(6 * time.Second)
	if node(t, env, "worker-1") == nil {
		t.Error("worker-1 was deleted although its server exists")
	}
}

// TestPowerOffTaintsTheNode: scenario 3. A powered-off server's NotReady
// node gets the shutdown taint; powered on and Ready, it loses it.
func TestPowerOffTaintsTheNode(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1")
	cloud := env.Cloud()
	if err := cloud.Apply(ctx, fakecloud.Event{Type: "power_off_server", ServerName: "worker-1"}); err != nil {
		t.Fatal(err)
	}
	// Its kubelet stops posting, so the node turns NotReady.
	done := timed(t, "shutdown taint on")
	fakecloudtest.Eventually(t, time.Minute, "shutdown taint", func() bool { return tainted(node(t, env, "worker-1"), shutdownTaint) })
	done()
	if err := cloud.Apply(ctx, fakecloud.Event{Type: "power_on_server", ServerName: "worker-1"}); err != nil {
		t.Fatal(err)
	}
	done = timed(t, "shutdown taint off")
	fakecloudtest.Eventually(t, time.Minute, "shutdown taint removed", func() bool { return !tainted(node(t, env, "worker-1"), shutdownTaint) })
	done()
}

// TestRoutesFollowTheNodes: scenario 5. Each node's pod CIDR is routed to
// its IP in the network; a deleted node's route goes.
func TestRoutesFollowTheNodes(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1", "worker-2")
	want := map[string]string{"10.244.0.0/24": "10.0.0.2", "10.244.1.0/24": "10.0.0.3", "10.244.2.0/24": "10.0.0.4"}
	done := timed(t, "three routes")
	fakecloudtest.Eventually(t, time.Minute, "a route per node", func() bool { return sameRoutes(t, env, want) })
	done()
	if err := env.Kube.CoreV1().Nodes().Delete(ctx, "worker-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.ForgetNode("worker-2")
	delete(want, "10.244.2.0/24")
	done = timed(t, "route of a deleted node removed")
	fakecloudtest.Eventually(t, time.Minute, "worker-2's route removed", func() bool { return sameRoutes(t, env, want) })
	done()
}

func sameRoutes(t *testing.T, env *harness.Env, want map[string]string) bool {
	t.Helper()
	nw, _, err := env.Cloud().Client.Network.Get(context.Background(), "cluster")
	if err != nil || nw == nil {
		t.Fatalf("network: %v", err)
	}
	got := map[string]string{}
	for _, r := range nw.Routes {
		got[r.Destination.String()] = r.Gateway.String()
	}
	if len(got) != len(want) {
		return false
	}
	for d, g := range want {
		if got[d] != g {
			return false
		}
	}
	return true
}
