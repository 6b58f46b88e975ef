//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
)

// installCCM installs the CCM as an operator does, changing only what an
// operator changes: the Secret hcloud (token and network) made with the
// API as kubectl create secret makes it, then helm install of deploy/chart
// with the image tag, networking on with the cluster CIDR, and
// HCLOUD_ENDPOINT. Every other setting is the chart's default.
func installCCM(ctx context.Context) error {
	if err := harness.Apply(ctx, cluster.kube, nil, harness.FakeCloudToken, "cluster"); err != nil {
		return err
	}
	args := []string{"install", "hccm", "../../deploy/chart", "--namespace", "kube-system", "--kubeconfig", os.Getenv("E2E_KIND_KUBECONFIG"),
		"--set", "image.tag=" + os.Getenv("E2E_KIND_IMAGE_TAG"),
		"--set", "networking.enabled=true", "--set", "networking.clusterCIDR=" + podNet,
		"--set", "env.HCLOUD_ENDPOINT.value=" + cluster.cloudURL + "/v1"}
	logf("helm %s", strings.Join(args, " "))
	if out, err := exec.CommandContext(ctx, os.Getenv("E2E_KIND_HELM"), args...).CombinedOutput(); err != nil {
		return fmt.Errorf("helm install: %v: %s", err, out)
	}
	return nil
}

// metadataToFakeCloud plays the metadata service at 169.254.169.254 on a
// node: a DNAT rule sends it to fakecloud, which answers for the server
// whose address the request comes from, as the real one does. The CCM's
// start-up check that its server is in the network then runs as on
// Hetzner, with no setting changed. A node container that restarts loses
// the rule, so a scenario that powers a node on sets it again.
func metadataToFakeCloud(node string) error {
	out, err := exec.Command("docker", "exec", node, "iptables", "-t", "nat", "-A", "OUTPUT", "-d", "169.254.169.254/32", "-p", "tcp",
		"--dport", "80", "-j", "DNAT", "--to-destination", cluster.metadataAddr).CombinedOutput()
	if err != nil {
		return fmt.Errorf("metadata DNAT on %s: %v: %s", node, err, out)
	}
	return nil
}
