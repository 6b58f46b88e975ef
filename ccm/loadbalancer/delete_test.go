package loadbalancer

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestLBManagedCertificateOutlivesNoFailure: while the API fails the
// managed certificate's deletion, the Service's deletion fails too (its
// finalizer stays, the controller tries again) and nothing is left once
// it answers; a refusal that lasts lets the Service go with a Warning.
func TestLBManagedCertificateOutlivesNoFailure(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	for _, tc := range []struct {
		name      string
		rule      fakecloud.Rule
		transient bool
	}{
		{"503", fakecloud.Rule{Method: "DELETE", Path: "/certificates/{id}", Status: 503}, true},
		{"listing hangs", fakecloud.Rule{Method: "GET", Path: "/certificates", Hang: true}, true},
		{"locked", fakecloud.Rule{Method: "DELETE", Path: "/certificates/{id}", Code: "locked"}, true},
		{"forbidden", fakecloud.Rule{Method: "DELETE", Path: "/certificates/{id}", Code: "forbidden"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := lbService("blog-"+tc.name, []int32{443}, "protocol", "https", "certificate-type", "managed",
				"http-managed-certificate-domains", "blog.example.com")
			c.ensure(t, svc, c.nodes)
			rule, err := c.FC.AddFault(tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			err = c.lbs.EnsureLoadBalancerDeleted(hangingCall(t), "", svc)
			c.FC.RemoveFault(rule.ID)
			if tc.transient != (err != nil) {
				t.Fatalf("deletion: %v; want an error (finalizer kept) %v", err, tc.transient)
			}
			if !tc.transient {
				if !c.hasEvent(t, corev1.EventTypeWarning, eventCertificateNotDeleted, svc.Name) {
					t.Error("no CertificateNotDeleted event")
				}
				return
			}
			// The upstream controller asks whether the load balancer exists
			// before it tries again; the certificate left says it does.
			now := metav1.Now()
			svc.DeletionTimestamp = &now
			if _, exists, err := c.lbs.GetLoadBalancer(t.Context(), "", svc); err != nil || !exists {
				t.Fatalf("GetLoadBalancer with the certificate left: exists %v, %v; want true", exists, err)
			}
			if err := c.lbs.EnsureLoadBalancerDeleted(t.Context(), "", svc); err != nil {
				t.Fatalf("deletion once the API answers: %v", err)
			}
			if _, exists, err := c.lbs.GetLoadBalancer(t.Context(), "", svc); err != nil || exists {
				t.Errorf("GetLoadBalancer once all is gone: exists %v, %v; want false", exists, err)
			}
			left, err := c.Client.Certificate.AllWithOpts(t.Context(), hcloud.CertificateListOpts{ListOpts: hcloud.ListOpts{LabelSelector: uidLabel + "=" + string(svc.UID)}})
			if err != nil || len(left) != 0 {
				t.Errorf("managed certificates left: %d (%v)", len(left), err)
			}
			if lbs := c.LoadBalancers(t); len(lbs) != 0 {
				t.Errorf("%d load balancers left", len(lbs))
			}
		})
	}
}

// TestLBNodeSyncIssuesNoCertificateWithoutLoadBalancer: a node sync
// (UpdateLoadBalancer) for a Service with no load balancer, such as one
// being deleted when a new leader starts, creates no managed certificate
// that nothing would delete.
func TestLBNodeSyncIssuesNoCertificateWithoutLoadBalancer(t *testing.T) {
	c := newLBCluster(t, 2, fakecloud.Options{})
	svc := lbService("blog", []int32{443}, "protocol", "https", "certificate-type", "managed", "http-managed-certificate-domains", "blog.example.com")
	if err := c.lbs.UpdateLoadBalancer(t.Context(), "", svc, c.nodes); err != nil {
		t.Fatal(err)
	}
	if n := c.FC.Requests("POST", ""); n != 0 {
		t.Errorf("%d POSTs, want none", n)
	}
	if certs, _ := c.Client.Certificate.All(t.Context()); len(certs) != 0 {
		t.Errorf("%d certificates created", len(certs))
	}
}
