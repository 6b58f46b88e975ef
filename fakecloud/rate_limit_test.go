package fakecloud

import (
	"strconv"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestRateLimit(t *testing.T) {
	clock := newClock()
	f := newFixture(t, Options{RateLimit: 5, RateLimitRefill: 1, Now: clock.Now})
	for i := range 5 {
		resp, _ := f.do(t, "GET", "/v1/locations", "")
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
		if got := resp.Header.Get("RateLimit-Remaining"); got != strconv.Itoa(4-i) {
			t.Errorf("request %d: RateLimit-Remaining %s, want %d", i, got, 4-i)
		}
		if resp.Header.Get("RateLimit-Limit") != "5" {
			t.Errorf("RateLimit-Limit %s", resp.Header.Get("RateLimit-Limit"))
		}
	}
	resp, body := f.do(t, "GET", "/v1/locations", "")
	if resp.StatusCode != 429 || !containsCode(body, "rate_limit_exceeded") {
		t.Fatalf("6th request: %d %s", resp.StatusCode, body)
	}
	reset, _ := strconv.ParseInt(resp.Header.Get("RateLimit-Reset"), 10, 64)
	if want := clock.Now().Add(5 * time.Second).Unix(); reset != want {
		t.Errorf("RateLimit-Reset %d, want %d (bucket full again in 5 s)", reset, want)
	}
	clock.Advance(2 * time.Second)
	for i := range 2 {
		if resp, _ := f.do(t, "GET", "/v1/locations", ""); resp.StatusCode != 200 {
			t.Fatalf("after refill, request %d: %d", i, resp.StatusCode)
		}
	}
	if resp, _ := f.do(t, "GET", "/v1/locations", ""); resp.StatusCode != 429 {
		t.Fatalf("refill of 2 allowed more than 2 requests")
	}
}

func TestRateLimitOff(t *testing.T) {
	f := newFixture(t, Options{RateLimit: -1})
	for range 10 {
		resp, _ := f.do(t, "GET", "/v1/locations", "")
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "" {
			t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("RateLimit-Limit"))
		}
	}
}

func TestRateLimitScenario(t *testing.T) {
	f := newFixture(t, Options{})
	if err := f.fc.SetRateLimit(2, 0); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.client.Location.All(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.client.Location.All(t.Context())
	wantCode(t, err, hcloud.ErrorCodeRateLimitExceeded)
	if got := f.fc.Requests("GET", "/locations"); got != 2+6 {
		t.Errorf("%d requests, want 2 served and 6 refused (hcloud-go retries 429 five times)", got)
	}
	if err := f.fc.SetRateLimit(100, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.Location.All(t.Context()); err != nil {
		t.Fatalf("after the budget was restored: %v", err)
	}
}
