//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// healthByTarget is each target of the one load balancer (a server's name
// or an ip) with its health for the listen port.
func healthByTarget(ctx context.Context, port int) map[string]string {
	out := map[string]string{}
	lbs, err := cluster.cloud.Client.LoadBalancer.All(ctx)
	if err != nil || len(lbs) != 1 {
		return out
	}
	for _, tg := range lbs[0].Targets {
		name := ""
		switch {
		case tg.Server != nil && tg.Server.Server != nil:
			if s, _, err := cluster.cloud.Client.Server.GetByID(ctx, tg.Server.Server.ID); err == nil && s != nil {
				name = s.Name
			}
		case tg.IP != nil:
			name = tg.IP.IP
		}
		for _, h := range tg.HealthStatus {
			if h.ListenPort == port && name != "" {
				out[name] = string(h.Status)
			}
		}
	}
	return out
}

// updateService changes Service web, retried on conflict.
func updateService(t *testing.T, ctx context.Context, change func(*corev1.Service)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		svc, err := cluster.kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(svc)
		_, err = cluster.kube.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scaleWeb sets Deployment web's replicas and waits until exactly that
// many pods run, ready.
func scaleWeb(t *testing.T, ctx context.Context, n int32) map[string]string {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := cluster.kube.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Replicas = &n
		_, err = cluster.kube.AppsV1().Deployments("default").Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var pods map[string]string
	if err := fakecloudtest.Wait(3*time.Minute, func() bool {
		d, err := cluster.kube.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		pods, _ = echoPods(ctx)
		return err == nil && d.Status.ReadyReplicas == n && len(pods) == int(n)
	}); err != nil {
		t.Fatalf("web not at %d ready pods: %v (%v)", n, err, pods)
	}
	return pods
}

// allServed sends n requests to url, one connection each: every one must
// be answered, by a pod of want.
func allServed(url string, n int, want map[string]string) error {
	for i := range n {
		pod, err := served(url)
		if err != nil {
			return fmt.Errorf("request %d of %d: %v", i+1, n, err)
		}
		if _, ok := want[pod]; !ok {
			return fmt.Errorf("request %d answered by %q, not one of %v", i+1, pod, slices.Collect(maps.Keys(want)))
		}
	}
	return nil
}

// localTraffic: with one pod and externalTrafficPolicy Local, the load
// balancer checks the Service's healthCheckNodePort: fakecloud finds only
// the pod's node healthy, and every request reaches the pod. The Service
// and the Deployment are put back as they were.
func localTraffic(t *testing.T, ctx context.Context, port int) {
	pods := scaleWeb(t, ctx, 1)
	defer scaleWeb(t, ctx, 2)
	var podNode string
	for _, node := range pods {
		podNode = node
	}
	updateService(t, ctx, func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal })
	defer updateService(t, ctx, func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster })
	var health map[string]string
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		health = healthByTarget(ctx, port)
		if len(health) < 2 || health[podNode] != string(hcloud.LoadBalancerTargetHealthStatusStatusHealthy) {
			return false
		}
		for name, h := range health {
			if name != podNode && h != string(hcloud.LoadBalancerTargetHealthStatusStatusUnhealthy) {
				return false
			}
		}
		return true
	}); err != nil {
		t.Fatalf("health %v, want %s alone healthy: %v (%s)", health, podNode, err, checksOf(ctx))
	}
	if err := allServed(fmt.Sprintf("http://%s:%d/", ingress(ctx, "web"), port), 30, pods); err != nil {
		t.Fatal(err)
	}
	logf("Local: %v; 30 of 30 requests reached the pod on %s", health, podNode)
}

// autoscalerDrain: with kube-proxy's /healthz checked, a node the cluster
// autoscaler marks for removal drops out of the load balancer, and no
// request fails meanwhile; the mark gone, it comes back.
func autoscalerDrain(t *testing.T, ctx context.Context, port int, node string) {
	const drain = "load-balancer.hetzner.cloud/health-check-kube-proxy"
	updateService(t, ctx, func(s *corev1.Service) { s.Annotations[drain] = "true" })
	defer updateService(t, ctx, func(s *corev1.Service) { delete(s.Annotations, drain) })
	healthy := func(want string) func() bool {
		return func() bool { return healthByTarget(ctx, port)[node] == want }
	}
	if err := fakecloudtest.Wait(2*time.Minute, healthy("healthy")); err != nil {
		t.Fatalf("%s not healthy under kube-proxy's check: %v (%v)", node, err, healthByTarget(ctx, port))
	}
	pods, err := echoPods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://%s:%d/", ingress(ctx, "web"), port)
	taint := corev1.Taint{Key: "ToBeDeletedByClusterAutoscaler", Value: fmt.Sprint(time.Now().Unix()), Effect: corev1.TaintEffectNoSchedule}
	setTaint(t, ctx, node, &taint)
	defer setTaint(t, ctx, node, nil)
	// Requests go on while the load balancer notices: none may fail.
	failed := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(failed)
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := allServed(url, 1, pods); err != nil {
				failed <- err
				return
			}
		}
	}()
	err = fakecloudtest.Wait(2*time.Minute, healthy("unhealthy"))
	close(done)
	if ferr := <-failed; ferr != nil {
		t.Errorf("a request failed while %s drained: %v", node, ferr)
	}
	if err != nil {
		t.Fatalf("%s marked for removal is still %q: %v", node, healthByTarget(ctx, port)[node], err)
	}
	logf("%s marked ToBeDeletedByClusterAutoscaler left the load balancer (%v) with no failed request", node, healthByTarget(ctx, port))
}

// setTaint puts taint on node, or takes the autoscaler's off when nil.
func setTaint(t *testing.T, ctx context.Context, node string, taint *corev1.Taint) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := cluster.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(x corev1.Taint) bool { return strings.HasPrefix(x.Key, "ToBeDeletedByClusterAutoscaler") })
		if taint != nil {
			n.Spec.Taints = append(n.Spec.Taints, *taint)
		}
		_, err = cluster.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checksOf describes the load balancer's health checks and the Service's
// health check node port, for a failure's message.
func checksOf(ctx context.Context) string {
	var out []string
	if svc, err := cluster.kube.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{}); err == nil {
		out = append(out, fmt.Sprintf("Service %s, healthCheckNodePort %d", svc.Spec.ExternalTrafficPolicy, svc.Spec.HealthCheckNodePort))
	}
	lbs, err := cluster.cloud.Client.LoadBalancer.All(ctx)
	if err != nil || len(lbs) != 1 {
		return fmt.Sprintf("%v; %d load balancers, %v", out, len(lbs), err)
	}
	for _, s := range lbs[0].Services {
		hc := s.HealthCheck
		path := ""
		if hc.HTTP != nil {
			path = hc.HTTP.Path
		}
		out = append(out, fmt.Sprintf("port %d checks %s:%d%s", s.ListenPort, hc.Protocol, hc.Port, path))
	}
	return strings.Join(out, "; ")
}
