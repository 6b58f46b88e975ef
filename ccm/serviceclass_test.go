// The upstream service controller races with itself (see
// upstream_service_test.go): these tests run without -race in make test.

//go:build !race

package ccm

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// classCluster is newLBCluster serving class, with three nodes and the
// upstream service controller running.
func classCluster(t *testing.T, class loadbalancer.Class) *lbCluster {
	t.Helper()
	c := newCluster(t, 3, fakecloud.Options{}, func(c *Config) {
		c.LoadBalancers = annotation.Defaults{Enabled: true, Type: "lb11", Location: "fsn1"}
		c.LoadBalancerClass = class
	})
	lc := &lbCluster{cluster: c, nodes: c.Nodes(t)}
	for _, n := range lc.nodes {
		if _, err := c.kube.CoreV1().Nodes().Create(c.ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	lc.runServices(t, 4)
	lc.start(t)
	return lc
}

// classed is a LoadBalancer Service of class ("" for none).
func classed(name, class string) *corev1.Service {
	svc := lbService(name, []int32{80})
	if class != "" {
		svc.Spec.LoadBalancerClass = &class
	}
	return svc
}

func (c *lbCluster) create(t *testing.T, svcs ...*corev1.Service) {
	t.Helper()
	for _, svc := range svcs {
		if _, err := c.kube.CoreV1().Services("default").Create(c.ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func (c *lbCluster) service(t *testing.T, name string) *corev1.Service {
	t.Helper()
	s, err := c.kube.CoreV1().Services("default").Get(c.ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServiceControllerServesItsClass: with the default settings the CCM
// serves Services of its class and those without one, and leaves another
// class's alone: no load balancer, no finalizer, no status. The view it
// gives the upstream controller never reaches the cluster.
func TestServiceControllerServesItsClass(t *testing.T) {
	c := classCluster(t, loadbalancer.Class{Name: loadbalancer.DefaultClass, WithoutClass: true})
	c.create(t, classed("ours", loadbalancer.DefaultClass), classed("plain", ""), classed("metallb", "metallb.io/metallb"))
	for _, name := range []string{"ours", "plain"} {
		fakecloudtest.Eventually(t, 20*time.Second, name+" gets its address", func() bool { return len(c.service(t, name).Status.LoadBalancer.Ingress) > 0 })
	}
	if n := len(c.LoadBalancers(t)); n != 2 {
		t.Errorf("%d load balancers, want 2: ours and plain", n)
	}
	other := c.service(t, "metallb")
	if len(other.Status.LoadBalancer.Ingress) != 0 || len(other.Finalizers) != 0 {
		t.Errorf("another class's Service touched: status %v, finalizers %v", other.Status.LoadBalancer.Ingress, other.Finalizers)
	}
	ours := c.service(t, "ours")
	if ours.Spec.LoadBalancerClass == nil || *ours.Spec.LoadBalancerClass != loadbalancer.DefaultClass {
		t.Errorf("class %v, want %s kept", ours.Spec.LoadBalancerClass, loadbalancer.DefaultClass)
	}
	if _, leaked := ours.Annotations[viewedAnnotation]; leaked || !slices.Contains(ours.Finalizers, finalizer) {
		t.Errorf("annotations %v, finalizers %v: want the finalizer and no trace of the view", ours.Annotations, ours.Finalizers)
	}
}

// TestServiceControllerOnlyItsClass: with Services without a class not
// served (HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS=false), only the
// configured class gets load balancers; a Service of that class turned
// into a ClusterIP Service (its class cleared, as the API demands) loses
// its load balancer.
func TestServiceControllerOnlyItsClass(t *testing.T) {
	c := classCluster(t, loadbalancer.Class{Name: "example.com/hcloud", WithoutClass: false})
	c.create(t, classed("ours", "example.com/hcloud"), classed("plain", ""))
	fakecloudtest.Eventually(t, 20*time.Second, "ours gets its address", func() bool { return len(c.service(t, "ours").Status.LoadBalancer.Ingress) > 0 })
	if lbs := c.LoadBalancers(t); len(lbs) != 1 || lbs[0].Labels["hcloud-ccm/service-uid"] != string(c.service(t, "ours").UID) {
		t.Fatalf("%d load balancers, want only that of ours", len(lbs))
	}
	if plain := c.service(t, "plain"); len(plain.Finalizers) != 0 || len(plain.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("a Service without a class was served: finalizers %v", plain.Finalizers)
	}

	s := c.service(t, "ours")
	s.Spec.Type, s.Spec.LoadBalancerClass = corev1.ServiceTypeClusterIP, nil
	if _, err := c.kube.CoreV1().Services("default").Update(c.ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	fakecloudtest.Eventually(t, 20*time.Second, "its load balancer deleted and the finalizer released", func() bool {
		return len(c.LoadBalancers(t)) == 0 && !slices.Contains(c.service(t, "ours").Finalizers, finalizer)
	})
}
