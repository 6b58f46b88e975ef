// Package cloudtest starts fakecloud for the tests of the ccm packages: a
// world of servers in one network and the test kit's client of it.
package cloudtest

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// Cloud is fakecloud on httptest and a client of it.
type Cloud struct {
	FC     *fakecloud.Server
	Client *hcloud.Client
	URL    string
}

// Start serves a fakecloud whose world has n servers, node-0000 on, each
// attached to the network k8s (10.0.0.0/8, subnet 10.0.0.0/16 in
// eu-central), with no rate limit unless opts sets one. clientOpts come
// after the defaults, so they override them. Counters start at zero.
func Start(t testing.TB, n int, opts fakecloud.Options, clientOpts ...hcloud.ClientOption) *Cloud {
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
	url := fakecloudtest.Serve(t, fc)
	fc.ResetCounters()
	return &Cloud{FC: fc, Client: fakecloudtest.Client(url, fakecloud.DefaultToken, clientOpts...), URL: url}
}

// CreateServer adds a cx23 in fsn1, attached to the networks, behind the
// CCM's back, as an autoscaler or an operator does.
func (c *Cloud) CreateServer(t testing.TB, name string, networks ...*hcloud.Network) {
	t.Helper()
	if _, _, err := c.Client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "cx23"},
		Image: &hcloud.Image{Name: "ubuntu-24.04"}, Location: &hcloud.Location{Name: "fsn1"}, Networks: networks}); err != nil {
		t.Fatal(err)
	}
}

// Server is the server of the name, which must exist.
func (c *Cloud) Server(t testing.TB, name string) *hcloud.Server {
	t.Helper()
	s, _, err := c.Client.Server.GetByName(t.Context(), name)
	if err != nil || s == nil {
		t.Fatalf("server %s: %v %v", name, s, err)
	}
	return s
}

// Requests is how many API requests fakecloud answered since the last reset.
func (c *Cloud) Requests() uint64 { return c.FC.Requests("", "") }

// Endless answers 200 with a body that never ends, until the client
// goes: an API or a proxy gone wrong.
func Endless(w http.ResponseWriter, r *http.Request) {
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}
