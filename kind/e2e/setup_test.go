//go:build e2ekind

// The e2e-kind scenarios: a real kind cluster (kind/e2e-kind.sh makes it),
// fakecloud on the host seeded from the cluster's node containers, and the
// CCM in-cluster, installed with the shipped chart over a cluster as the
// official CCM leaves it.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// cluster is what TestMain set up.
var cluster struct {
	kube         kubernetes.Interface
	name         string
	nodes        map[string]string // node name → container IP
	dedicated    string            // the node that plays a dedicated (Robot) server: worker3
	cloudURL     string            // fakecloud, as the host and the pods reach it
	metadataAddr string            // fakecloud as host:port, the nodes' metadata service
	dnsAddr      string            // fakecloud's nameserver, as host:port, for the pods' DNS
	cloud        *harness.Cloud
}

func TestMain(m *testing.M) {
	stop, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e-kind setup:", err)
		if stop != nil {
			stop()
		}
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

func setup() (func(), error) {
	ctx := context.Background()
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("E2E_KIND_KUBECONFIG"))
	if err != nil {
		return nil, err
	}
	if cluster.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	cluster.name = os.Getenv("E2E_KIND_CLUSTER")
	gateway, subnet, err := kindNetwork()
	if err != nil {
		return nil, err
	}
	if cluster.nodes, err = nodeIPs(cluster.name); err != nil {
		return nil, err
	}
	cluster.dedicated = cluster.name + "-worker3"
	if err := keepWorkloadsOff(ctx, cluster.dedicated); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := installCNI(ctx); err != nil {
		return nil, err
	}
	logf("bridge CNI configured on %d nodes in %s", len(cluster.nodes), time.Since(start).Round(time.Millisecond))

	world, err := seedWorld(subnet)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", gateway+":0")
	if err != nil {
		return nil, fmt.Errorf("listening on the kind network's gateway %s: %w", gateway, err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dns, err := net.ListenPacket("udp", gateway+":0")
	if err != nil {
		return nil, fmt.Errorf("a UDP port on the kind network's gateway %s: %w", gateway, err)
	}
	cluster.dnsAddr = dns.LocalAddr().String()
	dns.Close()
	cluster.cloudURL = "http://" + addr
	logDir := os.Getenv("KIND_LOGS")
	if logDir == "" {
		logDir = os.TempDir()
	}
	logFile, err := os.Create(filepath.Join(logDir, "fakecloud.log"))
	if err != nil {
		return nil, err
	}
	// Off loopback the admin API needs a token.
	const adminToken = "e2e-kind-admin"
	fc := exec.Command(os.Getenv("E2E_KIND_FAKECLOUD"), "--listen="+addr, "--seed="+world, "--action-duration=200ms", "--rate-limit=0",
		"--admin-token="+adminToken, "--lb-ipv4-range="+lbRange, "--dns-listen="+cluster.dnsAddr)
	fc.Stdout, fc.Stderr = logFile, logFile
	if err := fc.Start(); err != nil {
		return nil, err
	}
	fabricCtx, stopFabric := context.WithCancel(ctx)
	stop := func() {
		stopFabric()
		_ = fc.Process.Kill()
		_, _ = fc.Process.Wait()
		logFile.Close()
	}
	cluster.cloud = harness.NewCloud(cluster.cloudURL, adminToken)
	if err := fakecloudtest.Wait(30*time.Second, func() bool { _, err := cluster.cloud.Requests(ctx, "", ""); return err == nil }); err != nil {
		return stop, fmt.Errorf("fakecloud did not start: %w", err)
	}
	logf("fakecloud on %s, seeded with %d servers; load balancers carry traffic on %s", cluster.cloudURL, len(cluster.nodes), lbRange)
	go runFabric(fabricCtx)
	cluster.metadataAddr = addr
	for name := range cluster.nodes {
		if err := metadataToFakeCloud(name); err != nil {
			return stop, err
		}
	}
	start = time.Now()
	if err := leaveAsTheOfficialCCMDoes(ctx); err != nil {
		return stop, fmt.Errorf("the cluster as the official CCM leaves it: %w", err)
	}
	logf("cluster as the official CCM leaves it (nodes initialised, routes, load balancer %s) in %s", takeover.lbName, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if err := installOfficial(ctx); err != nil {
		return stop, err
	}
	logf("the official chart installed with helm and running in %s", time.Since(start).Round(time.Millisecond))
	return stop, nil
}

const (
	podNet = "10.244.0.0/16" // kind/cluster.yaml's podSubnet
	// lbRange is where fakecloud's load balancers listen: on the host's
	// loopback, so the test reaches them as a client would.
	lbRange = "127.0.100.0/24"
)

// kindNetwork is the gateway and subnet of docker's "kind" network.
func kindNetwork() (string, string, error) {
	out, err := exec.Command("docker", "network", "inspect", "kind", "--format",
		"{{range .IPAM.Config}}{{if .Gateway}}{{.Gateway}} {{.Subnet}}{{end}}{{end}}").Output()
	if err != nil {
		return "", "", fmt.Errorf("docker network inspect kind: %w", err)
	}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Fields(f)
		if len(parts) == 2 && net.ParseIP(parts[0]).To4() != nil {
			return parts[0], parts[1], nil
		}
	}
	return "", "", fmt.Errorf("no IPv4 gateway in the kind network: %q", out)
}

// nodeIPs are the node containers' IPv4 addresses on the kind network.
func nodeIPs(cluster string) (map[string]string, error) {
	out, err := exec.Command("docker", "ps", "--filter", "label=io.x-k8s.kind.cluster="+cluster, "--format", "{{.Names}}").Output()
	if err != nil {
		return nil, err
	}
	ips := map[string]string{}
	for _, name := range strings.Fields(string(out)) {
		ip, err := exec.Command("docker", "inspect", name, "--format", "{{.NetworkSettings.Networks.kind.IPAddress}}").Output()
		if err != nil {
			return nil, err
		}
		ips[name] = strings.TrimSpace(string(ip))
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("no node containers of cluster %s", cluster)
	}
	return ips, nil
}

// installCNI writes a bridge CNI config for each node's pod CIDR; pods on
// other nodes are reached through the routes the CCM programs.
func installCNI(ctx context.Context) error {
	for name := range cluster.nodes {
		n, err := cluster.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Spec.PodCIDR == "" {
			return fmt.Errorf("node %s has no pod CIDR", name)
		}
		conf := fmt.Sprintf(`{"cniVersion": "0.4.0", "name": "e2e-bridge", "plugins": [
  {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": %q}]], "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}`, n.Spec.PodCIDR)
		cmd := exec.Command("docker", "exec", "-i", name, "sh", "-c", "mkdir -p /etc/cni/net.d && cat > /etc/cni/net.d/10-e2e-bridge.conflist")
		cmd.Stdin = strings.NewReader(conf)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("CNI config on %s: %v: %s", name, err, out)
		}
	}
	return nil
}

// seedWorld writes a fakecloud world with one server per node, named like
// it, whose private IP is the node container's.
func seedWorld(subnet string) (string, error) {
	type netRef struct {
		Network string `json:"network"`
		IP      string `json:"ip"`
	}
	type server struct {
		Name       string   `json:"name"`
		ServerType string   `json:"server_type"`
		Location   string   `json:"location"`
		Networks   []netRef `json:"networks"`
	}
	w := map[string]any{
		"networks": []map[string]any{{"name": "cluster", "ip_range": subnet,
			"subnets": []map[string]string{{"type": "cloud", "ip_range": subnet, "network_zone": "eu-central"}}}},
	}
	var servers []server
	for name, ip := range cluster.nodes {
		if name == cluster.dedicated {
			// Its container IP is its main IPv4, as a dedicated server's.
			w["dedicated_servers"] = []map[string]any{{"server_name": name, "server_number": dedicatedNumber, "server_ip": ip,
				"product": "AX41-NVMe", "dc": "FSN1-DC14"}}
			continue
		}
		servers = append(servers, server{Name: name, ServerType: "cx23", Location: "fsn1", Networks: []netRef{{Network: "cluster", IP: ip}}})
	}
	w["servers"] = servers
	raw, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(os.TempDir(), "hcloud-ccm-kind-world.json")
	return path, os.WriteFile(path, raw, 0o644)
}

// dedicatedNumber is the server number of the dedicated node's server.
const dedicatedNumber = 2000001

// keepWorkloadsOff taints the dedicated node so that only kube-proxy (which
// tolerates every taint) runs there: the echo pods and the CCM stay on the
// cloud nodes, whose pod CIDRs the network routes. It stays a load
// balancer target: its node port forwards to the pods elsewhere.
func keepWorkloadsOff(ctx context.Context, node string) error {
	n, err := cluster.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the dedicated node %s: %w", node, err)
	}
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "hcloud-ccm.hcloudlab.dev/dedicated", Value: "true", Effect: corev1.TaintEffectNoSchedule})
	_, err = cluster.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	return err
}

func logf(format string, a ...any) { fmt.Printf("    "+format+"\n", a...) }
