//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestServerLabelsFollowTheServer: with the server label sync on, a
// label put on the server (the Console, an autoscaler) reaches its Node,
// a changed one follows and a removed one goes, within the inventory's
// bound (here 5 s, with status updates every 2 s) and the sync's 10 s;
// the Node's own labels and taints stay.
func TestServerLabelsFollowTheServer(t *testing.T) {
	env := setup(t, func(o *harness.Options) {
		o.CCMArgs = append(o.CCMArgs, "--node-status-update-frequency=2s")
		o.CCMEnv = append(o.CCMEnv, "HCLOUD_INVENTORY_MAX_AGE=5s", "HCLOUD_INSTANCES_LABELS_ENABLED=true",
			"HCLOUD_INSTANCES_LABELS_VERBATIM=hcloud/node-group", "HCLOUD_INSTANCES_TAINTS_ENABLED=true")
	})
	ctx := context.Background()
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	if err := env.RegisterNode(ctx, "worker-1", cidr(0)); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "worker-1 initialised", func() bool { return node(t, env, "worker-1").Spec.ProviderID != "" })
	// The Node's own label and taint, which the CCM never touches.
	n := node(t, env, "worker-1")
	n.Labels["team"] = "a"
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule})
	if _, err := env.Kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	api := env.Cloud().Client
	label := func(labels map[string]string) {
		t.Helper()
		s, _, err := api.Server.GetByName(ctx, "worker-1")
		if err == nil {
			_, _, err = api.Server.Update(ctx, s, hcloud.ServerUpdateOpts{Labels: labels})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	hasTaint := func(n *corev1.Node, key string) bool {
		return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
	}

	label(map[string]string{"hcloud/node-group": "pool1", "env": "prod", "taint.noschedule/gpu": "nvidia"})
	done := timed(t, "server labels on the Node")
	fakecloudtest.Eventually(t, time.Minute, "the server's labels and taint on worker-1", func() bool {
		n := node(t, env, "worker-1")
		return n.Labels["hcloud/node-group"] == "pool1" && n.Labels["label.hcloud.hetzner.cloud/env"] == "prod" && hasTaint(n, "taint.hcloud.hetzner.cloud/gpu")
	})
	done()

	label(map[string]string{"hcloud/node-group": "pool2"})
	done = timed(t, "a changed and two removed server labels on the Node")
	fakecloudtest.Eventually(t, time.Minute, "worker-1 follows the server", func() bool {
		n := node(t, env, "worker-1")
		_, hasEnv := n.Labels["label.hcloud.hetzner.cloud/env"]
		return n.Labels["hcloud/node-group"] == "pool2" && !hasEnv && !hasTaint(n, "taint.hcloud.hetzner.cloud/gpu")
	})
	done()
	n = node(t, env, "worker-1")
	if n.Labels["team"] != "a" || !hasTaint(n, "dedicated") {
		t.Errorf("the Node's own label or taint went: labels %v taints %v", n.Labels, n.Spec.Taints)
	}
	if got := n.Annotations["hcloud.hetzner.cloud/managed-labels"]; got != "hcloud/node-group" {
		t.Errorf("managed-labels %q, want hcloud/node-group", got)
	}
}

// TestOverlayInternalIP: a kubelet's --node-ip in
// HCLOUD_INSTANCES_INTERNAL_IP_CIDRS (a WireGuard or Tailscale address)
// is the Node's InternalIP, the server's public address its ExternalIP;
// one outside the CIDRs keeps the Node uninitialised, with
// NodeIPNotOfServer.
func TestOverlayInternalIP(t *testing.T) {
	env := setup(t, func(o *harness.Options) {
		o.CCMEnv = append(o.CCMEnv, "HCLOUD_INSTANCES_INTERNAL_IP_CIDRS=100.64.0.0/10")
	})
	ctx := context.Background()
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	if err := env.RegisterNodeIP(ctx, "worker-1", cidr(0), "100.64.0.5"); err != nil {
		t.Fatal(err)
	}
	if err := env.RegisterNodeIP(ctx, "worker-2", cidr(1), "192.168.50.5"); err != nil {
		t.Fatal(err)
	}
	initialised := func(n *corev1.Node) bool {
		return n.Spec.ProviderID != "" && !slices.ContainsFunc(n.Spec.Taints, func(tt corev1.Taint) bool {
			return tt.Key == "node.cloudprovider.kubernetes.io/uninitialized"
		})
	}
	fakecloudtest.Eventually(t, time.Minute, "worker-1 initialised", func() bool { return initialised(node(t, env, "worker-1")) })
	s, _, err := env.Cloud().Client.Server.GetByName(ctx, "worker-1")
	if err != nil || s == nil {
		t.Fatalf("server worker-1: %v", err)
	}
	fakecloudtest.Eventually(t, time.Minute, "worker-1's InternalIP 100.64.0.5 and its server's ExternalIP", func() bool {
		var internal, external []string
		for _, a := range node(t, env, "worker-1").Status.Addresses {
			switch a.Type {
			case corev1.NodeInternalIP:
				internal = append(internal, a.Address)
			case corev1.NodeExternalIP:
				external = append(external, a.Address)
			}
		}
		return slices.Equal(internal, []string{"100.64.0.5"}) && slices.Contains(external, s.PublicNet.IPv4.IP.String())
	})
	fakecloudtest.Eventually(t, time.Minute, "NodeIPNotOfServer on worker-2", func() bool {
		l, err := env.Kube.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "reason=NodeIPNotOfServer,involvedObject.name=worker-2"})
		return err == nil && len(l.Items) > 0
	})
	if initialised(node(t, env, "worker-2")) {
		t.Error("worker-2, whose --node-ip is in no CIDR and not its server's, was initialised")
	}
}
