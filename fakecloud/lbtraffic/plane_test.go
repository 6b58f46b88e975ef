package lbtraffic

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/internal/testcert"
)

func TestTCPRoundRobinOverHealthyTargets(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	f.backend("10.0.0.3:30080", "two")
	f.serveHealthy(LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{service("tcp", 80)}, Targets: []Target{t1, t2}})
	seen := map[string]int{}
	for range 4 {
		_, body := f.get(oneShot, "http", "203.0.113.10:80", "/")
		seen[strings.Fields(body)[0]]++
	}
	if seen["one"] != 2 || seen["two"] != 2 {
		t.Fatalf("4 connections went %v, want 2 to each target", seen)
	}
}

func TestUnhealthyTargetGetsNoTraffic(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	f.plane.Sync([]LoadBalancer{{ID: 1, Addr: lbIP, Services: []Service{service("http", 80)}, Targets: []Target{t1, t2}}})
	f.waitHealth(1, 80, "server:1", Healthy)
	f.waitHealth(1, 80, "server:2", Unhealthy)
	for range 3 {
		if _, body := f.get(client, "http", "203.0.113.10:80", "/"); !strings.HasPrefix(body, "one ") {
			t.Fatalf("answer %q, want it from the healthy target one", body)
		}
	}
	f.backend("10.0.0.3:30080", "two")
	f.waitHealth(1, 80, "server:2", Healthy)
	f.net.Unroute("10.0.0.2:30080")
	f.waitHealth(1, 80, "server:1", Unhealthy)
	if _, body := f.get(client, "http", "203.0.113.10:80", "/"); !strings.HasPrefix(body, "two ") {
		t.Fatalf("answer %q after target one went down, want two", body)
	}
}

func TestNoHealthyTarget(t *testing.T) {
	f := newFixture(t)
	f.plane.Sync([]LoadBalancer{{ID: 1, Addr: lbIP, Services: []Service{service("http", 80), service("tcp", 443)}, Targets: []Target{t1}}})
	f.waitHealth(1, 80, "server:1", Unhealthy)
	if resp, _ := f.get(client, "http", "203.0.113.10:80", "/"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("http status %d, want 503", resp.StatusCode)
	}
	c, err := net.Dial("tcp", f.at("203.0.113.10:443"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("tcp read %d, %v; want the connection closed", n, err)
	}
}

func TestForcedStatusWinsOverChecks(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	f.backend("10.0.0.3:30080", "two")
	svc := service("http", 80)
	svc.Forced = map[string]string{"server:1": Unhealthy}
	f.serveHealthy(LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{svc}, Targets: []Target{t1, t2}})
	for range 3 {
		if _, body := f.get(client, "http", "203.0.113.10:80", "/"); !strings.HasPrefix(body, "two ") {
			t.Fatalf("answer %q, want only two while one is forced unhealthy", body)
		}
	}
}

func TestProxyProtocolHeader(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f.net.Route("10.0.0.2:30080", ln.Addr().String())
	lines := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			lines <- line
			c.Close()
		}
	}()
	svc := service("tcp", 5432)
	svc.ProxyProtocol = true
	f.serveHealthy(LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{svc}, Targets: []Target{t1}})
	c, err := net.Dial("tcp", f.at("203.0.113.10:5432"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client := c.LocalAddr().(*net.TCPAddr)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case line := <-lines:
			// Health checks connect too; they send nothing.
			if line == "" {
				continue
			}
			want := "PROXY TCP4 127.0.0.1 127.0.0.1 " + itoa(client.Port) + " "
			if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, "\r\n") {
				t.Fatalf("first line %q, want %q…\\r\\n", line, want)
			}
			return
		case <-deadline:
			t.Fatal("the target got no PROXY header")
		}
	}
}

func TestHTTPForwardsHostAndClient(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	f.serveHealthy(LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{service("http", 80)}, Targets: []Target{t1}})
	_, body := f.get(client, "http", "203.0.113.10:80", "/")
	if want := "one host=shop.example.com xff=127.0.0.1 proto=http"; body != want {
		t.Fatalf("target saw %q, want %q", body, want)
	}
}

func TestStickySessions(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	f.backend("10.0.0.3:30080", "two")
	svc := service("http", 80)
	svc.StickySessions, svc.CookieName = true, "SHOP"
	f.serveHealthy(LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{svc}, Targets: []Target{t1, t2}})
	resp, first := f.get(client, "http", "203.0.113.10:80", "/")
	cookies := resp.Cookies()
	if len(cookies) != 1 || cookies[0].Name != "SHOP" || cookies[0].MaxAge != 300 {
		t.Fatalf("cookies %v, want SHOP with max-age 300", cookies)
	}
	for range 3 {
		req, _ := http.NewRequest(http.MethodGet, "http://"+f.at("203.0.113.10:80")+"/", nil)
		req.Host = "shop.example.com"
		req.AddCookie(cookies[0])
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != first {
			t.Fatalf("sticky request went to %q, want %q", body, first)
		}
	}
}

