//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/ccm/doctor"
	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// TestDoctor: ccm doctor on the real control plane. A healthy cluster has
// no FAIL; each misconfiguration, made one at a time and undone, is named.
// The last ones need the CCM stopped, so that it cannot repair them first.
func TestDoctor(t *testing.T) {
	env := setup(t, func(o *harness.Options) { o.CCMArgs = append(o.CCMArgs, "--leader-elect=true") })
	ctx := context.Background()
	if _, err := env.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	// Its Deployment, as doctor looks for it, with the one replica ready.
	if err := env.PlayDeployment(ctx, 1, 1); err != nil {
		t.Fatal(err)
	}
	for i, n := range []string{"control-plane-1", "worker-1", "worker-2"} {
		if err := env.RegisterNodeIP(ctx, n, cidr(i), fmt.Sprintf("10.0.0.%d", 2+i)); err != nil {
			t.Fatal(err)
		}
	}
	svcs := env.Kube.CoreV1().Services("default")
	if _, err := svcs.Create(ctx, lbSvc("web", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "Nodes initialised, routed, and web's address", func() bool {
		return len(get(t, env, "web").Status.LoadBalancer.Ingress) > 0 && len(network(t, env).Routes) == 3
	})
	cloud := env.Cloud().Client

	t.Run("healthy", func(t *testing.T) {
		rep, code := runDoctor(t, env)
		if code != 0 || rep.Failed() {
			t.Errorf("exit %d on a healthy cluster:\n%s", code, findings(rep, doctor.Fail, doctor.Warn))
		}
		if w := findings(rep, doctor.Warn); w != "" {
			t.Logf("warnings on the healthy cluster:\n%s", w)
		}
		// servers, networks, load balancers, the write probe, and the types,
		// locations and certificates the Service needs
		if rep.Requests > 8 {
			t.Errorf("%d requests, want at most 8", rep.Requests)
		}
	})
	t.Run("node name near miss", func(t *testing.T) {
		if err := env.RegisterNode(ctx, "worker-3.example.com", cidr(3)); err != nil {
			t.Fatal(err)
		}
		defer removeNode(t, env, "worker-3.example.com")
		// The CCM explains it on the Node, too.
		fakecloudtest.Eventually(t, time.Minute, "a ServerNotFound event naming worker-3", func() bool {
			return hasEvent(t, env, "worker-3.example.com", "ServerNotFound", "closest server names: worker-3")
		})
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "node", doctor.Fail, "node/worker-3.example.com", "worker-3")
		expect(t, rep, code, "taint", doctor.Fail, "node/worker-3.example.com", "uninitialized")
	})
	t.Run("bad token", func(t *testing.T) {
		rep, code := runDoctor(t, env, "HCLOUD_TOKEN="+strings.Repeat("x", 64))
		expect(t, rep, code, "token", doctor.Fail, "token", "refuses")
	})
	t.Run("kubelet without --cloud-provider=external", func(t *testing.T) {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-3"}}
		if _, err := env.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer removeNode(t, env, "worker-3")
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "kubelet", doctor.Fail, "node/worker-3", "taint")
	})
	t.Run("kubelet --node-ip not the server's", func(t *testing.T) {
		if err := env.RegisterNodeIP(ctx, "worker-3", cidr(3), "10.0.0.99"); err != nil {
			t.Fatal(err)
		}
		defer removeNode(t, env, "worker-3")
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "node-ip", doctor.Fail, "node/worker-3", "10.0.0.99")
	})
	t.Run("cluster CIDR outside the network", func(t *testing.T) {
		rep, code := runDoctor(t, env, "", "--cluster-cidr=172.16.0.0/16")
		expect(t, rep, code, "cluster-cidr", doctor.Fail, "172.16.0.0/16", "outside")
	})
	for _, tc := range []struct {
		name, svc   string
		annotations map[string]string
		status      doctor.Status
		want        string
	}{
		{"annotation typo", "typo", map[string]string{"load-balancer.hetzner.cloud/algorithm-type": "fastest"}, doctor.Fail, "algorithm-type"},
		{"certificate that does not exist", "tls", map[string]string{"load-balancer.hetzner.cloud/protocol": "https",
			"load-balancer.hetzner.cloud/http-certificates": "no-such-cert"}, doctor.Fail, "no-such-cert"},
		{"location outside the network zone", "far", map[string]string{"load-balancer.hetzner.cloud/location": "ash"}, doctor.Fail, "network cluster is in eu-central"},
		{"load balancer type that does not exist", "huge", map[string]string{"load-balancer.hetzner.cloud/type": "lb99"}, doctor.Fail, "lb99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := svcs.Create(ctx, lbSvc(tc.svc, tc.annotations), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := svcs.Delete(ctx, tc.svc, metav1.DeleteOptions{}); err != nil {
					t.Error(err)
				}
			}()
			rep, code := runDoctor(t, env)
			expect(t, rep, code, "service", tc.status, "service/default/"+tc.svc, tc.want)
		})
	}
	t.Run("orphaned load balancer", func(t *testing.T) {
		res, _, err := cloud.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "left-behind", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
			Location: &hcloud.Location{Name: "fsn1"}, Labels: map[string]string{"hcloud-ccm/service-uid": "0a0b0c0d-0000-4000-8000-000000000000"}})
		if err == nil {
			err = cloud.Action.WaitFor(ctx, res.Action) // it is locked until then
		}
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if _, _, err := cloud.LoadBalancer.DeleteWithResult(ctx, res.LoadBalancer); err != nil {
				t.Error(err)
			}
		}()
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "load-balancer", doctor.Warn, "load-balancer/left-behind", "")
	})
	t.Run("server not attached to the network", func(t *testing.T) {
		s, nw := server(t, env, "worker-2"), network(t, env)
		wait(t, env, func() (*hcloud.Action, *hcloud.Response, error) {
			return cloud.Server.DetachFromNetwork(ctx, s, hcloud.ServerDetachFromNetworkOpts{Network: nw})
		})
		defer wait(t, env, func() (*hcloud.Action, *hcloud.Response, error) {
			return cloud.Server.AttachToNetwork(ctx, s, hcloud.ServerAttachToNetworkOpts{Network: nw, IP: net.ParseIP("10.0.0.4")})
		})
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "network", doctor.Fail, "server/worker-2", "not attached")
	})

	// With the CCM stopped (its Lease released), nothing repairs what
	// follows.
	if !env.StopCCM(0, 10*time.Second) {
		t.Fatal("the CCM did not stop cleanly")
	}
	if err := env.PlayDeployment(ctx, 1, 0); err != nil {
		t.Fatal(err)
	}
	t.Run("no CCM replica ready, none holds the Lease", func(t *testing.T) {
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "ccm", doctor.Fail, "deployment/kube-system/hcloud-cloud-controller-manager", "0 of 1 replicas ready")
		expect(t, rep, code, "lease", doctor.Fail, "lease/kube-system/cloud-controller-manager", "")
	})
	t.Run("route through no node", func(t *testing.T) {
		wait(t, env, func() (*hcloud.Action, *hcloud.Response, error) {
			return cloud.Network.AddRoute(ctx, network(t, env), hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{
				Destination: mustCIDR(t, "10.250.0.0/24"), Gateway: net.ParseIP("10.0.0.5")}})
		})
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "route", doctor.Warn, "route/10.250.0.0/24", "10.0.0.5")
	})
	t.Run("RBAC binding deleted", func(t *testing.T) {
		rbac := env.Kube.RbacV1().ClusterRoleBindings()
		const name = "system:hcloud-cloud-controller-manager:restricted"
		b, err := rbac.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := rbac.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if _, err := rbac.Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: b.RoleRef, Subjects: b.Subjects}, metav1.CreateOptions{}); err != nil {
				t.Error(err)
			}
		}()
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "rbac", doctor.Fail, "serviceaccount/kube-system/", "ClusterRoleBinding")
	})
	t.Run("server deleted under a Node and a target", func(t *testing.T) {
		if _, _, err := cloud.Server.DeleteWithResult(ctx, server(t, env, "worker-2")); err != nil {
			t.Fatal(err)
		}
		rep, code := runDoctor(t, env)
		expect(t, rep, code, "node", doctor.Fail, "node/worker-2", "deleted")
		expect(t, rep, code, "load-balancer", doctor.Warn, "load-balancer/", "target")
	})
}

