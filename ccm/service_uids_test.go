package ccm

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestStaleServiceLabelIsAdopted: as cmd/ccm builds the provider, a load
// balancer labelled for a UID that no Service of the cluster has is
// adopted by name and relabelled; one labelled for a Service the cluster
// has is left to it.
func TestStaleServiceLabelIsAdopted(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	owner := lbService("owner", []int32{80})
	if _, err := c.kube.CoreV1().Services("default").Create(c.ctx, owner, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, uid := range map[string]string{"old": "gone-uid", "taken": string(owner.UID)} {
		if _, _, err := c.Client.LoadBalancer.Create(c.ctx, hcloud.LoadBalancerCreateOpts{Name: name, Labels: map[string]string{cloudtest.ServiceUIDLabel: uid},
			LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}}); err != nil {
			t.Fatal(err)
		}
	}
	lbs, _ := c.cloud.LoadBalancer()
	shop := lbService("shop", []int32{80}, "name", "old")
	if _, err := lbs.EnsureLoadBalancer(c.ctx, "", shop, c.nodes); err != nil {
		t.Fatalf("a load balancer labelled for no Service of the cluster was not adopted: %v", err)
	}
	other := lbService("other", []int32{80}, "name", "taken")
	if _, err := lbs.EnsureLoadBalancer(c.ctx, "", other, c.nodes); err == nil {
		t.Error("the load balancer of a Service of the cluster was taken")
	}
	got := map[string]string{}
	for _, lb := range c.LoadBalancers(t) {
		got[lb.Name] = lb.Labels[cloudtest.ServiceUIDLabel]
	}
	if got["old"] != string(shop.UID) || got["taken"] != string(owner.UID) || len(got) != 2 {
		t.Errorf("owners %v, want old relabelled for shop, taken still owner's, no other", got)
	}
}
