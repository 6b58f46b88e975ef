package parity

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestPlan prices a run from fakecloud's catalogue, as -live prices one
// from the live API's: the cheapest server type offered in the location
// (cx23, below cax11), the next one of its
// architecture, the cheapest load balancer type.
func TestPlan(t *testing.T) {
	target, fc := Fakecloud()
	t.Cleanup(target.Close)
	p, err := MakePlan(t.Context(), target, "fsn1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [3]string{p.ServerType, p.NextType, p.LoadBalancerType}, [3]string{"cx23", "cx33", "lb11"}; got != want {
		t.Errorf("types %v, want %v", got, want)
	}
	if p.IPv4Unknown != "" || p.IPv4Hour != 0.0008 {
		t.Errorf("a primary IPv4's hourly price: %v (%q), want 0.0008 from GET /pricing", p.IPv4Hour, p.IPv4Unknown)
	}
	const ip = 0.0008 // each server's primary IPv4
	want := []PlanScenario{
		{Name: "server-life", Minutes: 14, Servers: 1, Networks: 1, ChangesType: true, Cost: (0.0116 + ip) * 14 / 60, AtMost: 0.0116 + ip},
		{Name: "load-balancer-life", Minutes: 5, Servers: 1, LoadBalancers: 1, Cost: (0.0075 + ip + 0.0103) * 5 / 60, AtMost: 0.0075 + ip + 0.0103},
		{Name: "routes", Minutes: 2, Networks: 1},
		{Name: "mistakes", Minutes: 3, Servers: 1, Networks: 1, Cost: (0.0075 + ip) * 3 / 60, AtMost: 0.0075 + ip},
		{Name: "public-record", Minutes: 3, Servers: 1, Networks: 1, Cost: (0.0075 + ip) * 3 / 60, AtMost: 0.0075 + ip},
	}
	if diff := cmp.Diff(want, p.Scenarios, cmpopts.IgnoreFields(PlanScenario{}, "About"), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	p.Write(&out, "r42")
	for _, line := range []string{
		"in fsn1:",
		"server-life          about 14 min: 1 server (cx23, changed to cx33) with its primary IPv4 and IPv6, 1 network",
		"load-balancer-life   about  5 min: 1 server (cx23) with its primary IPv4 and IPv6, 1 load balancer (lb11)",
		"parity.hcloudlab.dev/kit=1 and parity.hcloudlab.dev/run=r42",
		"primary IPv4 0.0008",
		"Estimate: 0.0053 EUR for about 27 minutes; at most 0.0476 EUR",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the plan lacks %q:\n%s", line, out.String())
		}
	}

	// Without /pricing the plan still prices the rest, and says so.
	if _, err := fc.AddFault(fakecloud.Rule{Method: "GET", Path: "/pricing", Status: 503}); err != nil {
		t.Fatal(err)
	}
	unpriced, err := MakePlan(t.Context(), target, "fsn1", nil)
	out.Reset()
	if err == nil {
		unpriced.Write(&out, "r42")
	}
	if err != nil || unpriced.IPv4Unknown == "" || !strings.Contains(out.String(), "primary IPv4 unknown (GET /pricing:") {
		t.Errorf("a plan without /pricing: %v\n%s", err, out.String())
	}

	only, err := MakePlan(t.Context(), target, "fsn1", regexp.MustCompile("routes"))
	if err != nil || len(only.Scenarios) != 1 || only.Minutes() != 2 {
		t.Errorf("a plan of -run routes: %+v, %v", only, err)
	}
	if _, err := MakePlan(t.Context(), target, "mars1", nil); err == nil || !strings.Contains(err.Error(), "mars1") {
		t.Errorf("a location that does not exist: %v, want an error naming it", err)
	}
}
