//go:build e2ekind

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// ipv6Targets: the CCM in the cluster reads target-address-family. The
// chart runs it with HCLOUD_INSTANCES_ADDRESS_FAMILY=ipv4, so no Node
// lists an IPv6 ExternalIP: under dualstack each worker is a target on its
// IPv4 only and is told why not on IPv6 (NodeNotTargeted), under ipv6 the
// load balancer has no target at all. What kind cannot carry: traffic
// over IPv6 (fakecloud's data plane listens on the load balancers' IPv4,
// and the kind nodes do not hold their servers' /64s), and the node IPAM
// mode (kind's kube-controller-manager gives the pod ranges, which cannot
// change once set); the e2e scenario TestIPv6 covers both at the API. It
// leaves the cluster as it found it.
func ipv6Targets(t *testing.T, ctx context.Context) {
	svcs := cluster.kube.CoreV1().Services("default")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "six", Namespace: "default",
		Annotations: map[string]string{"load-balancer.hetzner.cloud/location": "fsn1", "load-balancer.hetzner.cloud/target-address-family": "dualstack"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	created, err := svcs.Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lbOf := func() *hcloud.LoadBalancer {
		lbs, err := cluster.cloud.Client.LoadBalancer.AllWithOpts(ctx, hcloud.LoadBalancerListOpts{
			ListOpts: hcloud.ListOpts{LabelSelector: "hcloud-ccm/service-uid=" + string(created.UID)}})
		if err != nil || len(lbs) != 1 {
			return nil
		}
		return lbs[0]
	}
	count := func(lb *hcloud.LoadBalancer) (servers, ips int) {
		for _, tg := range lb.Targets {
			switch tg.Type {
			case hcloud.LoadBalancerTargetTypeServer:
				servers++
			case hcloud.LoadBalancerTargetTypeIP:
				ips++
			}
		}
		return servers, ips
	}
	cloudWorkers := []string{cluster.name + "-worker", cluster.name + "-worker2"}
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		lb := lbOf()
		if lb == nil {
			return false
		}
		s, ip := count(lb)
		return s == len(cloudWorkers) && ip == 1
	}); err != nil {
		t.Fatalf("Service six's load balancer %+v, want %d server targets on IPv4 and the dedicated node's ip target: %v", lbOf(), len(cloudWorkers), err)
	}
	for _, w := range append(cloudWorkers, cluster.dedicated) {
		if err := fakecloudtest.Wait(time.Minute, func() bool { return hasEvent(ctx, w, "NodeNotTargeted") }); err != nil {
			t.Errorf("no NodeNotTargeted on %s, which lists no IPv6 ExternalIP: %v", w, err)
		}
	}
	logf("dualstack with Nodes that list no IPv6: %d IPv4 server targets, the dedicated node's ip target, NodeNotTargeted on each", len(cloudWorkers))
	cur, err := svcs.Get(ctx, "six", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Annotations["load-balancer.hetzner.cloud/target-address-family"] = "ipv6"
	if _, err := svcs.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(2*time.Minute, func() bool { lb := lbOf(); return lb != nil && len(lb.Targets) == 0 }); err != nil {
		t.Fatalf("under ipv6 Service six's load balancer keeps targets %+v: %v", lbOf(), err)
	}
	if err := svcs.Delete(ctx, "six", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := fakecloudtest.Wait(2*time.Minute, func() bool {
		_, err := svcs.Get(ctx, "six", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && lbOf() == nil
	}); err != nil {
		t.Fatalf("Service six or its load balancer not deleted: %v", err)
	}
}
