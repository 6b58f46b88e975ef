package loadbalancer

import (
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestAdmissionCheckCached: the webhook's cloud checks answer from what
// syncs already read and send nothing; before the first sync everything
// passes; a certificate a sync found missing is a warning until MaxAge.
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

	// A sync finds no certificate "gone"; another Service naming it gets a
	// warning, not a refusal: it may have been uploaded since.
	https := lbService("tls", []int32{443}, "protocol", "https", "http-certificates", "gone")
	if _, err := c.lbs.EnsureLoadBalancer(t.Context(), "", https, c.nodes); err == nil {
		t.Fatal("EnsureLoadBalancer with a missing certificate succeeded")
	}
	missing := func(refs string) []string {
		t.Helper()
		cfg, err := c.lbs.Validate(lbService("check", []int32{443}, "protocol", "https", "http-certificates", refs))
		if err != nil {
			t.Fatal(err)
		}
		before := c.Requests()
		defer func() {
			if n := c.Requests() - before; n != 0 {
				t.Errorf("CertificatesMissing sent %d requests", n)
			}
		}()
		return c.lbs.CertificatesMissing(cfg)
	}
	if err := check("protocol", "https", "http-certificates", "gone"); err != nil {
		t.Errorf("a certificate found missing: %v, want no refusal", err)
	}
	if w := missing("gone, 12"); len(w) != 1 || !strings.Contains(w[0], `no certificate "gone"`) {
		t.Errorf("warnings %q, want the missing certificate gone named (and not the ID 12)", w)
	}
	c.clock.Advance(5 * time.Minute)
	if w := missing("gone"); len(w) != 0 {
		t.Errorf("after MaxAge: %q, want none (the cache no longer vouches)", w)
	}
}
