package lbtraffic

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/trafficspec"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/lbtraffic/lbtraffictest"
)

// fixture gives a Plane a pretend network on loopback: every listen binds
// 127.0.0.1 on a free port, and dials reach the backends by the address
// the Plane was told.
type fixture struct {
	t     testing.TB
	plane *Plane

	mu    sync.Mutex
	bound map[string]string // address the Plane asked for → where it listens
	net   lbtraffictest.Network
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{t: t, bound: map[string]string{}}
	f.plane = New(Options{Listen: f.listen, Dial: f.net.Dial})
	t.Cleanup(f.plane.Close)
	return f
}

func (f *fixture) listen(network, addr string) (net.Listener, error) {
	ln, err := net.Listen(network, "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bound[addr] = ln.Addr().String()
	return ln, nil
}

// at is where the Plane listens for addr, or "" if it does not.
func (f *fixture) at(addr string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bound[addr]
}

// backend serves HTTP as target addr, answering with its name and what
// the request carried.
func (f *fixture) backend(addr, name string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s host=%s xff=%s proto=%s", name, r.Host, r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Forwarded-Proto"))
	}))
	f.t.Cleanup(srv.Close)
	f.net.Route(addr, srv.Listener.Addr().String())
	return srv
}

// serveHealthy syncs one load balancer and waits until every target is
// healthy.
func (f *fixture) serveHealthy(lb LoadBalancer) {
	f.t.Helper()
	f.plane.Sync([]LoadBalancer{lb})
	for _, svc := range lb.Services {
		for _, t := range lb.Targets {
			f.waitHealth(lb.ID, svc.ListenPort, t.Key, Healthy)
		}
	}
}

// waitHealth waits until a target's checked status is want.
func (f *fixture) waitHealth(lb int64, port int, key, want string) {
	f.t.Helper()
	f.waitChecked(lb, port, key, "status "+want, func(h trafficspec.Health) bool { return h.Status == want })
}

// waitDetail waits until a target's checked detail is want.
func (f *fixture) waitDetail(lb int64, port int, key, want string) {
	f.t.Helper()
	f.waitChecked(lb, port, key, "detail "+want, func(h trafficspec.Health) bool { return h.Detail == want })
}

func (f *fixture) waitChecked(lb int64, port int, key, what string, ok func(trafficspec.Health) bool) {
	f.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h, _ := f.plane.Checked(lb, port, key)
		if ok(h) {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("target %s of port %d is %+v, want %s", key, port, h, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// get fetches a URL through the listener the Plane opened for lbAddr.
func (f *fixture) get(client *http.Client, scheme, lbAddr, path string) (*http.Response, string) {
	f.t.Helper()
	at := f.at(lbAddr)
	if at == "" {
		f.t.Fatalf("nothing listens for %s", lbAddr)
	}
	req, err := http.NewRequest(http.MethodGet, scheme+"://"+at+path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Host = "shop.example.com"
	resp, err := client.Do(req)
	if err != nil {
		f.t.Fatalf("GET %s: %v", lbAddr, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

var (
	lbIP = netip.MustParseAddr("203.0.113.10")
	t1   = Target{Key: "server:1", Addr: netip.MustParseAddr("10.0.0.2")}
	t2   = Target{Key: "server:2", Addr: netip.MustParseAddr("10.0.0.3")}
)

// fastCheck probes every 10 ms and gives up after one retry.
var fastCheck = HealthCheck{Protocol: "tcp", Port: 30080, Interval: 10 * time.Millisecond, Timeout: time.Second, Retries: 1}

func service(proto string, port int) Service {
	return Service{Protocol: proto, ListenPort: port, DestinationPort: 30080, HealthCheck: fastCheck}
}

var noRedirect = &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// oneShot opens a connection per request, so each is balanced anew.
var oneShot = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}

// waitFor waits up to 5 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out after 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// client is a plain client that gives up after 5 s.
var client = &http.Client{Timeout: 5 * time.Second}
