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
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// robotWait is the CCM's ROBOT_RATE_LIMIT_WAIT_TIME in the hybrid test.
const robotWait = 15 * time.Second

// TestHybridCluster: cloud and dedicated (Robot) Nodes in one cluster.
// The dedicated Nodes are initialised from the Robot webservice, become ip
// targets of a load balancer beside the cloud servers' server targets, and
// one is deleted once its server is removed, the other tainted while its
// server is off. Midway the webservice's hourly
// limit (scaled down to 10 listings) is reached: the CCM holds back, sends
// about one request per wait, and deletes nothing until it can list again.
func TestHybridCluster(t *testing.T) {
	env := setup(t, func(o *harness.Options) {
		o.FakeCloudArgs = append(o.FakeCloudArgs, "--robot-rate-limit=0.05")
		o.CCMEnv = append(o.CCMEnv, "ROBOT_ENABLED=true", "ROBOT_USER="+fakecloud.DefaultRobotUser, "ROBOT_PASSWORD="+fakecloud.DefaultRobotPassword,
			"ROBOT_CACHE_TIMEOUT=3s", "ROBOT_RATE_LIMIT_WAIT_TIME="+robotWait.String())
	})
	ctx := context.Background()
	cloud := env.Cloud()
	for i, name := range []string{"dedicated-1", "dedicated-2"} {
		d := fakecloud.SeedDedicatedServer{Number: int64(321 + i), Name: name, Product: "EX44", DC: "FSN1-DC16"}
		if err := cloud.Apply(ctx, fakecloud.Event{Type: "add_dedicated_server", DedicatedServer: &d}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	nodes := []string{"control-plane-1", "worker-1", "dedicated-1", "dedicated-2"}
	done := timed(t, "cloud and dedicated Nodes initialised")
	for i, n := range nodes {
		if err := env.RegisterNode(ctx, n, cidr(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		fakecloudtest.Eventually(t, time.Minute, n+" initialised", func() bool { return node(t, env, n).Spec.ProviderID != "" })
	}
	done()
	ded := node(t, env, "dedicated-1")
	if ded.Spec.ProviderID != "hrobot://321" || ded.Labels["node.kubernetes.io/instance-type"] != "EX44" ||
		ded.Labels["topology.kubernetes.io/zone"] != "fsn1-dc16" || ded.Labels["instance.hetzner.cloud/provided-by"] != "robot" {
		t.Errorf("dedicated-1: provider ID %s, labels %v", ded.Spec.ProviderID, ded.Labels)
	}
	if w := node(t, env, "worker-1"); w.Labels["instance.hetzner.cloud/provided-by"] != "cloud" {
		t.Errorf("worker-1 labels %v", w.Labels)
	}

	done = timed(t, "load balancer over both kinds")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"ip " + externalIPv4(t, env, "dedicated-1"), "ip " + externalIPv4(t, env, "dedicated-2"), "server", "server"}
	waitTargets(t, env, want)
	done()

	// The limit is reached by now or soon: routes ask about the dedicated
	// Nodes every reconcile, from a listing at most 3 s old.
	fakecloudtest.Eventually(t, time.Minute, "the webservice's hourly limit reached", func() bool { return robotAnswers(t, env, 403) > 0 })
	limited := time.Now()
	if err := cloud.Apply(ctx, fakecloud.Event{Type: "remove_dedicated_server", ServerNumber: 322}); err != nil {
		t.Fatal(err)
	}
	before := robotAnswers(t, env, 403)
	time.Sleep(2*robotWait + 2*time.Second)
	if node(t, env, "dedicated-2") == nil {
		t.Fatal("dedicated-2 was deleted while the webservice answered only RATE_LIMIT_EXCEEDED")
	}
	// One listing and one reset state per wait at most, and the first.
	if refused, most := robotAnswers(t, env, 403)-before, 2*(int(time.Since(limited)/robotWait)+1); refused > most {
		t.Errorf("%d refused requests in %s of the rate limit, want at most %d (one listing and one reset per %s)",
			refused, time.Since(limited).Round(time.Second), most, robotWait)
	}

	done = timed(t, "dedicated-2's Node deleted once the webservice answers again")
	if err := cloud.ClearRobotLimits(ctx); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 2*robotWait+30*time.Second, "dedicated-2's Node deleted", func() bool { return node(t, env, "dedicated-2") == nil })
	env.ForgetNode("dedicated-2")
	done()
	want = []string{"ip " + externalIPv4(t, env, "dedicated-1"), "server", "server"}
	waitTargets(t, env, want)
	if node(t, env, "dedicated-1") == nil || node(t, env, "worker-1") == nil {
		t.Error("a Node whose server exists was deleted")
	}

	// Powered off in the webservice (its reset state says shut off), the
	// server's kubelet goes silent: the Node gets the shutdown taint and
	// stays; powered on, it loses the taint.
	done = timed(t, "dedicated-1 powered off: shutdown taint")
	if err := cloud.Apply(ctx, fakecloud.Event{Type: "power_off_dedicated_server", ServerNumber: 321}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "dedicated-1's shutdown taint", func() bool { return tainted(node(t, env, "dedicated-1"), shutdownTaint) })
	done()
	if err := cloud.Apply(ctx, fakecloud.Event{Type: "power_on_dedicated_server", ServerNumber: 321}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "dedicated-1's shutdown taint removed", func() bool { return !tainted(node(t, env, "dedicated-1"), shutdownTaint) })
	total := robotAnswers(t, env, 0)
	t.Logf("Robot webservice requests in all: %d (%d refused with its rate limit)", total, robotAnswers(t, env, 403))
}

// waitTargets waits a minute for the load balancer's targets to be want.
func waitTargets(t *testing.T, env *harness.Env, want []string) {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got = targetKinds(t, env); slices.Equal(got, want) {
			return
		}
	}
	t.Fatalf("targets %v after a minute, want %v", got, want)
}

// externalIPv4 is a Node's ExternalIP v4, which its ip target uses.
func externalIPv4(t *testing.T, env *harness.Env, name string) string {
	t.Helper()
	for _, a := range node(t, env, name).Status.Addresses {
		if a.Type == corev1.NodeExternalIP && !slices.Contains([]byte(a.Address), ':') {
			return a.Address
		}
	}
	t.Fatalf("node %s has no ExternalIP v4", name)
	return ""
}

// targetKinds are the only load balancer's targets as "server" or
// "ip <addr>", sorted; nil while there is none.
func targetKinds(t *testing.T, env *harness.Env) []string {
	t.Helper()
	all, err := env.Cloud().Client.LoadBalancer.All(context.Background())
	if err != nil || len(all) != 1 {
		return nil // not made yet
	}
	var out []string
	for _, tg := range all[0].Targets {
		switch tg.Type {
		case hcloud.LoadBalancerTargetTypeIP:
			out = append(out, "ip "+tg.IP.IP)
		default:
			out = append(out, string(tg.Type))
		}
	}
	slices.Sort(out)
	return out
}

// robotAnswers counts the webservice's answers of a status (0: all).
func robotAnswers(t *testing.T, env *harness.Env, status int) int {
	t.Helper()
	entries, err := env.Cloud().Journal(context.Background(), fakecloud.JournalFilter{Path: "/robot/", Status: status})
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
