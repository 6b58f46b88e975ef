package faultsweep

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

func TestCallsAndFaults(t *testing.T) {
	entries := []fakecloud.JournalEntry{
		{Method: "GET", Template: "/load_balancers", UserAgent: "hcloud-ccm/v1 hcloud-go/2.52.0"},
		{Method: "GET", Template: "/load_balancers", UserAgent: "hcloud-go/2.52.0"}, // the test's own read
		{Method: "POST", Template: "/load_balancers", UserAgent: "hcloud-ccm/v1", Actions: []string{"create_load_balancer"}},
		{Method: "POST", Template: "/load_balancers/{id}/actions/add_target", UserAgent: "hcloud-ccm/v1", Actions: []string{"add_target"}},
		{Method: "POST", Template: "/load_balancers/{id}/actions/add_target", UserAgent: "hcloud-ccm/v1", Actions: []string{"add_target"}},
		{Method: "GET", Template: "/load_balancers", UserAgent: "hcloud-ccm/v1"},
	}
	calls := Calls(entries, "hcloud-ccm/")
	want := []Call{
		{Method: "GET", Template: "/load_balancers", N: 1},
		{Method: "POST", Template: "/load_balancers", N: 1, Actions: []Action{{"create_load_balancer", 1}}},
		{Method: "POST", Template: "/load_balancers/{id}/actions/add_target", N: 1, Actions: []Action{{"add_target", 1}}},
		{Method: "POST", Template: "/load_balancers/{id}/actions/add_target", N: 2, Actions: []Action{{"add_target", 2}}},
		{Method: "GET", Template: "/load_balancers", N: 2},
	}
	if d := cmp.Diff(want, calls); d != "" {
		t.Fatalf("calls (-want +got):\n%s", d)
	}
	var got []string
	for _, f := range Faults(calls[:2], Kinds) {
		got = append(got, f.String())
	}
	wantFaults := []string{
		"GET /load_balancers #1: 500", "GET /load_balancers #1: 503", "GET /load_balancers #1: 429", "GET /load_balancers #1: hang",
		"POST /load_balancers #1: 500", "POST /load_balancers #1: 503", "POST /load_balancers #1: 429", "POST /load_balancers #1: 409",
		"POST /load_balancers #1: 423", "POST /load_balancers #1: 422", "POST /load_balancers #1: hang", "POST /load_balancers #1: after-commit",
		"POST /load_balancers #1: action-error", "POST /load_balancers #1: action-stuck",
	}
	if d := cmp.Diff(wantFaults, got); d != "" {
		t.Errorf("faults (-want +got):\n%s", d)
	}
}

// TestFaultHitsExactlyItsCall: the rule and the action fault a sweep
// makes for the second add_target leave the first alone and fail the
// second, and every later one until lifted.
func TestFaultHitsExactlyItsCall(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{RateLimit: -1})
	t.Cleanup(fc.Close)
	if err := fc.Seed(fakecloud.World{Servers: []fakecloud.SeedServer{{Name: "a"}, {Name: "b"}, {Name: "c"}}}); err != nil {
		t.Fatal(err)
	}
	client := fakecloudtest.Client(fakecloudtest.Serve(t, fc), fakecloud.DefaultToken,
		hcloud.WithApplication("sweeper", "v1"), hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(0), MaxRetries: 0}))
	ctx := t.Context()
	res, _, err := client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	servers, err := client.Server.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second := Call{Method: "POST", Template: "/load_balancers/{id}/actions/add_target", N: 2, Actions: []Action{{"add_target", 2}}}
	for _, kind := range []Kind{Unavailable, ActionError} {
		fc.ClearFaults()
		f := Fault{Call: second, Kind: kind}
		if r, ok := f.Rule("sweeper/"); ok {
			if _, err := fc.AddFault(r); err != nil {
				t.Fatal(err)
			}
		}
		if a, ok := f.ActionFault(time.Minute); ok {
			if _, err := fc.AddActionFault(a); err != nil {
				t.Fatal(err)
			}
		}
		var failed []bool
		for _, s := range servers {
			a, _, err := client.LoadBalancer.AddServerTarget(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServerTargetOpts{Server: s})
			if err == nil {
				err = client.Action.WaitFor(ctx, a)
			}
			failed = append(failed, err != nil)
			var actionErr hcloud.ActionError
			if kind == ActionError && err != nil && !errors.As(err, &actionErr) {
				t.Errorf("%s: %v, want an action error", f, err)
			}
			if err == nil {
				if _, _, err := client.LoadBalancer.RemoveServerTarget(ctx, res.LoadBalancer, s); err != nil {
					t.Fatal(err)
				}
			}
		}
		if d := cmp.Diff([]bool{false, true, true}, failed); d != "" {
			t.Errorf("%s: failed (-want +got):\n%s", f, d)
		}
	}
}

func TestReport(t *testing.T) {
	create := Call{Method: "POST", Template: "/load_balancers", N: 1}
	results := []Result{
		{Op: "create", Fault: Fault{create, ServerError}, Converge: 2 * time.Second, Requests: 4},
		{Op: "create", Fault: Fault{create, ServerError}, Converge: 3 * time.Second, Requests: 2, Broken: []string{"two load balancers"}},
		{Op: "delete", Fault: Fault{create, Hang}, Converge: time.Second, Requests: 1},
	}
	if got := Summary(results); got != "faults: 3 runs, 2 held" {
		t.Errorf("summary %q", got)
	}
	md := Markdown(results)
	for _, row := range []string{"| create | 500 | 2 | 1 | 3s | 4 |", "| delete | hang | 1 | 1 | 1s | 1 |"} {
		if !strings.Contains(md, row) {
			t.Errorf("table lacks %q:\n%s", row, md)
		}
	}
}

// TestKilledHoldsTheAnswer: the killed kind serves exactly its call and
// holds the answer until the client goes, so a harness kills it there.
func TestKilledHoldsTheAnswer(t *testing.T) {
	r, ok := Fault{Call: Call{Method: "POST", Template: "/load_balancers", N: 2}, Kind: Killed}.Rule("hcloud-ccm/")
	if !ok || r.Status != 0 || !r.Hang || !r.AfterCommit || r.Count != 1 || r.Skip != 1 || r.UserAgent != "hcloud-ccm/" {
		t.Errorf("rule %+v, want the second POST served and its answer held", r)
	}
	if !Killed.Applies(Call{Method: "GET", Template: "/servers", N: 1}) {
		t.Error("killed does not apply to a read")
	}
	// A read commits nothing: its answer is held unserved, which fakecloud
	// takes (after_commit on a GET is refused).
	r, _ = Fault{Call: Call{Method: "GET", Template: "/servers", N: 1}, Kind: Killed}.Rule("hcloud-ccm/")
	if !r.Hang || r.AfterCommit {
		t.Errorf("rule %+v for a read, want held without after_commit", r)
	}
	if _, err := fakecloud.New(fakecloud.Options{}).AddFault(r); err != nil {
		t.Errorf("fakecloud refuses the killed rule of a read: %v", err)
	}
}
