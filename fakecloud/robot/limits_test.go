package robot

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestLoginBlock: the third failed login from an IP within ten minutes
// blocks it for ten minutes, good credentials included; other IPs go on.
func TestLoginBlock(t *testing.T) {
	c := newClock()
	h := New(Options{Servers: servers(rack), Now: c.Now})
	const attacker, bystander = "198.51.100.7", "198.51.100.8"
	for i := range 2 {
		if status, _, _ := do(t, h, "GET", "/server", attacker, "#ws+other", "guess"); status != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d", i+1, status)
		}
	}
	if status, _, body := do(t, h, "GET", "/server", attacker, "", ""); status != http.StatusOK {
		t.Fatalf("two failures must not block: %d %s", status, body)
	}
	do(t, h, "GET", "/server", attacker, "-", "") // no credentials is a failed login too
	status, body, _ := do(t, h, "GET", "/server", attacker, "", "")
	if status != http.StatusUnauthorized || body["error"].(map[string]any)["code"] != "UNAUTHORIZED" {
		t.Fatalf("blocked IP with good credentials: %d %v", status, body)
	}
	if got := h.Blocks(); len(got) != 1 || got[0].IP != attacker || !got[0].Until.Equal(c.Now().Add(10*time.Minute)) {
		t.Errorf("Blocks() = %v", got)
	}
	if status, _, _ := do(t, h, "GET", "/server", bystander, "", ""); status != http.StatusOK {
		t.Errorf("another IP: status %d", status)
	}
	c.Advance(10*time.Minute - time.Second)
	if status, _, _ := do(t, h, "GET", "/server", attacker, "", ""); status != http.StatusUnauthorized {
		t.Errorf("still blocked after 9m59s: status %d", status)
	}
	c.Advance(time.Second)
	if status, _, _ := do(t, h, "GET", "/server", attacker, "", ""); status != http.StatusOK {
		t.Errorf("block over after 10m: status %d", status)
	}
}

// TestFailuresExpire: failures older than ten minutes do not count.
func TestFailuresExpire(t *testing.T) {
	c := newClock()
	h := New(Options{Servers: servers(rack), Now: c.Now})
	for range 2 {
		do(t, h, "GET", "/server", "198.51.100.9", "x", "y")
	}
	c.Advance(10 * time.Minute)
	do(t, h, "GET", "/server", "198.51.100.9", "x", "y")
	if status, _, _ := do(t, h, "GET", "/server", "198.51.100.9", "", ""); status != http.StatusOK {
		t.Errorf("a third failure after the first two expired blocked: status %d", status)
	}
}

// TestRateLimit: each endpoint has its own hourly limit per user, counted
// in a sliding window; the 403 names the limit and the interval; a
// refused request is not counted.
func TestRateLimit(t *testing.T) {
	c := newClock()
	h := New(Options{Servers: servers(rack), Now: c.Now})
	for i := range 200 {
		if status, _, body := get(t, h, "/server"); status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, status, body)
		}
		if i == 99 {
			c.Advance(30 * time.Minute) // the second hundred comes later
		}
	}
	_, _, body := get(t, h, "/server")
	sameJSON(t, body, `{"error":{"status":403,"code":"RATE_LIMIT_EXCEEDED","message":"rate limit exceeded","max_request":200,"interval":3600}}`)
	if status, _, _ := get(t, h, "/server/321"); status != http.StatusOK {
		t.Errorf("GET /server/{server-number} shares GET /server's limit: %d", status)
	}
	c.Advance(30 * time.Minute) // the first hundred leave the window
	for i := range 100 {
		if status, _, _ := get(t, h, "/server"); status != http.StatusOK {
			t.Fatalf("after the first hundred left the window, request %d: %d", i+1, status)
		}
	}
	if status, _, _ := get(t, h, "/server"); status != http.StatusForbidden {
		t.Errorf("the second hundred are still in the window: status %d", status)
	}
	want := []Usage{
		{User: DefaultUser, Endpoint: "GET /server", Used: 200, Limit: 200, Interval: 3600},
		{User: DefaultUser, Endpoint: "GET /server/{server-number}", Used: 1, Limit: 200, Interval: 3600},
	}
	if got := h.Usage(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Usage() = %+v, want %+v", got, want)
	}
	h.ClearLimits()
	if status, _, _ := get(t, h, "/server"); status != http.StatusOK {
		t.Errorf("after ClearLimits: status %d", status)
	}
}