func TestLeastConnections(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.3:30080", "two")
	hold := make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.net.Route("10.0.0.2:30080", ln.Addr().String())
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { <-hold; c.Close() }()
		}
	}()
	defer func() { close(hold); ln.Close() }()
	f.serveHealthy(LoadBalancer{ID: 1, Addr: lbIP, Algorithm: "least_connections", Services: []Service{service("tcp", 80)}, Targets: []Target{t1, t2}})
	// The first connection goes to one (first of equals) and stays open.
	held, err := net.Dial("tcp", f.at("203.0.113.10:80"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	time.Sleep(50 * time.Millisecond)
	l := f.plane.listeners[netip.MustParseAddrPort("203.0.113.10:80")]
	for range 3 {
		if _, body := f.get(oneShot, "http", "203.0.113.10:80", "/"); !strings.HasPrefix(body, "two ") {
			t.Fatalf("answer %q, want two while one holds a connection", body)
		}
		// The next request should see two idle again, as it will be.
		waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.active["server:2"] == 0 })
	}
}

func TestHTTPSAndRedirect(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	svc := service("https", 443)
	svc.RedirectHTTP, svc.TLSNames = true, []string{"shop.example.com"}
	f.serveHealthy(LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{svc}, Targets: []Target{t1}})
	resp, _ := f.get(noRedirect, "http", "203.0.113.10:80", "/cart?x=1")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusMovedPermanently || loc != "https://shop.example.com/cart?x=1" {
		t.Fatalf("port 80 answered %d to %q, want 301 to https://shop.example.com/cart?x=1", resp.StatusCode, loc)
	}
	var names []string
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, VerifyConnection: func(cs tls.ConnectionState) error {
		names = cs.PeerCertificates[0].DNSNames
		return nil
	}}}
	_, body := f.get(&http.Client{Transport: tr}, "https", "203.0.113.10:443", "/")
	if !strings.HasSuffix(body, "proto=https") || len(names) != 1 || names[0] != "shop.example.com" {
		t.Fatalf("https answer %q with certificate names %v, want proto=https and shop.example.com", body, names)
	}
}

func TestHTTPHealthCheck(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	svc := service("http", 80)
	svc.HealthCheck.Protocol, svc.HealthCheck.Path, svc.HealthCheck.Response = "http", "/healthz", "one"
	lb := LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{svc}, Targets: []Target{t1}}
	f.plane.Sync([]LoadBalancer{lb})
	f.waitHealth(1, 80, "server:1", Healthy)
	lb.Services[0].HealthCheck.Response = "ready"
	f.plane.Sync([]LoadBalancer{lb})
	f.waitHealth(1, 80, "server:1", Unhealthy)
	if h, _ := f.plane.Checked(1, 80, "server:1"); h.Detail != "unexpected_http_content" {
		t.Errorf("a body without %q: %+v, want detail unexpected_http_content", "ready", h)
	}
	lb.Services[0].HealthCheck.Response, lb.Services[0].HealthCheck.StatusCodes = "", []string{"5??"}
	f.plane.Sync([]LoadBalancer{lb})
	f.waitDetail(1, 80, "server:1", "unexpected_http_status")
	if h, _ := f.plane.Checked(1, 80, "server:1"); h.Status != Unhealthy || h.HTTPStatusCode != 200 {
		t.Fatalf("a 200 against status codes 5?? gave %+v, want unhealthy with http_status_code 200", h)
	}
}

// TestHealthCheckDetails: an unhealthy target says why, as the API does
// since 2026-08-17: nothing listening is layer4_no_connection.
func TestHealthCheckDetails(t *testing.T) {
	f := newFixture(t)
	svc := service("tcp", 80)
	lb := LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{svc}, Targets: []Target{t1}}
	f.plane.Sync([]LoadBalancer{lb})
	f.waitHealth(1, 80, "server:1", Unhealthy)
	if h, _ := f.plane.Checked(1, 80, "server:1"); h.Detail != "layer4_no_connection" || h.HTTPStatusCode != 0 {
		t.Errorf("nothing listening: %+v, want layer4_no_connection", h)
	}
	f.backend("10.0.0.2:30080", "one")
	f.waitHealth(1, 80, "server:1", Healthy)
	if h, _ := f.plane.Checked(1, 80, "server:1"); h.Detail != "" {
		t.Errorf("healthy again: %+v, want no detail", h)
	}
}

