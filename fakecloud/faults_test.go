package fakecloud

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

// TestFaultStatusAsHcloudGoSeesIt shows, for each error a rule can answer
// with, what hcloud-go returns and how many requests it sent: it retries
// conflict, rate_limit_exceeded, bad_gateway and timeout (and bare 502 and
// 504) up to MaxRetries (5) times, and nothing else.
func TestFaultStatusAsHcloudGoSeesIt(t *testing.T) {
	tests := []struct {
		name     string
		rule     Rule
		wantCode hcloud.ErrorCode // "" for a non-API error
		requests uint64
	}{
		{"500 server_error is not retried", Rule{Status: 500}, hcloud.ErrorCodeServerError, 1},
		{"503 unavailable is not retried", Rule{Status: 503}, "unavailable", 1},
		{"422 invalid_input is not retried", Rule{Code: "invalid_input"}, hcloud.ErrorCodeInvalidInput, 1},
		{"409 conflict is retried 5 times", Rule{Status: 409}, hcloud.ErrorCodeConflict, 6},
		{"502 bad_gateway is retried", Rule{Status: 502}, hcloud.ErrorCodeBadGateway, 6},
		{"504 timeout is retried", Rule{Status: 504}, hcloud.ErrorCodeTimeout, 6},
		{"429 rate_limit_exceeded is retried", Rule{Status: 429}, hcloud.ErrorCodeRateLimitExceeded, 6},
		{"429 without a JSON body is not retried", Rule{Status: 429, PlainBody: true}, "", 1},
		{"504 without a JSON body is retried", Rule{Status: 504, PlainBody: true}, "", 6},
		{"two 502s then success", Rule{Status: 502, Count: 2}, "ok", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			tt.rule.Method, tt.rule.Path = "GET", "/servers"
			if _, err := f.fc.AddFault(tt.rule); err != nil {
				t.Fatal(err)
			}
			_, err := f.client.Server.All(t.Context())
			switch tt.wantCode {
			case "ok":
				if err != nil {
					t.Fatalf("got %v, want success after the faults ran out", err)
				}
			case "":
				if err == nil || !errors.Is(err, hcloud.ErrStatusCode) {
					t.Fatalf("got %v, want hcloud.ErrStatusCode", err)
				}
			default:
				wantCode(t, err, tt.wantCode)
			}
			if got := f.fc.Requests("GET", "/servers"); got != tt.requests {
				t.Errorf("fakecloud saw %d requests, want %d", got, tt.requests)
			}
		})
	}
}

