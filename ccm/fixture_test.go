package ccm

import (
	"net"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"k8s.io/client-go/tools/record"

	"github.com/hcloudlab/hcloud-ccm/ccm/internal/cloudtest"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// cloudFixture is fakecloud with a world of n servers in a network.
type cloudFixture struct{ *cloudtest.Cloud }

func newCloud(t testing.TB, n int, opts fakecloud.Options) *cloudFixture {
	return &cloudFixture{cloudtest.Start(t, n, opts)}
}

// addRoute adds a route to the network behind the CCM's back and waits
// for its action.
func (c *cloudFixture) addRoute(t testing.TB, nw *hcloud.Network, destination, gateway string) {
	t.Helper()
	a, _, err := c.Client.Network.AddRoute(t.Context(), nw, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{
		Destination: mustCIDR(destination), Gateway: net.ParseIP(gateway)}})
	if err == nil {
		err = c.Client.Action.WaitFor(t.Context(), a)
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

func (c *cloudFixture) requests() uint64 { return c.Requests() }
