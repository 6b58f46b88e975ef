//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestLeaderFailover: scenario 7. Two replicas elect a leader; when it is
// killed the other takes over within the lease time and carries on,
// making no duplicate load balancer.
func TestLeaderFailover(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	const lease = 6 * time.Second
	args := []string{"--leader-elect=true", "--leader-elect-lease-duration=" + lease.String(),
		"--leader-elect-renew-deadline=4s", "--leader-elect-retry-period=1s"}
	for range 2 {
		if _, err := env.StartCCM(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range []string{"control-plane-1", "worker-1"} {
		if err := env.RegisterNode(ctx, n, cidr(i)); err != nil {
			t.Fatal(err)
		}
	}
	fakecloudtest.Eventually(t, time.Minute, "nodes initialised by the leader", func() bool {
		return node(t, env, "control-plane-1").Spec.ProviderID != "" && node(t, env, "worker-1").Spec.ProviderID != ""
	})
	leader := waitForLeader(t, env, 2)
	holder := leaseHolder(t, env)
	killed := time.Now()
	env.KillCCM(leader)
	done := timed(t, "the other replica leads")
	fakecloudtest.Eventually(t, 3*lease, "a new lease holder", func() bool { h := leaseHolder(t, env); return h != "" && h != holder })
	done()
	if took := time.Since(killed); took > 2*lease {
		t.Errorf("takeover after %s, want within twice the lease (%s): the old lease must expire first", took, lease)
	}
	// The new leader works: a Service gets exactly one load balancer.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
		Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := env.Kube.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "status from the new leader", func() bool { return len(get(t, env, "web").Status.LoadBalancer.Ingress) > 0 })
	onlyLB(t, env)
}

// TestLeaderHandoverOnStop: a leader stopped as the kubelet stops a pod
// (SIGTERM) gives its lease back, so the other replica leads within its
// retry period rather than after the lease runs out; the replicas serve
// the Kubernetes component metrics dashboards read.
func TestLeaderHandoverOnStop(t *testing.T) {
	env := setup(t)
	ctx := context.Background()
	const lease, retry = 15 * time.Second, time.Second // upstream's default lease; a short retry
	args := []string{"--leader-elect=true", "--leader-elect-retry-period=" + retry.String()}
	for range 2 {
		if _, err := env.StartCCM(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.RegisterNode(ctx, "control-plane-1", cidr(0)); err != nil {
		t.Fatal(err)
	}
	leader := waitForLeader(t, env, 2)
	fakecloudtest.Eventually(t, time.Minute, "the node initialised", func() bool { return node(t, env, "control-plane-1").Spec.ProviderID != "" })
	metrics := httpBody(t, "http://"+env.CCMHTTP(leader)+"/metrics")
	for _, want := range []string{`workqueue_adds_total{name="service"}`, `rest_client_requests_total{`,
		`leader_election_master_status{name="cloud-controller-manager"} 1`, `hcloud_api_requests_total{`, `hcloud_ccm_inventory_listings_total`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("the leader's /metrics lack %s", want)
		}
	}
	holder := leaseHolder(t, env)
	stopped := time.Now()
	if !env.StopCCM(leader, 10*time.Second) {
		t.Errorf("the leader did not exit cleanly within 10 s of SIGTERM")
	}
	if !logHas(t, env.CCMLog(leader), "Released the leader lease") {
		t.Errorf("the stopped leader did not release its lease")
	}
	fakecloudtest.Eventually(t, 2*lease, "a new lease holder", func() bool { h := leaseHolder(t, env); return h != "" && h != holder })
	if took := time.Since(stopped); took > lease/2 {
		t.Errorf("takeover %s after SIGTERM, want well within the %s lease: the lease was not released", took, lease)
	}
	t.Logf("takeover %s after SIGTERM (lease %s, retry %s)", time.Since(stopped).Round(100*time.Millisecond), lease, retry)
}

func httpBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitForLeader is the index of the replica, of n, that acquired the lease.
func waitForLeader(t *testing.T, env *harness.Env, n int) int {
	t.Helper()
	leader := -1
	fakecloudtest.Eventually(t, time.Minute, "a leader", func() bool {
		for i := range n {
			if logHas(t, env.CCMLog(i), "Successfully acquired lease") {
				leader = i
			}
		}
		return leader >= 0
	})
	return leader
}

// leaseHolder is the holder of the CCM's leader election lease.
func leaseHolder(t *testing.T, env *harness.Env) string {
	t.Helper()
	l, err := env.Kube.CoordinationV1().Leases("kube-system").Get(context.Background(), "cloud-controller-manager", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func logHas(t *testing.T, path, s string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), s)
}