func TestFaultLatencyHangAndDrop(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	if _, err := f.fc.AddFault(Rule{Path: "/locations", Latency: Duration(150 * time.Millisecond), Count: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.Location.All(ctx); err != nil {
		t.Fatal(err)
	}
	if j := f.fc.Journal(JournalFilter{Template: "/locations"}); len(j) != 1 || time.Duration(j[0].Duration) < 150*time.Millisecond || j[0].Fault == 0 {
		t.Errorf("journal %+v, want one request slowed by the rule", j)
	}

	if _, err := f.fc.AddFault(Rule{Path: "/servers", Hang: true}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err := f.client.Server.All(short)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang: got %v, want the client's deadline", err)
	}
	waitFor(t, func() bool {
		return len(f.fc.Journal(JournalFilter{Template: "/servers", Status: statusClientGone})) == 1
	})

	if _, err := f.fc.AddFault(Rule{Method: "POST", Path: "/networks", Drop: true}); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.Network.Create(ctx, hcloud.NetworkCreateOpts{Name: "n", IPRange: cidr("10.0.0.0/16")})
	var netErr net.Error
	if err == nil || errors.As(err, new(hcloud.Error)) || (errors.As(err, &netErr) && netErr.Timeout()) {
		t.Fatalf("drop: got %v, want a connection error that is not retried", err)
	}
	if got := f.fc.Requests("POST", "/networks"); got != 1 {
		t.Errorf("drop: %d requests, want 1 (hcloud-go does not retry a dropped connection)", got)
	}
	if j := f.fc.Journal(JournalFilter{Template: "/networks", Status: statusDropped}); len(j) != 1 {
		t.Errorf("journal of the dropped request: %+v", j)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestFaultMatching(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	ctx := t.Context()
	a := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	b := newServer(t, f, hcloud.ServerCreateOpts{Name: "b"})
	// resource_id narrows a rule to one server; {id} and * match a segment.
	if _, err := f.fc.AddFault(Rule{Method: "POST", Path: "/servers/{id}/actions/*", ResourceID: a.ID, Code: "server_error"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.client.Server.Poweroff(ctx, a)
	wantCode(t, err, hcloud.ErrorCodeServerError)
	if _, _, err := f.client.Server.Poweroff(ctx, b); err != nil {
		t.Fatalf("server b is not named by the rule: %v", err)
	}
	f.fc.ClearFaults()
	// A time window: active from 10 s after it is added, for 10 s.
	if _, err := f.fc.AddFault(Rule{Path: "/locations/**", Status: 500, Start: Duration(10 * time.Second), For: Duration(10 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	check := func(when string, wantErr bool) {
		t.Helper()
		_, _, err := f.client.Location.GetByID(ctx, 1)
		if (err != nil) != wantErr {
			t.Fatalf("%s: err %v, want error %v", when, err, wantErr)
		}
	}
	check("before the window", false)
	clock.Advance(10 * time.Second)
	check("in the window", true)
	clock.Advance(10 * time.Second)
	check("after the window", false)
	f.fc.ClearFaults()
	// First matching rule wins.
	if _, err := f.fc.AddFault(Rule{Path: "/locations", Status: 503, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.fc.AddFault(Rule{Path: "/**", Status: 500, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = f.client.Location.All(ctx)
	wantCode(t, err, "unavailable")
	_, err = f.client.Location.All(ctx)
	wantCode(t, err, hcloud.ErrorCodeServerError)
	if _, err = f.client.Location.All(ctx); err != nil {
		t.Fatalf("both rules spent: %v", err)
	}
}

// TestFaultProbabilityIsSeeded: the same seed gives the same pattern.
func TestFaultProbabilityIsSeeded(t *testing.T) {
	pattern := func(seed uint64) string {
		f := newFixture(t, Options{IDSeed: seed})
		if _, err := f.fc.AddFault(Rule{Path: "/locations", Status: 500, Probability: 0.5}); err != nil {
			t.Fatal(err)
		}
		out := ""
		for range 40 {
			if _, err := f.client.Location.All(t.Context()); err != nil {
				out += "x"
			} else {
				out += "."
			}
		}
		return out
	}
	p1, p2, p3 := pattern(7), pattern(7), pattern(8)
	if p1 != p2 {
		t.Errorf("same seed, different patterns:\n%s\n%s", p1, p2)
	}
	if p1 == p3 {
		t.Errorf("different seeds, same pattern %s", p1)
	}
	if n := countRune(p1, 'x'); n < 10 || n > 30 {
		t.Errorf("%d of 40 failed with p=0.5: %s", n, p1)
	}
}

func countRune(s string, r rune) int {
	n := 0
	for _, c := range s {
		if c == r {
			n++
		}
	}
	return n
}

// TestFailAfterCommitOnCreate: the load balancer is created but the client
// sees a 504; hcloud-go retries the POST, which now finds the name taken.
func TestFailAfterCommitOnCreate(t *testing.T) {
	f := newFixture(t, Options{})
	if _, err := f.fc.AddFault(Rule{Method: "POST", Path: "/load_balancers", Status: 504, AfterCommit: true, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, _, err := f.client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	wantCode(t, err, hcloud.ErrorCodeUniquenessError)
	lbs, _ := f.client.LoadBalancer.All(t.Context())
	if len(lbs) != 1 {
		t.Fatalf("%d load balancers, want exactly the one created before the error", len(lbs))
	}
	if got := f.fc.Requests("POST", "/load_balancers"); got != 2 {
		t.Errorf("%d POSTs, want 2 (the original and hcloud-go's retry)", got)
	}
	// A request refused anyway is passed through and does not spend the rule.
	if _, err := f.fc.AddFault(Rule{Method: "POST", Path: "/networks", Status: 504, AfterCommit: true, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, _, err = f.client.Network.Create(t.Context(), hcloud.NetworkCreateOpts{Name: "n", IPRange: cidr("8.0.0.0/16")})
	wantCode(t, err, hcloud.ErrorCodeInvalidInput)
	rules, _ := f.fc.Faults()
	if rules[1].Hits != 0 {
		t.Errorf("after_commit rule spent on a refused request: %+v", rules[1])
	}
}

func TestActionFaults(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := t.Context()
	_, servers := lbWorld(t, f, 2)
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{Name: "lb", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.fc.AddActionFault(ActionFault{Command: "add_target", Count: 1, ErrorCode: "cloud_resource_ip_not_allowed"}); err != nil {
		t.Fatal(err)
	}
	a, _, err := f.client.LoadBalancer.AddServerTarget(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[0]})
	if err != nil {
		t.Fatal(err)
	}
	err = f.client.Action.WaitFor(ctx, a)
	var actionErr hcloud.ActionError
	if !errors.As(err, &actionErr) || actionErr.Code != "cloud_resource_ip_not_allowed" {
		t.Fatalf("WaitFor: %v, want the injected action error", err)
	}
	lb, _, _ := f.client.LoadBalancer.GetByID(ctx, res.LoadBalancer.ID)
	if len(lb.Targets) != 0 {
		t.Errorf("a failed add_target added its target: %+v", lb.Targets)
	}
	a, _, err = f.client.LoadBalancer.AddServerTarget(ctx, res.LoadBalancer, hcloud.LoadBalancerAddServerTargetOpts{Server: servers[0]})
	if err != nil || f.client.Action.WaitFor(ctx, a) != nil {
		t.Fatalf("second add_target (fault spent): %v", err)
	}

	// A failed power action leaves the status it started from.
	if _, err := f.fc.AddActionFault(ActionFault{Command: "stop_server", Count: 1, ErrorCode: "server_error"}); err != nil {
		t.Fatal(err)
	}
	a, _, err = f.client.Server.Poweroff(ctx, servers[1])
	if err != nil || f.client.Action.WaitFor(ctx, a) == nil {
		t.Fatalf("poweroff should fail: %v", err)
	}
	s, _, _ := f.client.Server.GetByID(ctx, servers[1].ID)
	if s.Status != hcloud.ServerStatusRunning {
		t.Errorf("status after a failed poweroff: %s, want running", s.Status)
	}
}

func TestActionFaultDelay(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	s := newServer(t, f, hcloud.ServerCreateOpts{Name: "a"})
	if _, err := f.fc.AddActionFault(ActionFault{Command: "stop_server", Delay: Duration(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	a, _, err := f.client.Server.Poweroff(t.Context(), s)
	if err != nil || a.Status != hcloud.ActionStatusRunning {
		t.Fatalf("%+v %v", a, err)
	}
	_, _, err = f.client.Server.Poweron(t.Context(), s)
	wantCode(t, err, hcloud.ErrorCodeLocked)
	clock.Advance(time.Minute)
	got, _, _ := f.client.Action.GetByID(t.Context(), a.ID)
	if got.Status != hcloud.ActionStatusSuccess {
		t.Errorf("after the delay: %s", got.Status)
	}
}

// TestFaultCodesAreAPICodes: a fault answers only with a code the API has.
func TestFaultCodesAreAPICodes(t *testing.T) {
	fc, _ := seededServer(t)
	refuse(t, fc, "POST", "/_fakecloud/faults", `{"path":"/servers","code":"made_up"}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", "/_fakecloud/faults", `{"path":"/servers","status":503,"latency":"-1s"}`, apierr.CodeInvalidInput)
	refuse(t, fc, "POST", "/_fakecloud/action-faults", `{"command":"*","error_code":"oops"}`, apierr.CodeInvalidInput)
	if rules, afs := fc.Faults(); len(rules)+len(afs) != 0 {
		t.Errorf("refused faults were added: %v %v", rules, afs)
	}
	accept(t, fc, "POST", "/_fakecloud/faults", `{"path":"/servers","code":"server_not_attached_to_network"}`)
}

// TestRateLimitFaultHeaders: a 429 rule answers as the API's own 429
// does, with nothing remaining and the reset an hour's refill away.
func TestRateLimitFaultHeaders(t *testing.T) {
	for _, limit := range []int{-1, 100} {
		f := newFixture(t, Options{RateLimit: limit})
		if _, err := f.fc.AddFault(Rule{Method: "GET", Path: "/servers", Status: 429, Count: 1}); err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("GET", "/v1/servers", nil)
		req.Header.Set("Authorization", "Bearer "+DefaultToken)
		rec := httptest.NewRecorder()
		f.fc.ServeHTTP(rec, req)
		want := "3600"
		if limit > 0 {
			want = "100"
		}
		reset, _ := strconv.ParseInt(rec.Header().Get("RateLimit-Reset"), 10, 64)
		if rec.Code != 429 || rec.Header().Get("RateLimit-Limit") != want || rec.Header().Get("RateLimit-Remaining") != "0" ||
			time.Until(time.Unix(reset, 0)) < 59*time.Minute {
			t.Errorf("limit %d: %d with %v, want 429, limit %s, remaining 0, reset in an hour", limit, rec.Code, rec.Header(), want)
		}
	}
}

// TestHangAfterCommit: with hang, after_commit applies the request and
// never answers: the client gives up on a change that happened, as when
// its process dies right after the request. A refused request, or a read,
// commits nothing: it gets its real answer and does not spend the rule.
func TestHangAfterCommit(t *testing.T) {
	f := newFixture(t, Options{})
	if _, err := f.fc.AddFault(Rule{Path: "/networks", Hang: true, AfterCommit: true, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.client.Network.Create(t.Context(), hcloud.NetworkCreateOpts{Name: "bad", IPRange: cidr("10.0.0.0/30")}); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Fatalf("a refused create: %v, want its own answer, invalid_input", err)
	}
	if _, err := f.client.Network.All(t.Context()); err != nil {
		t.Fatalf("a read: %v", err)
	}
	if rules, _ := f.fc.Faults(); rules[0].Hits != 0 {
		t.Fatalf("the rule was spent on a request that committed nothing: %+v", rules[0])
	}
	short, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := f.client.Network.Create(short, hcloud.NetworkCreateOpts{Name: "n", IPRange: cidr("10.0.0.0/16")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the client's deadline", err)
	}
	if n, _, err := f.client.Network.GetByName(t.Context(), "n"); err != nil || n == nil {
		t.Errorf("the network was not created: %v", err)
	}
	waitFor(t, func() bool {
		return len(f.fc.Journal(JournalFilter{Method: "POST", Template: "/networks", Status: statusClientGone})) == 1
	})
}

// TestActionFaultNamesARecordedCommand: an action fault for a command no
// action has is refused, naming the ones there are, through the Go API,
// the admin API and a scenario; * and a real command are taken.
func TestActionFaultNamesARecordedCommand(t *testing.T) {
	fc := New(Options{})
	_, err := fc.AddActionFault(ActionFault{Command: "attach_network", ErrorCode: "action_failed"})
	if err == nil || !strings.Contains(err.Error(), `"attach_network" is not the command of an action`) || !strings.Contains(err.Error(), "attach_to_network") {
		t.Errorf("an unknown command: %v, want refused naming the known ones", err)
	}
	if err := fc.LoadScenario(Scenario{Steps: []Step{{ActionFault: &ActionFault{Command: "poweron", ErrorCode: "action_failed"}}}}); err == nil {
		t.Error("a scenario's action fault for an unknown command was loaded")
	}
	for _, cmd := range []string{"*", "attach_to_network", "start_server"} {
		if _, err := fc.AddActionFault(ActionFault{Command: cmd, ErrorCode: "action_failed"}); err != nil {
			t.Errorf("%s: %v", cmd, err)
		}
	}
	if rules, actions := fc.Faults(); len(rules) != 0 || len(actions) != 3 {
		t.Errorf("%d rules and %d action faults, want the 3 accepted", len(rules), len(actions))
	}
}
