package fakecloud

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// scenarioFixture is fakecloud with the small world and a scenario loaded
// at the fake clock's start.
func scenarioFixture(t *testing.T, name string) (*fixture, *fakecloudtest.Clock) {
	t.Helper()
	clock := newClock()
	f := newFixture(t, Options{Now: clock.Now})
	w, err := LoadWorld("../testdata/worlds/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.fc.Seed(w); err != nil {
		t.Fatal(err)
	}
	if err := f.fc.LoadScenarioFile("../testdata/scenarios/" + name + ".yaml"); err != nil {
		t.Fatal(err)
	}
	return f, clock
}

// TestScenarioFilesHaveHeaders: each scenario says what it does in its
// first line.
func TestScenarioFilesHaveHeaders(t *testing.T) {
	files, _ := filepath.Glob("../testdata/scenarios/*.yaml")
	if len(files) < 8 {
		t.Fatalf("%d scenarios, want the library of 8", len(files))
	}
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Scan()
		if !strings.HasPrefix(sc.Text(), "# ") || len(sc.Text()) < 30 {
			t.Errorf("%s: first line %q is not a one-line description", path, sc.Text())
		}
		fh.Close()
		data, _ := os.ReadFile(path)
		if _, err := ParseScenario(data); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestScenarioAPIOutage(t *testing.T) {
	f, clock := scenarioFixture(t, "api-outage")
	failed, hung := 0, 0
	for range 20 {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		_, err := f.client.Server.All(ctx)
		cancel()
		switch {
		case hcloud.IsError(err, hcloud.ErrorCodeServerError):
			failed++
		case errors.Is(err, context.DeadlineExceeded):
			hung++
		default:
			t.Fatalf("during the outage: %v", err)
		}
	}
	if failed == 0 || hung == 0 {
		t.Errorf("%d failed and %d hung, want both kinds", failed, hung)
	}
	clock.Advance(2 * time.Minute)
	if _, err := f.client.Server.All(t.Context()); err != nil {
		t.Fatalf("after two minutes the API should be back: %v", err)
	}
}

func TestScenarioRateLimitExhaustion(t *testing.T) {
	f, clock := scenarioFixture(t, "rate-limit-exhaustion")
	_, err := f.client.Server.All(t.Context())
	wantCode(t, err, hcloud.ErrorCodeRateLimitExceeded)
	clock.Advance(61 * time.Second)
	if _, _, err := f.client.Location.GetByID(t.Context(), 1); err != nil {
		t.Fatalf("a minute later one request should pass: %v", err)
	}
	_, _, err = f.client.Location.GetByID(t.Context(), 1)
	wantCode(t, err, hcloud.ErrorCodeRateLimitExceeded)
}

func TestScenarioSlowActions(t *testing.T) {
	f, clock := scenarioFixture(t, "slow-actions")
	srv, _, _ := f.client.Server.GetByName(t.Context(), "worker-1")
	a, _, err := f.client.Server.Reboot(t.Context(), srv)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(29 * time.Second)
	if got, _, _ := f.client.Action.GetByID(t.Context(), a.ID); got.Status != hcloud.ActionStatusRunning {
		t.Errorf("after 29 s: %s, want running", got.Status)
	}
	clock.Advance(time.Second)
	if got, _, _ := f.client.Action.GetByID(t.Context(), a.ID); got.Status != hcloud.ActionStatusSuccess {
		t.Errorf("after 30 s: %s, want success", got.Status)
	}
}

func TestScenarioAddTargetFailures(t *testing.T) {
	f, _ := scenarioFixture(t, "add-target-failures")
	ctx := t.Context()
	lb, _, _ := f.client.LoadBalancer.GetByName(ctx, "ingress")
	srv, _, _ := f.client.Server.GetByName(ctx, "control-plane-1")
	for i := range 4 {
		a, _, err := f.client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: srv, UsePrivateIP: hcloud.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		err = f.client.Action.WaitFor(ctx, a)
		if (err != nil) != (i < 3) {
			t.Fatalf("add_target %d: %v, want failures for the first three only", i+1, err)
		}
	}
}

func TestScenarioServerVanishes(t *testing.T) {
	f, clock := scenarioFixture(t, "server-vanishes")
	if s, _, _ := f.client.Server.GetByName(t.Context(), "worker-1"); s == nil {
		t.Fatal("worker-1 gone before its time")
	}
	clock.Advance(10 * time.Second)
	if s, _, err := f.client.Server.GetByName(t.Context(), "worker-1"); s != nil || err != nil {
		t.Fatalf("worker-1 after 10 s: %v %v, want gone", s, err)
	}
}

func TestScenarioServerPoweredOff(t *testing.T) {
	f, clock := scenarioFixture(t, "server-powered-off")
	clock.Advance(10 * time.Second)
	s, _, _ := f.client.Server.GetByName(t.Context(), "worker-1")
	if s.Status != hcloud.ServerStatusOff {
		t.Fatalf("worker-1 after 10 s: %s, want off", s.Status)
	}
	if got := f.fc.Requests("POST", ""); got != 0 {
		t.Errorf("%d POSTs: the power-off happened without any request", got)
	}
}

func TestScenarioLoadBalancerLocked(t *testing.T) {
	f, clock := scenarioFixture(t, "lb-locked")
	lb, _, _ := f.client.LoadBalancer.GetByName(t.Context(), "ingress")
	_, _, err := f.client.LoadBalancer.AddService(t.Context(), lb, hcloud.LoadBalancerAddServiceOpts{Protocol: "tcp", ListenPort: hcloud.Ptr(443)})
	wantCode(t, err, hcloud.ErrorCodeLocked)
	clock.Advance(time.Minute)
	if _, _, err := f.client.LoadBalancer.AddService(t.Context(), lb, hcloud.LoadBalancerAddServiceOpts{Protocol: "tcp", ListenPort: hcloud.Ptr(443)}); err != nil {
		t.Fatalf("after the lock: %v", err)
	}
}

func TestScenarioLoadBalancerCreateFailAfterCommit(t *testing.T) {
	f, _ := scenarioFixture(t, "lb-create-fail-after-commit")
	_, _, err := f.client.LoadBalancer.Create(t.Context(), hcloud.LoadBalancerCreateOpts{Name: "svc", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}})
	wantCode(t, err, hcloud.ErrorCodeUniquenessError)
	if lb, _, _ := f.client.LoadBalancer.GetByName(t.Context(), "svc"); lb == nil {
		t.Fatal("the load balancer was not created")
	}
}

func TestScenarioValidation(t *testing.T) {
	f := newFixture(t, Options{})
	for _, text := range []string{
		"steps:\n  - {}\n",
		"steps:\n  - fault: {path: nope, status: 500}\n",
		"steps:\n  - event: {type: explode}\n",
		"steps:\n  - at: 5\n    event: {type: lock}\n",
		"steps:\n  - fault: {path: /x, status: 500}\n    event: {type: lock}\n",
		"stepz: []\n",
	} {
		sc, err := ParseScenario([]byte(text))
		if err == nil {
			err = f.fc.LoadScenario(sc)
		}
		if err == nil {
			t.Errorf("%q was accepted", text)
		}
	}
	if rules, actions := f.fc.Faults(); len(rules)+len(actions) != 0 {
		t.Errorf("refused scenarios left faults behind: %v %v", rules, actions)
	}
}
