//go:build e2e

package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/e2e/harness"
)

// clusterWith is cluster with the CCM's environment extended by env.
func clusterWith(t *testing.T, env []string, nodes ...string) (*harness.Env, context.Context) {
	t.Helper()
	e := setup(t, func(o *harness.Options) { o.CCMEnv = append(o.CCMEnv, env...) })
	ctx := context.Background()
	if _, err := e.StartCCM(ctx); err != nil {
		t.Fatal(err)
	}
	for i, n := range nodes {
		if err := e.RegisterNode(ctx, n, cidr(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		eventually(t, time.Minute, n+" initialised", func() bool { return node(t, e, n).Spec.ProviderID != "" })
	}
	return e, ctx
}

// classService is a LoadBalancer Service on port 80 of class ("" for none).
func classService(name, class string) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if class != "" {
		svc.Spec.LoadBalancerClass = &class
	}
	return svc
}

// TestLoadBalancerClass: a CCM told to serve only its class
// (HCLOUD_LOAD_BALANCERS_CLASS, HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS=false)
// makes a load balancer for a Service of that class, and leaves one
// without a class and one of MetalLB's alone: no load balancer, no
// finalizer, no address.
func TestLoadBalancerClass(t *testing.T) {
	env, ctx := clusterWith(t, []string{"HCLOUD_LOAD_BALANCERS_CLASS=example.com/hcloud", "HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS=false"},
		"control-plane-1", "worker-1")
	svcs := env.Kube.CoreV1().Services("default")
	done := timed(t, "a class served, two left alone")
	for _, svc := range []*corev1.Service{classService("plain", ""), classService("metallb", "metallb.io/metallb"), classService("ours", "example.com/hcloud")} {
		if _, err := svcs.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, time.Minute, "the Service of the class served gets its address", func() bool {
		return len(get(t, env, "ours").Status.LoadBalancer.Ingress) > 0
	})
	done()
	lbs, err := env.Cloud().Client.LoadBalancer.All(ctx)
	if err != nil || len(lbs) != 1 {
		t.Fatalf("%d load balancers (%v), want the one of ours", len(lbs), err)
	}
	if ours := get(t, env, "ours"); ours.Spec.LoadBalancerClass == nil || *ours.Spec.LoadBalancerClass != "example.com/hcloud" ||
		!slices.Contains(ours.Finalizers, lbFinalizer) {
		t.Errorf("ours: class %v, finalizers %v", ours.Spec.LoadBalancerClass, ours.Finalizers)
	}
	for _, name := range []string{"plain", "metallb"} {
		if s := get(t, env, name); len(s.Finalizers) != 0 || len(s.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("%s was served: finalizers %v, status %v", name, s.Finalizers, s.Status.LoadBalancer.Ingress)
		}
	}
}