// runDoctor runs ccm doctor with extra environment (empty entries are
// skipped) and flags.
func runDoctor(t *testing.T, env *harness.Env, envAndArgs ...string) (doctor.Report, int) {
	t.Helper()
	var extraEnv, args []string
	for _, s := range envAndArgs {
		switch {
		case strings.HasPrefix(s, "--"):
			args = append(args, s)
		case s != "":
			extraEnv = append(extraEnv, s)
		}
	}
	rep, code, err := env.Doctor(context.Background(), extraEnv, args...)
	if err != nil {
		t.Fatal(err)
	}
	return rep, code
}

// expect fails unless rep has a finding of check with status whose
// subject starts with subject and whose message or fix holds want, and
// the exit status says FAIL when it is one.
func expect(t *testing.T, rep doctor.Report, code int, check string, status doctor.Status, subject, want string) {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Check == check && f.Status == status && strings.HasPrefix(f.Subject, subject) &&
			strings.Contains(f.Message+" "+f.Fix, want) {
			if status == doctor.Fail && code != 1 {
				t.Errorf("exit %d with a FAIL, want 1", code)
			}
			return
		}
	}
	t.Errorf("no %s %s finding on %s with %q; found:\n%s", status, check, subject, want, findings(rep, doctor.Fail, doctor.Warn))
}

