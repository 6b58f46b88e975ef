package ccm

import (
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
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
