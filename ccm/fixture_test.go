package ccm

import (
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
	"k8s.io/client-go/tools/record"
)

// cloudFixture is fakecloud on httptest with a world of n servers in a
// network, and an hcloud-go client that neither sleeps nor retries slowly.
type cloudFixture struct {
	fc     *fakecloud.Server
	client *hcloud.Client
	url    string
}

func newCloud(t testing.TB, n int, opts fakecloud.Options) *cloudFixture {
	t.Helper()
	if opts.RateLimit == 0 {
		opts.RateLimit = -1
	}
	fc := fakecloud.New(opts)
	w := fakecloud.World{Networks: []fakecloud.SeedNetwork{{Name: "k8s", IPRange: "10.0.0.0/8",
		Subnets: []schema.NetworkSubnet{{Type: "cloud", IPRange: "10.0.0.0/16", NetworkZone: "eu-central"}}}}}
	for i := range n {
		w.Servers = append(w.Servers, fakecloud.SeedServer{Name: fmt.Sprintf("node-%04d", i), Networks: []fakecloud.SeedServerNetwork{{Network: "k8s"}}})
	}
	if err := fc.Seed(w); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fc)
	t.Cleanup(srv.Close)
	t.Cleanup(fc.Close)
	client := hcloud.NewClient(hcloud.WithEndpoint(srv.URL+"/v1"), hcloud.WithToken(fakecloud.DefaultToken),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(time.Millisecond)}),
		hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(0), MaxRetries: 5}))
	fc.ResetCounters()
	return &cloudFixture{fc: fc, client: client, url: srv.URL}
}

// createServer adds a cx22 in fsn1, attached to the networks, behind the
// CCM's back, as an autoscaler or an operator does.
func (c *cloudFixture) createServer(t testing.TB, name string, networks ...*hcloud.Network) {
	t.Helper()
	if _, _, err := c.client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "cx22"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Location: &hcloud.Location{Name: "fsn1"}, Networks: networks}); err != nil {
		t.Fatal(err)
	}
}

// addRoute adds a route to the network behind the CCM's back and waits
// for its action.
func (c *cloudFixture) addRoute(t testing.TB, nw *hcloud.Network, destination, gateway string) {
	t.Helper()
	a, _, err := c.client.Network.AddRoute(t.Context(), nw, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{
		Destination: mustCIDR(destination), Gateway: net.ParseIP(gateway)}})
	if err == nil {
		err = c.client.Action.WaitFor(t.Context(), a)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// expectEvent takes the next event from rec and checks that it holds
// every part (its reason, names, values).
func expectEvent(t testing.TB, rec *record.FakeRecorder, parts ...string) {
	t.Helper()
	select {
	case e := <-rec.Events:
		for _, p := range parts {
			if !strings.Contains(e, p) {
				t.Errorf("event %q lacks %q", e, p)
			}
		}
	default:
		t.Errorf("no event with %q", parts)
	}
}

func mustCIDR(s string) *net.IPNet {
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	return n
}

// requests is how many API requests fakecloud answered since the last reset.
func (c *cloudFixture) requests() uint64 { return c.fc.Requests("", "") }

// clock is a test clock, safe to read from fakecloud's goroutines.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