func TestSyncChangesAndRemoves(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "old")
	f.backend("10.0.0.2:30081", "new")
	lb := LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{service("http", 80)}, Targets: []Target{t1}}
	f.plane.Sync([]LoadBalancer{lb})
	f.waitHealth(1, 80, "server:1", Healthy)
	at := f.at("203.0.113.10:80")
	lb.Services[0].DestinationPort, lb.Services[0].HealthCheck.Port = 30081, 30081
	f.plane.Sync([]LoadBalancer{lb})
	if _, body := f.get(client, "http", "203.0.113.10:80", "/"); !strings.HasPrefix(body, "new ") || f.at("203.0.113.10:80") != at {
		t.Fatalf("after a port change %q from %s, want new from the same listener %s", body, f.at("203.0.113.10:80"), at)
	}
	f.plane.Sync(nil)
	if c, err := net.DialTimeout("tcp", at, time.Second); err == nil {
		c.Close()
		t.Fatal("the listener still accepts after its load balancer went")
	}
	if _, checked := f.plane.Health(1, 80, "server:1"); checked {
		t.Fatal("a removed target still has a health status")
	}
}

func TestStatusMatches(t *testing.T) {
	for _, c := range []struct {
		code     int
		patterns []string
		want     bool
	}{
		{200, nil, true}, {302, nil, true}, {404, nil, false},
		{404, []string{"4??"}, true}, {418, []string{"200", "41?"}, true}, {500, []string{"2??"}, false}, {200, []string{"20"}, false},
	} {
		if got := statusMatches(c.code, c.patterns); got != c.want {
			t.Errorf("statusMatches(%d, %v) = %v, want %v", c.code, c.patterns, got, c.want)
		}
	}
}

func TestProxyHeaderFamilies(t *testing.T) {
	tcp := func(s string) net.Addr { a, _ := net.ResolveTCPAddr("tcp", s); return a }
	for _, c := range []struct{ client, local, want string }{
		{"192.0.2.1:5000", "203.0.113.10:80", "PROXY TCP4 192.0.2.1 203.0.113.10 5000 80\r\n"},
		{"[2001:db8::1]:5000", "[2001:db8::2]:443", "PROXY TCP6 2001:db8::1 2001:db8::2 5000 443\r\n"},
		{"[::ffff:192.0.2.1]:5000", "203.0.113.10:80", "PROXY TCP4 192.0.2.1 203.0.113.10 5000 80\r\n"},
		{"192.0.2.1:5000", "[2001:db8::2]:443", "PROXY UNKNOWN\r\n"},
	} {
		if got := proxyHeader(tcp(c.client), tcp(c.local)); got != c.want {
			t.Errorf("proxyHeader(%s, %s) = %q, want %q", c.client, c.local, got, c.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestRetriesDecideBothWays(t *testing.T) {
	var s streak
	st := Unknown
	var got []string
	for _, ok := range []bool{true, false, false, false, true, true, true, false} {
		if next := s.judge(ok, st, 3); next != "" {
			st = next
		}
		got = append(got, st)
	}
	want := []string{Healthy, Healthy, Healthy, Unhealthy, Unhealthy, Unhealthy, Healthy, Healthy}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("with 3 retries the statuses went\n%v\nwant\n%v", got, want)
	}
}

// TestHTTPSServesTheUploadedCertificate: an https service serves its
// uploaded certificate as it was uploaded; when the service's certificate
// changes (a renewal), the listener serves the new one.
func TestHTTPSServesTheUploadedCertificate(t *testing.T) {
	f := newFixture(t)
	f.backend("10.0.0.2:30080", "one")
	first, second := testcert.New(t, "shop.example.com"), testcert.New(t, "shop.example.com")
	svc := service("https", 443)
	svc.TLSNames, svc.TLS = []string{"shop.example.com"}, []TLSPair{{ID: 1, Chain: first.CertPEM, Key: first.KeyPEM}}
	lb := LoadBalancer{ID: 1, Addr: lbIP, Services: []Service{svc}, Targets: []Target{t1}}
	f.serveHealthy(lb)
	served := func() string {
		var fp string
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, VerifyConnection: func(cs tls.ConnectionState) error {
			fp = testcert.Fingerprint(cs.PeerCertificates[0].Raw)
			return nil
		}}}
		f.get(&http.Client{Transport: tr}, "https", "203.0.113.10:443", "/")
		return fp
	}
	if got := served(); got != first.Fingerprint {
		t.Fatalf("served certificate %s, want the uploaded %s", got, first.Fingerprint)
	}
	lb.Services[0].TLS = []TLSPair{{ID: 2, Chain: second.CertPEM, Key: second.KeyPEM}}
	f.plane.Sync([]LoadBalancer{lb})
	waitFor(t, func() bool { return served() == second.Fingerprint })
}
