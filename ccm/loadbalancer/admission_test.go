package loadbalancer

import (
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestAdmissionCheckCached: the webhook's cloud checks answer from what
// syncs already read and send nothing; before the first sync, and once a
// missing certificate's word is older than MaxAge, everything passes.
func TestAdmissionCheckCached(t *testing.T) {
	c := newLBCluster(t, 1, fakecloud.Options{})
	check := func(annotations ...string) error {
		t.Helper()
		svc := lbService("check", []int32{443}, annotations...)
		cfg, err := c.lbs.Validate(svc)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		before := c.Requests()
		err = c.lbs.CheckCached(svc, cfg)
		if n := c.Requests() - before; n != 0 {
			t.Errorf("CheckCached sent %d requests", n)
		}
		return err
	}
	bad := []string{"type", "lb99", "location", "mars1"}
	if err := check(bad...); err != nil {
		t.Errorf("before any sync (no types known): %v, want nil", err)
	}
	c.ensure(t, lbService("web", []int32{80}), c.nodes)

	for _, tc := range []struct {
		name        string
		annotations []string
		want        []string // parts of the error; none: nil
	}{
		{"known type and location", []string{"type", "lb21", "location", "nbg1"}, nil},
		{"unknown type", []string{"type", "lb99"}, []string{`load-balancer.hetzner.cloud/type="lb99"`, "one of lb11, lb21, lb31"}},
		{"unknown location", []string{"location", "mars1"}, []string{`load-balancer.hetzner.cloud/location="mars1"`, "fsn1", "hel1"}},
		{"both", bad, []string{"lb99", "mars1"}},
		{"certificate never looked up", []string{"protocol", "https", "http-certificates", "unknown"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(tc.annotations...)
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("err %v, want nil", err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err %v, want one that says %s", err, w)
				}
			}
		})
	}

	// A sync finds no certificate "gone"; another Service naming it is refused.
	https := lbService("tls", []int32{443}, "protocol", "https", "http-certificates", "gone")
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", https, c.nodes); err == nil {
		t.Fatal("EnsureLoadBalancer with a missing certificate succeeded")
	}
	err := check("protocol", "https", "http-certificates", "gone, 12")
	if err == nil || !strings.Contains(err.Error(), `load-balancer.hetzner.cloud/http-certificates="gone"`) || strings.Contains(err.Error(), "12") {
		t.Errorf("err %v, want the missing certificate gone named (and not the ID 12)", err)
	}
	c.clock.Advance(5 * time.Minute)
	if err := check("protocol", "https", "http-certificates", "gone"); err != nil {
		t.Errorf("after MaxAge: %v, want nil (the cache no longer vouches)", err)
	}
}
