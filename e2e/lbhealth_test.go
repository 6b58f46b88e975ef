//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/doctor"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// healthNodePort is the node port the health scenario's Service asks for;
// the test answers on it at each worker's address, as kube-proxy would.
const healthNodePort = 31080

// TestLoadBalancerTargetHealth: fakecloud's load balancers carry traffic
// (--lb-ipv4-range) and check their targets for real, reaching the
// workers' private IPs at loopback addresses (--lb-target-address) where
// the test answers on the Service's node port, as kube-proxy would. Both
// targets turn healthy and the Service's condition says so. A worker's
// server powered off fails its check: the condition names it, a Warning
// event tells it and doctor shows it; powered on, the condition is True
// again, with a Normal event.
func TestLoadBalancerTargetHealth(t *testing.T) {
	workers := map[string][2]string{"worker-1": {"10.0.0.3", "127.0.1.3"}, "worker-2": {"10.0.0.4", "127.0.1.4"}}
	env := setup(t, func(o *harness.Options) {
		o.FakeCloudArgs = append(o.FakeCloudArgs, "--lb-ipv4-range=127.0.100.0/24")
		for _, ips := range workers {
			o.FakeCloudArgs = append(o.FakeCloudArgs, "--lb-target-address="+ips[0]+"="+ips[1])
		}
		o.CCMEnv = append(o.CCMEnv, "HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL=2s")
	})
	ctx := context.Background()
	cloud := env.Cloud()
	for _, ips := range workers {
		answer(t, net.JoinHostPort(ips[1], fmt.Sprint(healthNodePort)))
	}
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	for i, n := range []string{"worker-1", "worker-2"} {
		if err := env.RegisterNode(ctx, n, cidr(i)); err != nil {
			t.Fatal(err)
		}
	}
	for n := range workers {
		fakecloudtest.Eventually(t, time.Minute, n+" initialised", func() bool { return node(t, env, n).Spec.ProviderID != "" })
	}

	svc := lbSvc("web", map[string]string{"load-balancer.hetzner.cloud/health-check-interval": "3s", "load-balancer.hetzner.cloud/health-check-timeout": "2s",
		"load-balancer.hetzner.cloud/health-check-retries": "1", "load-balancer.hetzner.cloud/use-private-ip": "true"})
	svc.Spec.Ports[0].NodePort = healthNodePort
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	done := timed(t, "both targets checked healthy, in the Service's condition")
	waitCondition(t, env, metav1.ConditionTrue, loadbalancer.ReasonAllTargetsHealthy, "2 of 2 targets healthy")
	done()

	done = timed(t, "worker-1 powered off: condition False naming it, Warning event")
	if err := cloud.Apply(ctx, fakecloud.Event{Type: "power_off_server", ServerName: "worker-1"}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, env, metav1.ConditionFalse, loadbalancer.ReasonSomeTargetsUnhealthy, "1 of 2 targets unhealthy: worker-1 (port 80: ")
	fakecloudtest.Eventually(t, time.Minute, "a Warning event naming worker-1", func() bool {
		return hasEvent(t, env, "web", "LoadBalancerTargetsUnhealthy", "worker-1")
	})
	done()
	rep, code := runDoctor(t, env)
	expect(t, rep, code, "target-health", doctor.Warn, "service/default/web", "worker-1")

	done = timed(t, "worker-1 powered on: condition True, Normal event")
	if err := cloud.Apply(ctx, fakecloud.Event{Type: "power_on_server", ServerName: "worker-1"}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, env, metav1.ConditionTrue, loadbalancer.ReasonAllTargetsHealthy, "2 of 2 targets healthy")
	fakecloudtest.Eventually(t, time.Minute, "a Normal event", func() bool { return hasEvent(t, env, "web", "LoadBalancerTargetsHealthy", "") })
	done()
}

// answer accepts connections at addr and closes them, as a node port
// that kube-proxy serves, until the test ends.
func answer(t *testing.T, addr string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}

// waitCondition waits for the Service web's target health condition.
func waitCondition(t *testing.T, env *harness.Env, status metav1.ConditionStatus, reason, msg string) {
	t.Helper()
	var last string
	err := fakecloudtest.Wait(time.Minute, func() bool {
		s := get(t, env, "web")
		for _, c := range s.Status.Conditions {
			if c.Type == loadbalancer.ConditionTargetsHealthy {
				last = fmt.Sprintf("%s %s %q", c.Status, c.Reason, c.Message)
				return c.Status == status && c.Reason == reason && strings.Contains(c.Message, msg)
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("condition %s %s %q not reached: last %s", status, reason, msg, last)
	}
}
