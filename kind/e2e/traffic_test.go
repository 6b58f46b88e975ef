//go:build e2ekind

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"k8s.io/utils/ptr"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// deployEcho runs kind/echo as Deployment web: two pods, one per worker.
func deployEcho(ctx context.Context) error {
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To(int32(2)),
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname",
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}},
			Containers: []corev1.Container{{Name: "echo", Image: "hcloud-ccm/echo:dev", ImagePullPolicy: corev1.PullNever,
				Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080)}},
					PeriodSeconds: 1}}},
		}},
	}}
	if _, err := cluster.kube.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		return err
	}
	return fakecloudtest.Wait(3*time.Minute, func() bool {
		got, err := cluster.kube.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.ReadyReplicas == 2
	})
}

// echoPods maps the names of web's pods to their nodes.
func echoPods(ctx context.Context) (map[string]string, error) {
	pods, err := cluster.kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range pods.Items {
		out[p.Name] = p.Spec.NodeName
	}
	return out, nil
}

// ingress is the Service's load balancer IPv4, or "".
func ingress(ctx context.Context, name string) string {
	s, err := cluster.kube.CoreV1().Services("default").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	for _, in := range s.Status.LoadBalancer.Ingress {
		if !strings.Contains(in.IP, ":") && in.IP != "" {
			return in.IP
		}
	}
	return ""
}

var oneShot = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 3 * time.Second}

// served asks url once and returns the pod that answered.
func served(url string) (string, error) {
	resp, err := oneShot.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, body)
	}
	return strings.TrimPrefix(strings.TrimSpace(string(body)), "served by "), nil
}

// reachesAll waits until url answers, then asks it up to 60 times until
// every pod in want has answered. It fails on any error once traffic flows.
func reachesAll(url string, want map[string]string) error {
	if err := fakecloudtest.Wait(2*time.Minute, func() bool { _, err := served(url); return err == nil }); err != nil {
		_, last := served(url)
		return fmt.Errorf("%s never answered: %v (last: %v)", url, err, last)
	}
	seen := map[string]bool{}
	for i := 0; i < 60 && len(seen) < len(want); i++ {
		pod, err := served(url)
		if err != nil {
			return fmt.Errorf("request %d to %s, after it had answered: %v", i+1, url, err)
		}
		if _, ok := want[pod]; !ok {
			return fmt.Errorf("%s answered from %q, not one of %v", url, pod, want)
		}
		seen[pod] = true
	}
	if len(seen) != len(want) {
		return fmt.Errorf("60 requests to %s reached only %v of %v", url, seen, want)
	}
	return nil
}

// throughDedicated: the dedicated node is the load balancer's ip target
// (its InternalIP, the Service asks for private IPs); with the cloud
// servers' targets made unhealthy, every pod is still reached, so the
// traffic went through the dedicated node's node port.
func throughDedicated(t *testing.T, ctx context.Context, pods map[string]string) {
	ip := cluster.nodes[cluster.dedicated]
	var lb *hcloud.LoadBalancer
	if err := fakecloudtest.Wait(time.Minute, func() bool {
		lbs, err := cluster.cloud.Client.LoadBalancer.All(ctx)
		if err != nil || len(lbs) != 1 {
			return false
		}
		lb = lbs[0]
		return slices.ContainsFunc(lb.Targets, func(tg hcloud.LoadBalancerTarget) bool { return tg.IP != nil && tg.IP.IP == ip })
	}); err != nil {
		t.Fatalf("no ip target %s for the dedicated node: %v", ip, err)
	}
	set := func(e fakecloud.Event) {
		e.Type, e.LoadBalancer = "set_target_health", lb.ID
		if err := cluster.cloud.Apply(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	servers := func(h string) {
		for _, tg := range lb.Targets {
			if tg.Server != nil && tg.Server.Server != nil {
				set(fakecloud.Event{Server: tg.Server.Server.ID, Health: h})
			}
		}
	}
	url := "http://" + ingress(ctx, "web") + ":80/"
	servers("unhealthy")
	defer servers("checked")
	time.Sleep(500 * time.Millisecond) // fakecloud's traffic plane applies a change within 100 ms
	if err := reachesAll(url, pods); err != nil {
		t.Fatalf("through the dedicated node alone: %v", err)
	}
	// With the ip target unhealthy too nothing answers: the health set
	// above was in force, and the answers came through the dedicated node.
	set(fakecloud.Event{IP: ip, Health: "unhealthy"})
	defer set(fakecloud.Event{IP: ip, Health: "checked"})
	if err := fakecloudtest.Wait(10*time.Second, func() bool { _, err := served(url); return err != nil }); err != nil {
		t.Fatalf("the load balancer still answers with every target unhealthy: %v", err)
	}
	logf("every pod answered through the dedicated node's ip target %s alone", ip)
}
