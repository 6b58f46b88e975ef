package robotclient_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// The client reads fakecloud's webservice, which is written from the
// webservice's documentation on its own: each shape both agree on.
func TestAgainstFakeCloud(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{})
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	if err := fc.Seed(fakecloud.World{DedicatedServers: []fakecloud.SeedDedicatedServer{
		{Number: 321, Name: "ded-1", IPv4: "198.51.100.7", IPv6Net: "2a01:4f8:111:4221::", Product: "EX44", DC: "FSN1-DC16"},
		{Number: 322, Name: "tower", OperatingStatus: "not supported"},
	}}); err != nil {
		t.Fatal(err)
	}
	c := robotclient.NewClient(srv.URL+"/robot", fakecloud.DefaultRobotUser, fakecloud.DefaultRobotPassword, "test", 5*time.Second)
	servers, err := c.Servers(t.Context())
	if err != nil || len(servers) != 2 {
		t.Fatalf("Servers = %+v, %v", servers, err)
	}
	want := robotclient.Server{Number: 321, Name: "ded-1", IPv4: "198.51.100.7", IPv6Net: "2a01:4f8:111:4221::", Product: "EX44", DC: "FSN1-DC16", Status: "ready"}
	if servers[0] != want {
		t.Errorf("server %+v, want %+v", servers[0], want)
	}
	if s, err := c.Server(t.Context(), 322); err != nil || s.Name != "tower" {
		t.Errorf("Server(322) = %+v, %v", s, err)
	}
	if _, err := c.Server(t.Context(), 999); !robotclient.IsCode(err, robotclient.CodeServerNotFound) {
		t.Errorf("Server(999) = %v, want SERVER_NOT_FOUND", err)
	}
	cache := robotclient.NewCache(c, robotclient.CacheOptions{})
	if off, err := cache.PoweredOff(t.Context(), 321); off || err != nil {
		t.Errorf("PoweredOff(321) = %v, %v", off, err)
	}
	if err := fc.Apply(fakecloud.Event{Type: "power_off_dedicated_server", ServerNumber: 321}); err != nil {
		t.Fatal(err)
	}
	if off, err := robotclient.NewCache(c, robotclient.CacheOptions{}).PoweredOff(t.Context(), 321); !off || err != nil {
		t.Errorf("PoweredOff(321) after power_off_dedicated_server = %v, %v", off, err)
	}
	if off, err := cache.PoweredOff(t.Context(), 322); off || err != nil {
		t.Errorf("PoweredOff of a tower server = %v, %v; want on", off, err)
	}
	if err := fc.Apply(fakecloud.Event{Type: "remove_dedicated_server", ServerNumber: 321}); err != nil {
		t.Fatal(err)
	}
	if _, found, err := robotclient.NewCache(c, robotclient.CacheOptions{}).Lookup(t.Context(), 321); found || err != nil {
		t.Errorf("Lookup(321) after remove_dedicated_server = %v, %v; want gone", found, err)
	}
	bad := robotclient.NewClient(srv.URL+"/robot", "user", "wrong", "test", 5*time.Second)
	if _, err := bad.Servers(t.Context()); !robotclient.IsCode(err, robotclient.CodeUnauthorized) {
		t.Errorf("a wrong password = %v, want UNAUTHORIZED", err)
	}
}

// The webservice's rate limit reaches the cache as RATE_LIMIT_EXCEEDED
// and holds it back; no request is sent during the wait.
func TestRateLimitAgainstFakeCloud(t *testing.T) {
	fc := fakecloud.New(fakecloud.Options{RobotRateLimitScale: 0.01}) // GET /server: 2 an hour
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	now := time.Now()
	c := robotclient.NewClient(srv.URL+"/robot", fakecloud.DefaultRobotUser, fakecloud.DefaultRobotPassword, "test", 5*time.Second)
	cache := robotclient.NewCache(c, robotclient.CacheOptions{MaxAge: time.Nanosecond, Now: func() time.Time { now = now.Add(time.Second); return now }})
	var limited error
	for range 5 {
		if _, err := cache.Servers(t.Context()); err != nil && limited == nil {
			limited = err
		}
	}
	if !robotclient.IsCode(limited, robotclient.CodeRateLimitExceeded) || cache.Requests() != 3 {
		t.Fatalf("first error %v after %d requests; want RATE_LIMIT_EXCEEDED on the 3rd and no request after it", limited, cache.Requests())
	}
}
