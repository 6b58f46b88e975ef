package fakecloud

import (
	"math"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/wire"
)

// TestSettingsThatCannotWork: a refill rate or a Robot limit scale that
// is not a finite number in range, or a Robot login basic authentication
// cannot carry, is refused naming it: by Options.Check (New panics), by
// SetRateLimit, the admin API and a scenario step, which change nothing.
func TestSettingsThatCannotWork(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{RateLimitRefill: math.NaN()}, "RateLimitRefill: refill: NaN"},
		{Options{RateLimitRefill: math.Inf(1)}, "RateLimitRefill: refill: +Inf"},
		{Options{RateLimitRefill: 1e7}, "RateLimitRefill: refill: 1e+07"},
		{Options{RobotRateLimitScale: math.NaN()}, "rate limit scale NaN"},
		{Options{RobotRateLimitScale: math.Inf(1)}, "rate limit scale +Inf"},
		{Options{RobotRateLimitScale: 1e12}, "rate limit scale 1e+12"},
		{Options{RobotUser: "ops:1", RobotPassword: "p"}, "cannot carry a colon"},
		{Options{RobotUser: "ops\n", RobotPassword: "p"}, "control characters"},
		{Options{RobotUser: "ops", RobotPassword: "p\r\n"}, "password: basic authentication cannot carry control characters"},
	} {
		if err := c.opts.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: Check = %v, want %q", c.opts, err, c.want)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("New(%+v) did not panic naming %q: %v", c.opts, c.want, r)
				}
			}()
			New(c.opts)
		}()
	}
	for _, ok := range []Options{{}, {RateLimitRefill: -1}, {RateLimitRefill: 1e6}, {RobotRateLimitScale: -1}, {RobotRateLimitScale: 0.05},
		{RobotUser: "#ws+ops", RobotPassword: "p:w"}} {
		if err := ok.Check(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}

	f := newFixture(t, Options{})
	limit, remaining, refill, _ := f.fc.RateLimit()
	for _, bad := range []float64{math.NaN(), math.Inf(1), 1e7} {
		if err := f.fc.SetRateLimit(5, bad); err == nil {
			t.Errorf("SetRateLimit(5, %v) accepted", bad)
		}
	}
	var env wire.Envelope
	if status := f.admin(t, "PUT", "/rate-limit", `{"remaining": 5, "refill": 1e300}`, &env); status != 422 || !strings.Contains(env.Error.Message, "refill") {
		t.Errorf("PUT /rate-limit refill 1e300: %d %+v", status, env)
	}
	sc, err := ParseScenario([]byte("steps: [{rate_limit: {refill: 1e300}}]"))
	if err == nil {
		err = f.fc.LoadScenario(sc)
	}
	if err == nil || !strings.Contains(err.Error(), "steps[0].rate_limit.refill: 1e+300") {
		t.Errorf("a scenario step with refill 1e300: %v", err)
	}
	if l, r, rf, _ := f.fc.RateLimit(); l != limit || r != remaining || rf != refill {
		t.Errorf("a refusal changed the rate limit: %d %d %v, was %d %d %v", l, r, rf, limit, remaining, refill)
	}
}
