package loadbalancer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// recreated is svc as deleted and created again: a new UID.
func recreated(svc *corev1.Service) *corev1.Service {
	again := svc.DeepCopy()
	again.UID = types.UID(strings.Replace(string(svc.UID), "-1111-", "-9999-", 1))
	return again
}

// TestLBProtectedIsAdoptedWhenTheServiceIsRecreated: a delete-protected
// load balancer outlives its Service without the CCM's labels, so the
// Service recreated under a new UID with the same name annotation adopts
// it, its ID, addresses and the operator's labels kept.
func TestLBProtectedIsAdoptedWhenTheServiceIsRecreated(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	svc := lbService("shop", []int32{80}, "name", "shop")
	c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	labels := map[string]string{uidLabel: string(svc.UID), "team": "shop"}
	if _, _, err := c.Client.LoadBalancer.Update(t.Context(), lb, hcloud.LoadBalancerUpdateOpts{Labels: labels}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Client.LoadBalancer.ChangeProtection(t.Context(), lb, hcloud.LoadBalancerChangeProtectionOpts{Delete: hcloud.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
		t.Fatalf("a protected load balancer must not block the Service's deletion: %v", err)
	}
	kept, _, err := c.Client.LoadBalancer.GetByID(t.Context(), lb.ID)
	if err != nil || kept == nil {
		t.Fatalf("the protected load balancer is gone: %v", err)
	}
	if _, ok := kept.Labels[uidLabel]; ok || kept.Labels["team"] != "shop" {
		t.Errorf("labels %v after the Service went, want the CCM's gone and team kept", kept.Labels)
	}
	if got := c.messages(eventLBProtected, "shop"); len(got) != 1 || !strings.Contains(got[0], "load-balancer.hetzner.cloud/name: shop adopts it") {
		t.Errorf("warnings %q, want one naming the annotation that adopts it", got)
	}

	again := recreated(svc)
	st, _ := c.ensure(t, again, c.nodes)
	got := c.LoadBalancerOf(t, again)
	if all := c.LoadBalancers(t); len(all) != 1 || got.ID != lb.ID {
		t.Fatalf("%d load balancers, adopted %d; want the kept one, %d", len(all), got.ID, lb.ID)
	}
	if got.Labels[uidLabel] != string(again.UID) || got.Labels["team"] != "shop" {
		t.Errorf("labels %v, want the new UID and team kept", got.Labels)
	}
	if len(st.Ingress) == 0 || st.Ingress[0].IP != lb.PublicNet.IPv4.IP.String() {
		t.Errorf("status %+v, want the kept address %s", st.Ingress, lb.PublicNet.IPv4.IP)
	}
	if !c.hasEvent(t, corev1.EventTypeNormal, "AdoptedLoadBalancer", "shop") {
		t.Error("no AdoptedLoadBalancer event")
	}
}

// TestLBStaleLabelIsAdopted: a load balancer whose label names a UID no
// Service has (its Service recreated while the CCM was away, or another
// cluster's) is adopted by name and relabelled; one whose label names a
// live Service is not, nor when the Services cannot be listed.
func TestLBStaleLabelIsAdopted(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	var asked []string
	live := map[string]bool{"someone-else": true}
	var listErr error
	c.lbs.SetServiceUIDs(func(_ context.Context, uid string) (bool, error) {
		asked = append(asked, uid)
		return live[uid], listErr
	})
	c.createBehindTheBack(t, "shop", map[string]string{uidLabel: "gone-uid", "team": "shop"})
	c.createBehindTheBack(t, "cart", map[string]string{uidLabel: "someone-else"})

	shop := lbService("shop", []int32{80}, "name", "shop")
	c.ensure(t, shop, c.nodes)
	lb := c.LoadBalancerOf(t, shop)
	if lb.Labels[uidLabel] != string(shop.UID) || lb.Labels["team"] != "shop" || len(lb.Services) != 1 || lb.Services[0].ListenPort != 80 {
		t.Errorf("adopted load balancer: labels %v, %d services; want the new UID, team kept, port 80 alone", lb.Labels, len(lb.Services))
	}
	var adopted []string
	for _, e := range c.rec.about("shop") {
		if e.Reason == "AdoptedLoadBalancer" {
			adopted = append(adopted, e.Message)
		}
	}
	if len(adopted) != 1 || !strings.Contains(adopted[0], "its label hcloud-ccm/service-uid named gone-uid, which no Service of the cluster has") {
		t.Errorf("events %q, want one AdoptedLoadBalancer naming the stale UID", adopted)
	}

	cart := lbService("cart", []int32{80}, "name", "cart")
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", cart, c.nodes); err == nil {
		t.Error("the load balancer of a live Service was taken")
	}
	listErr = errors.New("apiserver unreachable")
	live["someone-else"] = false
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", cart, c.nodes); err == nil || !strings.Contains(err.Error(), "apiserver unreachable") {
		t.Errorf("with the Services unknown: %v, want the listing's error", err)
	}
	for _, l := range c.LoadBalancers(t) {
		if l.Name == "cart" && (l.Labels[uidLabel] != "someone-else" || len(l.Services) != 1 || l.Services[0].ListenPort != 9999) {
			t.Errorf("the live Service's load balancer was changed: %v", l.Labels)
		}
	}
	if len(c.messages("LoadBalancerNameTaken", "cart")) != 1 {
		t.Errorf("events %+v, want one LoadBalancerNameTaken", c.rec.about("cart"))
	}
	if want := []string{"gone-uid", "someone-else", "someone-else"}; strings.Join(asked, ",") != strings.Join(want, ",") {
		t.Errorf("asked about %v, want %v: once per name taken, never otherwise", asked, want)
	}
	// At steady state the adopted one is the Service's own: nothing is asked or sent.
	asked = nil
	if _, n := c.ensure(t, shop, c.nodes); n != 0 || len(asked) != 0 {
		t.Errorf("a sync of the adopted load balancer sent %d requests and asked about %v, want none", n, asked)
	}
}
