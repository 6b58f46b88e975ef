package loadbalancer

import (
	"slices"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// terraformLB is a load balancer as Terraform makes it: named, in fsn1,
// labelled managed-by=terraform, with a service on each of ports and a
// label selector target.
func (c *lbCluster) terraformLB(t *testing.T, name string, ports ...int) *hcloud.LoadBalancer {
	t.Helper()
	ctx := t.Context()
	opts := hcloud.LoadBalancerCreateOpts{Name: name, LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
		Location: &hcloud.Location{Name: "fsn1"}, Labels: map[string]string{"managed-by": "terraform"},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{{Type: hcloud.LoadBalancerTargetTypeLabelSelector,
			LabelSelector: hcloud.LoadBalancerCreateOptsTargetLabelSelector{Selector: "role=db"}}}}
	for _, p := range ports {
		opts.Services = append(opts.Services, hcloud.LoadBalancerCreateOptsService{Protocol: hcloud.LoadBalancerServiceProtocolTCP,
			ListenPort: hcloud.Ptr(p), DestinationPort: hcloud.Ptr(p)})
	}
	res, _, err := c.Client.LoadBalancer.Create(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Client.Action.WaitFor(ctx, res.Action); err != nil {
		t.Fatal(err)
	}
	return res.LoadBalancer
}

// listenPorts are lb's services' ports, sorted.
func listenPorts(lb *hcloud.LoadBalancer) []int {
	var out []int
	for _, s := range lb.Services {
		out = append(out, s.ListenPort)
	}
	slices.Sort(out)
	return out
}

// TestKeepOtherServices: a load balancer Terraform made, with its own
// service on 5432, adopted by a Service with keep-other-services: the CCM
// adds and later removes its own ports only, records them in the
// hcloud-ccm/ports label, and leaves Terraform's service and labels.
func TestKeepOtherServices(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	c.terraformLB(t, "shop", 5432)
	svc := lbService("shop", []int32{80}, "name", "shop", "keep-other-services", "true")
	c.ensure(t, svc, c.nodes)
	lb := c.LoadBalancerOf(t, svc)
	if got := listenPorts(lb); !slices.Equal(got, []int{80, 5432}) {
		t.Errorf("ports %v, want the Service's 80 and Terraform's 5432", got)
	}
	if lb.Labels["managed-by"] != "terraform" || lb.Labels[portsLabel] != "80" || lb.Labels[uidLabel] != string(svc.UID) {
		t.Errorf("labels %v", lb.Labels)
	}
	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("resync sent %d requests, want 0", n)
	}

	// The Service moves from 80 to 443: the CCM's 80 goes, Terraform's stays.
	svc.Spec.Ports[0].Port = 443
	if _, n := c.ensure(t, svc, c.nodes); n != 3 {
		t.Errorf("moving a port sent %d requests, want 3 (the label, delete_service, add_service)", n)
	}
	lb = c.LoadBalancerOf(t, svc)
	if got := listenPorts(lb); !slices.Equal(got, []int{443, 5432}) || lb.Labels[portsLabel] != "443" {
		t.Errorf("ports %v, label %q; want 443 and 5432, label 443", got, lb.Labels[portsLabel])
	}
	if !slices.ContainsFunc(lb.Targets, func(t hcloud.LoadBalancerTarget) bool { return t.Type == hcloud.LoadBalancerTargetTypeLabelSelector }) {
		t.Error("Terraform's label selector target is gone")
	}

	// Without the annotation the Service's ports are all there is, as upstream.
	delete(svc.Annotations, annotationKey("keep-other-services"))
	c.ensure(t, svc, c.nodes)
	lb = c.LoadBalancerOf(t, svc)
	if got := listenPorts(lb); !slices.Equal(got, []int{443}) {
		t.Errorf("ports %v without keep-other-services, want only 443", got)
	}
	if _, ok := lb.Labels[portsLabel]; ok {
		t.Errorf("the ports label stays without keep-other-services: %v", lb.Labels)
	}
}

// TestRetainOnDelete: a deleted Service with retain-on-delete leaves its
// load balancer and managed certificate, without the CCM's labels; a new
// Service naming them adopts both, with the same addresses.
func TestRetainOnDelete(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	annotations := []string{"name", "shop", "retain-on-delete", "true", "protocol", "https", "certificate-type", "managed",
		"http-managed-certificate-name", "shop-cert", "http-managed-certificate-domains", "shop.example.com"}
	first := lbService("shop", []int32{443}, annotations...)
	st, _ := c.ensure(t, first, c.nodes)
	before := c.LoadBalancerOf(t, first)
	cert, _, err := c.Client.Certificate.GetByName(t.Context(), "shop-cert")
	if err != nil || cert == nil {
		t.Fatalf("managed certificate: %v", err)
	}

	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", first); err != nil {
		t.Fatal(err)
	}
	kept, _, err := c.Client.LoadBalancer.GetByID(t.Context(), before.ID)
	if err != nil || kept == nil {
		t.Fatalf("the retained load balancer is gone: %v", err)
	}
	if _, owned := kept.Labels[uidLabel]; owned || len(kept.Services) != 1 {
		t.Errorf("retained: labels %v, %d services; want no owner and its service", kept.Labels, len(kept.Services))
	}
	if !c.hasEvent(t, corev1.EventTypeNormal, eventLBRetained, first.Name) {
		t.Error("no LoadBalancerRetained event")
	}
	if got, _, _ := c.Client.Certificate.GetByID(t.Context(), cert.ID); got == nil || got.Labels[uidLabel] != "" {
		t.Errorf("managed certificate %+v, want it kept without the owner label", got)
	}

	second := lbService("shop", []int32{443}, annotations...)
	second.UID = types.UID("22222222-1111-2222-3333-444455556666")
	st2, _ := c.ensure(t, second, c.nodes)
	after := c.LoadBalancerOf(t, second)
	if after.ID != before.ID || st2.Ingress[0].IP != st.Ingress[0].IP {
		t.Errorf("adopted load balancer %d at %s, want %d at %s", after.ID, st2.Ingress[0].IP, before.ID, st.Ingress[0].IP)
	}
	certs, _ := c.Client.Certificate.All(t.Context())
	if len(certs) != 1 || certs[0].ID != cert.ID || certs[0].Labels[uidLabel] != string(second.UID) {
		t.Errorf("certificates %d, want the one adopted by the new Service", len(certs))
	}
	if s := after.Services[0].HTTP.Certificates; len(s) != 1 || s[0].ID != cert.ID {
		t.Errorf("the https service's certificates %v, want %d", s, cert.ID)
	}

	// A value that is not false counts as asked: a typo never deletes.
	typo := lbService("typo", []int32{80}, "retain-on-delete", "true")
	c.ensure(t, typo, c.nodes)
	typo.Annotations[annotationKey("retain-on-delete")] = "yes"
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", typo); err != nil {
		t.Fatal(err)
	}
	if n := len(c.LoadBalancers(t)); n != 2 {
		t.Errorf("%d load balancers, want 2: retain-on-delete=yes keeps it", n)
	}
}