// TestRateLimitScaled: a scale and an interval shrink the limits, and a
// negative scale turns them off.
func TestRateLimitScaled(t *testing.T) {
	c := newClock()
	h := New(Options{Servers: servers(rack), Now: c.Now, RateLimitScale: 0.01, RateLimitInterval: time.Minute})
	for range 5 {
		if status, _, _ := get(t, h, "/reset/321"); status != http.StatusOK {
			t.Fatalf("GET /reset/{n} limit 500*0.01 = 5: status %d", status)
		}
	}
	_, _, body := get(t, h, "/reset/321")
	sameJSON(t, body, `{"error":{"status":403,"code":"RATE_LIMIT_EXCEEDED","message":"rate limit exceeded","max_request":5,"interval":60}}`)
	c.Advance(time.Minute)
	if status, _, _ := get(t, h, "/reset/321"); status != http.StatusOK {
		t.Errorf("a minute later: status %d", status)
	}
	off := New(Options{Servers: servers(rack), Now: c.Now, RateLimitScale: -1})
	for i := range 300 {
		if status, _, _ := get(t, off, "/server"); status != http.StatusOK {
			t.Fatalf("limits off, request %d: status %d", i+1, status)
		}
	}
	if got := off.Usage(); len(got) != 0 {
		t.Errorf("Usage() with limits off = %v", got)
	}
}

// TestUnauthorizedNotCounted: refused logins spend no limit.
func TestUnauthorizedNotCounted(t *testing.T) {
	h := New(Options{Servers: servers(rack), RateLimitScale: 0.005}) // 1 an hour
	do(t, h, "GET", "/server", "192.0.2.50", "x", "y")
	if status, _, _ := get(t, h, "/server"); status != http.StatusOK {
		t.Errorf("after a refused login: status %d", status)
	}
}

// TestCheck: every bad field is named at once.
func TestCheck(t *testing.T) {
	bad := Server{Number: -1, IPv4: "::1", IPv6Net: "2a01::/64", DC: "fsn1-dc14", Status: "running", PaidUntil: "31.05.2026",
		IPs: []string{"x"}, Subnets: []Subnet{{IP: "2a01::", Mask: "129"}}, LinkedStorageBox: storageBox(0), OperatingStatus: "off"}
	err := bad.Check()
	if err == nil {
		t.Fatal("Check() = nil")
	}
	for _, field := range []string{"server_number", "server_ip", "server_ipv6_net", "product", "dc", "traffic", "status", "paid_until",
		"ip[0]", "subnet[0]", "linked_storagebox", "operating_status"} {
		if !strings.Contains("\n"+err.Error(), "\n"+field+": ") {
			t.Errorf("Check() does not name %s: %v", field, err)
		}
	}
	if err := rack.Check(); err != nil {
		t.Errorf("rack.Check() = %v", err)
	}
}

// TestLoginMemoryBounded: failed logins from ever more addresses are
// remembered up to maxTrackedClients; past the window they are dropped
// to make room, and a known client is still blocked.
func TestLoginMemoryBounded(t *testing.T) {
	c := newClock()
	l := &logins{now: c.Now, failures: map[string][]time.Time{}, blocked: map[string]time.Time{}}
	for i := range maxTrackedClients + 500 {
		l.fail(fmt.Sprintf("2001:db8::%x", i))
	}
	if n := len(l.failures) + len(l.blocked); n > maxTrackedClients {
		t.Errorf("%d clients remembered, want at most %d", n, maxTrackedClients)
	}
	l.fail("2001:db8::1")
	l.fail("2001:db8::1")
	if _, ok := l.blockedUntil("2001:db8::1"); !ok {
		t.Error("a remembered client's third failure did not block it")
	}
	c.Advance(failureWindow)
	l.fail("2001:db8:1::1")
	if n := len(l.failures) + len(l.blocked); n != 1 {
		t.Errorf("%d clients remembered after the window (the block ended too), want the new one", n)
	}
}
