//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

const lbFinalizer = "service.kubernetes.io/load-balancer-cleanup"

// TestLoadBalancerService: scenario 4. A LoadBalancer Service gets a load
// balancer with the right services and targets and its status; a port
// change, a node joining and leaving, an annotation change, options per
// port and node labels
// entering and leaving its node-selector are each reflected; deleting the
// Service deletes the load balancer.
func TestLoadBalancerService(t *testing.T) {
	env, ctx := cluster(t, "control-plane-1", "worker-1", "worker-2")
	svcs := env.Kube.CoreV1().Services("default")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	done := timed(t, "load balancer created, status set")
	if _, err := svcs.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "status.loadBalancer.ingress", func() bool { return len(get(t, env, "web").Status.LoadBalancer.Ingress) > 0 })
	done()
	cur := get(t, env, "web")
	lb := onlyLB(t, env)
	if cur.Status.LoadBalancer.Ingress[0].IP != lb.PublicNet.IPv4.IP.String() {
		t.Errorf("ingress %v, load balancer %s", cur.Status.LoadBalancer.Ingress, lb.PublicNet.IPv4.IP)
	}
	if !slices.Contains(cur.Finalizers, lbFinalizer) {
		t.Errorf("finalizers %v", cur.Finalizers)
	}
	if len(lb.Services) != 1 || lb.Services[0].ListenPort != 80 || lb.Services[0].DestinationPort != int(cur.Spec.Ports[0].NodePort) || len(lb.Targets) != 3 {
		t.Errorf("load balancer: %d services (first %+v), %d targets", len(lb.Services), lb.Services, len(lb.Targets))
	}

	done = timed(t, "port change")
	update(t, env, "web", func(s *corev1.Service) { s.Spec.Ports[0].Port = 8080 })
	fakecloudtest.Eventually(t, time.Minute, "port 8080", func() bool { l := onlyLB(t, env); return len(l.Services) == 1 && l.Services[0].ListenPort == 8080 })
	done()

	done = timed(t, "node join")
	if err := env.RegisterNode(ctx, "worker-3", cidr(3)); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "worker-3 as a target", func() bool { return len(onlyLB(t, env).Targets) == 4 })
	done()

	done = timed(t, "node leave")
	if err := env.Kube.CoreV1().Nodes().Delete(ctx, "worker-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	env.ForgetNode("worker-1")
	fakecloudtest.Eventually(t, time.Minute, "worker-1 no longer a target", func() bool { return len(onlyLB(t, env).Targets) == 3 })
	done()

	done = timed(t, "annotation change")
	update(t, env, "web", func(s *corev1.Service) {
		s.Annotations = map[string]string{"load-balancer.hetzner.cloud/algorithm-type": "least_connections"}
	})
	fakecloudtest.Eventually(t, time.Minute, "least_connections", func() bool {
		return onlyLB(t, env).Algorithm.Type == hcloud.LoadBalancerAlgorithmTypeLeastConnections
	})
	done()

	done = timed(t, "options per port")
	update(t, env, "web", func(s *corev1.Service) {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "ssh", Port: 22, TargetPort: intstr.FromInt32(2222)})
		s.Annotations["load-balancer.hetzner.cloud/uses-proxyprotocol"] = "true"
		s.Annotations["load-balancer.hetzner.cloud/port-ssh.uses-proxyprotocol"] = "false"
		s.Annotations["load-balancer.hetzner.cloud/port-8080.protocol"] = "http"
		s.Annotations["load-balancer.hetzner.cloud/port-8080.http-sticky-sessions"] = "true"
	})
	fakecloudtest.Eventually(t, time.Minute, "http with PROXY and sticky sessions on 8080, plain tcp on 22", func() bool {
		l := onlyLB(t, env)
		got := map[int]string{}
		for _, s := range l.Services {
			got[s.ListenPort] = fmt.Sprintf("%s proxy=%v sticky=%v", s.Protocol, s.Proxyprotocol, s.HTTP.StickySessions)
		}
		return len(got) == 2 && got[8080] == "http proxy=true sticky=true" && got[22] == "tcp proxy=false sticky=false"
	})
	if st := get(t, env, "web").Status.LoadBalancer.Ingress; len(st) == 0 || st[0].IPMode == nil || *st[0].IPMode != corev1.LoadBalancerIPModeProxy {
		t.Errorf("status %+v, want ipMode Proxy: port 8080 sends PROXY", st)
	}
	done()

	// The upstream controller syncs on a Node's exclusion label and
	// provider ID only; the CCM follows the labels a node-selector reads.
	done = timed(t, "node labels moving targets")
	labelNode(t, env, "worker-2", "pool", "web")
	update(t, env, "web", func(s *corev1.Service) { s.Annotations["load-balancer.hetzner.cloud/node-selector"] = "pool=web" })
	fakecloudtest.Eventually(t, time.Minute, "worker-2 the only target", func() bool { return len(onlyLB(t, env).Targets) == 1 })
	labelNode(t, env, "worker-3", "pool", "web")
	fakecloudtest.Eventually(t, 30*time.Second, "worker-3 a target once labelled", func() bool { return len(onlyLB(t, env).Targets) == 2 })
	labelNode(t, env, "worker-2", "pool", "")
	fakecloudtest.Eventually(t, 30*time.Second, "worker-2 no target once unlabelled", func() bool { return len(onlyLB(t, env).Targets) == 1 })
	done()

	done = timed(t, "Service deleted, load balancer gone")
	if err := svcs.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, time.Minute, "Service gone (finalizer released)", func() bool {
		_, err := svcs.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	done()
	if all, _ := env.Cloud().Client.LoadBalancer.All(ctx); len(all) != 0 {
		t.Errorf("%d load balancers left", len(all))
	}
}

func get(t *testing.T, env *harness.Env, name string) *corev1.Service {
	t.Helper()
	s, err := env.Kube.CoreV1().Services("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func update(t *testing.T, env *harness.Env, name string, change func(*corev1.Service)) {
	t.Helper()
	s := get(t, env, name)
	change(s)
	if _, err := env.Kube.CoreV1().Services("default").Update(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// onlyLB is the one load balancer in fakecloud.
func onlyLB(t *testing.T, env *harness.Env) *hcloud.LoadBalancer {
	t.Helper()
	all, err := env.Cloud().Client.LoadBalancer.All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("%d load balancers, want 1", len(all))
	}
	return all[0]
}

// labelNode sets a Node's label, or removes it when value is empty.
func labelNode(t *testing.T, env *harness.Env, node, key, value string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := env.Kube.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		if value == "" {
			delete(n.Labels, key)
		} else {
			n.Labels[key] = value
		}
		_, err = env.Kube.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