// TestExternallyManaged: a Service naming a load balancer Terraform
// manages gets its addresses in the status and changes nothing; with
// manage-targets the CCM keeps its server targets; deleting the Service
// leaves the load balancer; a missing one is reported, never created.
func TestExternallyManaged(t *testing.T) {
	c := newLBCluster(t, 3, fakecloud.Options{})
	tf := c.terraformLB(t, "edge", 80, 443)
	svc := lbService("edge", []int32{80}, "name", "edge", "externally-managed", "true")
	st, n := c.ensure(t, svc, c.nodes)
	if n != 1 || len(st.Ingress) == 0 || st.Ingress[0].IP != tf.PublicNet.IPv4.IP.String() {
		t.Errorf("status %v after %d requests, want %s after one GET", st.Ingress, n, tf.PublicNet.IPv4.IP)
	}
	lb := c.named(t, "edge")
	if !slices.Equal(listenPorts(lb), []int{80, 443}) || len(lb.Targets) != 1 || len(lb.Labels) != 1 {
		t.Errorf("the load balancer changed: ports %v, %d targets, labels %v", listenPorts(lb), len(lb.Targets), lb.Labels)
	}
	if _, n := c.ensure(t, svc, c.nodes); n != 0 {
		t.Errorf("resync sent %d requests, want 0", n)
	}

	svc.Annotations[annotationKey("manage-targets")] = "true"
	c.ensure(t, svc, c.nodes)
	lb = c.named(t, "edge")
	if len(lb.Targets) != 4 || len(lb.Labels) != 1 || !slices.Equal(listenPorts(lb), []int{80, 443}) {
		t.Errorf("with manage-targets: %d targets (want the 3 nodes and the label selector), labels %v, ports %v", len(lb.Targets), lb.Labels, listenPorts(lb))
	}
	if n := c.update(t, svc, c.nodes[:2]); n != 1 {
		t.Errorf("a node leaving sent %d requests, want 1", n)
	}

	before := c.Requests()
	if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
		t.Fatal(err)
	}
	if n := c.Requests() - before; n != 0 || len(c.LoadBalancers(t)) != 1 {
		t.Errorf("deleting the Service sent %d requests and left %d load balancers; want 0 and Terraform's", n, len(c.LoadBalancers(t)))
	}

	missing := lbService("missing", []int32{80}, "name", "nowhere", "externally-managed", "true")
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", missing, c.nodes); err == nil {
		t.Error("a missing externally managed load balancer was not reported")
	}
	if !c.hasEvent(t, corev1.EventTypeWarning, eventLBNotFound, missing.Name) || len(c.LoadBalancers(t)) != 1 {
		t.Errorf("want a LoadBalancerNotFound event and no load balancer created")
	}
}

// named is the load balancer named name.
func (c *lbCluster) named(t *testing.T, name string) *hcloud.LoadBalancer {
	t.Helper()
	lb, _, err := c.Client.LoadBalancer.GetByName(t.Context(), name)
	if err != nil || lb == nil {
		t.Fatalf("load balancer %s: %v", name, err)
	}
	return lb
}

func annotationKey(short string) string { return "load-balancer.hetzner.cloud/" + short }
