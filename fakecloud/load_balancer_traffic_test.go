package fakecloud

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/lbtraffic/lbtraffictest"
)

// backend serves HTTP for a server's private address on the network the
// data plane dials through, answering with name.
func backend(t *testing.T, n *lbtraffictest.Network, addr, name string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, name) }))
	t.Cleanup(srv.Close)
	n.Route(addr, srv.Listener.Addr().String())
}

func TestLoadBalancerCarriesTraffic(t *testing.T) {
	var nw lbtraffictest.Network
	f := newFixture(t, Options{LoadBalancerIPv4Range: netip.MustParsePrefix("127.0.101.0/24"), LoadBalancerDial: nw.Dial})
	ctx := t.Context()
	n := newNetwork(t, f, "cluster", "10.0.0.0/16", "10.0.1.0/24")
	one := newServer(t, f, hcloud.ServerCreateOpts{Name: "one", Networks: []*hcloud.Network{n}})
	two := newServer(t, f, hcloud.ServerCreateOpts{Name: "two", Networks: []*hcloud.Network{n}})
	backend(t, &nw, one.PrivateNet[0].IP.String()+":30080", "one")
	backend(t, &nw, two.PrivateNet[0].IP.String()+":30080", "two")
	res, _, err := f.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
		Name: "web", LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"}, Location: &hcloud.Location{Name: "fsn1"}, Network: n,
		Services: []hcloud.LoadBalancerCreateOptsService{{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(8080), DestinationPort: hcloud.Ptr(30080),
			HealthCheck: &hcloud.LoadBalancerCreateOptsServiceHealthCheck{Protocol: hcloud.LoadBalancerServiceProtocolTCP, Port: hcloud.Ptr(30080),
				Interval: hcloud.Ptr(3 * time.Second), Timeout: hcloud.Ptr(time.Second), Retries: hcloud.Ptr(1)}}},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{
			{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: one}, UsePrivateIP: hcloud.Ptr(true)},
			{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: two}, UsePrivateIP: hcloud.Ptr(true)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ip := res.LoadBalancer.PublicNet.IPv4.IP.String(); ip != "127.0.101.1" {
		t.Fatalf("load balancer address %s, want the first of the traffic range, 127.0.101.1", ip)
	}
	// The load balancer took no address from the pool servers share.
	three := newServer(t, f, hcloud.ServerCreateOpts{Name: "three"})
	if got, want := three.PublicNet.IPv4.IP.String(), "198.18.0.3"; one.PublicNet.IPv4.IP.String() != "198.18.0.1" || got != want {
		t.Fatalf("servers got public IPv4 %s, then %s after the load balancer; want 198.18.0.1 and %s", one.PublicNet.IPv4.IP, got, want)
	}
	waitTargets(t, f, res.LoadBalancer.ID, map[string]string{"one": "healthy", "two": "healthy"})
	if got := answers(t, "127.0.101.1:8080", 4); got["one"] != 2 || got["two"] != 2 {
		t.Fatalf("4 connections went %v, want 2 to each server", got)
	}

	act, _, err := f.client.Server.Poweroff(ctx, one)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.client.Action.WaitFor(ctx, act); err != nil {
		t.Fatal(err)
	}
	waitTargets(t, f, res.LoadBalancer.ID, map[string]string{"one": "unhealthy", "two": "healthy"})
	// The data plane follows the world within a tick (100 ms).
	deadline := time.Now().Add(5 * time.Second)
	for got := answers(t, "127.0.101.1:8080", 3); got["two"] != 3; got = answers(t, "127.0.101.1:8080", 3) {
		if time.Now().After(deadline) {
			t.Fatalf("with one off, 3 connections went %v, want all to two", got)
		}
		time.Sleep(20 * time.Millisecond)
	}

	if _, err := f.client.LoadBalancer.Delete(ctx, res.LoadBalancer); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.101.1:8080", time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("127.0.101.1:8080 still accepts after the load balancer was deleted")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitTargets waits until the API shows each named server's target with
// the status.
func waitTargets(t *testing.T, f *fixture, id int64, want map[string]string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		lb, _, err := f.client.LoadBalancer.GetByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, tg := range lb.Targets {
			s, _, err := f.client.Server.GetByID(t.Context(), tg.Server.Server.ID)
			if err != nil || s == nil {
				t.Fatalf("server %d: %v", tg.Server.Server.ID, err)
			}
			for _, h := range tg.HealthStatus {
				got[s.Name] = string(h.Status)
			}
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("target health %v, want %v", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answers counts which server answered n fresh connections to addr.
func answers(t *testing.T, addr string, n int) map[string]int {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	got := map[string]int{}
	for range n {
		resp, err := client.Get("http://" + addr + "/")
		if err != nil {
			t.Fatalf("GET %s: %v", addr, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got[strings.TrimSpace(string(body))]++
	}
	return got
}
