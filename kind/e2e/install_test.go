//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// The official chart v1.35.0 (deploy/testdata/official/README.md).
const officialChart = "../../deploy/testdata/official/hcloud-cloud-controller-manager-1.35.0.tgz"

// installOfficial installs the official CCM as an operator has it: the
// Secret hcloud (token and network) made with the API as kubectl create
// secret makes it, then helm install of the official chart with networking
// on, the cluster CIDR and HCLOUD_ENDPOINT. No image of the official CCM
// can be pulled here, so this project's image plays it, with the official
// chart's arguments (one replica, --leader-elect=false) and without the
// rollout guard's settings, which the official chart does not have; its
// image is pulled from the release's registry.
func installOfficial(ctx context.Context) error {
	if err := harness.Apply(ctx, cluster.kube, nil, harness.FakeCloudToken, "cluster"); err != nil {
		return err
	}
	if err := robotLogin(ctx); err != nil {
		return err
	}
	if err := helm(ctx, "install", "hccm", officialChart,
		"--set", "image.repository="+os.Getenv("E2E_KIND_REGISTRY")+"/hcloud-ccm", "--set", "image.tag="+os.Getenv("E2E_KIND_RELEASE"),
		"--set", "networking.enabled=true", "--set", "networking.clusterCIDR="+podNet,
		"--set", "env.HCLOUD_ENDPOINT.value="+cluster.cloudURL+"/v1",
		"--set", "robot.enabled=true", "--set", "env.ROBOT_ENDPOINT.value="+cluster.cloudURL+"/robot"); err != nil {
		return err
	}
	return fakecloudtest.Wait(3*time.Minute, func() bool {
		pods, err := cluster.kube.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{LabelSelector: ccmSelector})
		return err == nil && len(pods.Items) == 1 && pods.Items[0].Status.Phase == corev1.PodRunning
	})
}

// upgradeToThisCCM moves the release over as docs/guides/migrate-from-official-ccm.md says: helm upgrade to
// this project's chart, pulled from the release's OCI registry, with the
// values the release has. Every other setting is the chart's default.
func upgradeToThisCCM(ctx context.Context, dir string) error {
	values, err := exec.CommandContext(ctx, os.Getenv("E2E_KIND_HELM"), "get", "values", "hccm", "-o", "yaml",
		"--namespace", "kube-system", "--kubeconfig", os.Getenv("E2E_KIND_KUBECONFIG")).Output()
	if err != nil {
		return fmt.Errorf("helm get values: %w", err)
	}
	path := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(path, values, 0o600); err != nil {
		return err
	}
	release := os.Getenv("E2E_KIND_RELEASE")
	return helm(ctx, "upgrade", "hccm", "oci://"+os.Getenv("E2E_KIND_REGISTRY")+"/charts/hcloud-ccm", "--version", strings.TrimPrefix(release, "v"),
		"--plain-http", "-f", path)
}

// robotLogin adds the Robot webservice's login to the Secret hcloud, under
// the keys both charts read.
func robotLogin(ctx context.Context) error {
	s, err := cluster.kube.CoreV1().Secrets("kube-system").Get(ctx, "hcloud", metav1.GetOptions{})
	if err != nil {
		return err
	}
	s.Data["robot-user"], s.Data["robot-password"] = []byte(fakecloud.DefaultRobotUser), []byte(fakecloud.DefaultRobotPassword)
	_, err = cluster.kube.CoreV1().Secrets("kube-system").Update(ctx, s, metav1.UpdateOptions{})
	return err
}

// helm runs helm on the release's namespace and the cluster.
func helm(ctx context.Context, args ...string) error {
	args = append(args, "--namespace", "kube-system", "--kubeconfig", os.Getenv("E2E_KIND_KUBECONFIG"))
	logf("helm %s", strings.Join(args, " "))
	if out, err := exec.CommandContext(ctx, os.Getenv("E2E_KIND_HELM"), args...).CombinedOutput(); err != nil {
		return fmt.Errorf("helm %s: %v: %s", args[0], err, out)
	}
	return nil
}

// ccmSelector selects the CCM's pods of both charts.
const ccmSelector = "app.kubernetes.io/name=hcloud-cloud-controller-manager"

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
