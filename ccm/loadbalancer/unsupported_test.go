package loadbalancer

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestWhatIsNotDoneIsSaid: a Service's source ranges, and the official
// CCM's public-net annotations, each give a Warning event that says they
// are not acted on, and the load balancer is made all the same.
func TestWhatIsNotDoneIsSaid(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	svc := lbService("open", []int32{80}, "public-net-ipv4", "4711")
	svc.Spec.LoadBalancerSourceRanges = []string{"203.0.113.0/24"}
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes); err != nil {
		t.Fatal(err)
	}
	var ranges, publicNet bool
	for _, e := range c.rec.about("open") {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		ranges = ranges || (e.Reason == eventSourceRanges && strings.Contains(e.Message, "203.0.113.0/24") && strings.Contains(e.Message, "accepts every address"))
		publicNet = publicNet || (e.Reason == eventBadAnnotation && strings.Contains(e.Message, "public-net-ipv4"))
	}
	if !ranges || !publicNet {
		t.Errorf("events %+v: want SourceRangesNotEnforced naming the range, and InvalidAnnotation naming public-net-ipv4", c.rec.about("open"))
	}
	quiet := lbService("quiet", []int32{80})
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", quiet, c.nodes); err != nil {
		t.Fatal(err)
	}
	if c.hasEvent(t, corev1.EventTypeWarning, eventSourceRanges, "quiet") {
		t.Error("a Service without source ranges was warned of them")
	}
}