// findings lists rep's findings of the statuses, one a line.
func findings(rep doctor.Report, statuses ...doctor.Status) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		for _, s := range statuses {
			if f.Status == s {
				b.WriteString("  " + string(f.Status) + " " + f.Check + " " + f.Subject + ": " + f.Message + "\n")
			}
		}
	}
	return b.String()
}

func lbSvc(name string, annotations map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
}

// removeNode deletes a Node the test registered and stops its kubelet.
func removeNode(t *testing.T, env *harness.Env, name string) {
	t.Helper()
	env.ForgetNode(name)
	if err := env.Kube.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Error(err)
	}
}

// hasEvent reports whether the object named name has an event of reason
// whose message holds want.
func hasEvent(t *testing.T, env *harness.Env, name, reason, want string) bool {
	t.Helper()
	evs, err := env.Kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs.Items {
		if e.Reason == reason && strings.Contains(e.Message, want) {
			return true
		}
	}
	return false
}

func server(t *testing.T, env *harness.Env, name string) *hcloud.Server {
	t.Helper()
	s, _, err := env.Cloud().Client.Server.GetByName(context.Background(), name)
	if err != nil || s == nil {
		t.Fatalf("server %s: %v", name, err)
	}
	return s
}

func network(t *testing.T, env *harness.Env) *hcloud.Network {
	t.Helper()
	n, _, err := env.Cloud().Client.Network.GetByName(context.Background(), "cluster")
	if err != nil || n == nil {
		t.Fatalf("network cluster: %v", err)
	}
	return n
}

// wait sends an action and waits until it ends.
func wait(t *testing.T, env *harness.Env, send func() (*hcloud.Action, *hcloud.Response, error)) {
	t.Helper()
	a, _, err := send()
	if err == nil {
		err = env.Cloud().Client.Action.WaitFor(context.Background(), a)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func mustCIDR(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
