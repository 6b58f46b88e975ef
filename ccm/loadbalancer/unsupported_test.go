package loadbalancer

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestWhatIsNotDoneIsSaid: a Service's source ranges give a Warning event
// that says they are not enforced, and the load balancer is made all the
// same.
func TestWhatIsNotDoneIsSaid(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	svc := lbService("open", []int32{80})
	svc.Spec.LoadBalancerSourceRanges = []string{"203.0.113.0/24"}
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", svc, c.nodes); err != nil {
		t.Fatal(err)
	}
	var ranges bool
	for _, e := range c.rec.about("open") {
		if e.Type != corev1.EventTypeWarning {
			continue
		}
		ranges = ranges || (e.Reason == eventSourceRanges && strings.Contains(e.Message, "203.0.113.0/24") && strings.Contains(e.Message, "accepts every address"))
	}
	if !ranges {
		t.Errorf("events %+v: want SourceRangesNotEnforced naming the range", c.rec.about("open"))
	}
	quiet := lbService("quiet", []int32{80})
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", quiet, c.nodes); err != nil {
		t.Fatal(err)
	}
	if c.hasEvent(t, corev1.EventTypeWarning, eventSourceRanges, "quiet") {
		t.Error("a Service without source ranges was warned of them")
	}
}
