package fakecloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

func containsString(s, sub string) bool { return strings.Contains(s, sub) }

// containsCode reports whether body is an error envelope with the code.
func containsCode(body []byte, code string) bool {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &env) == nil && env.Error.Code == code
}

// newNetwork creates a network with one cloud subnet in eu-central.
func newNetwork(t testing.TB, f *fixture, name, ipRange, subnet string) *hcloud.Network {
	t.Helper()
	_, r, err := net.ParseCIDR(ipRange)
	if err != nil {
		t.Fatal(err)
	}
	opts := hcloud.NetworkCreateOpts{Name: name, IPRange: r}
	if subnet != "" {
		_, s, _ := net.ParseCIDR(subnet)
		opts.Subnets = []hcloud.NetworkSubnet{{Type: hcloud.NetworkSubnetTypeCloud, IPRange: s, NetworkZone: hcloud.NetworkZoneEUCentral}}
	}
	n, _, err := f.client.Network.Create(t.Context(), opts)
	if err != nil {
		t.Fatalf("create network %s: %v", name, err)
	}
	return n
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

func asError(err error, target *hcloud.Error) bool { return errors.As(err, target) }

func itoa(i int) string { return strconv.Itoa(i) }

// waitAction fails the test unless the call that returned a and err
// started an action that then succeeded.
func (f *fixture) waitAction(t testing.TB, a *hcloud.Action, err error) {
	t.Helper()
	if err == nil {
		err = f.client.Action.WaitFor(t.Context(), a)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// serverOnClock creates a cx23 server on a fixture whose actions take a
// minute on clock, and moves the clock past them.
func serverOnClock(t testing.TB, f *fixture, clock *fakecloudtest.Clock, name string) *hcloud.Server {
	t.Helper()
	res, _, err := f.client.Server.Create(t.Context(), hcloud.ServerCreateOpts{Name: name, ServerType: &hcloud.ServerType{Name: "cx23"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	return res.Server
}

// roundTrip seeds a fakecloud with a world written in YAML, exports it,
// and imports the export into a new fakecloud, which must export the
// same; it returns the seeded one, the export and the new one.
func roundTrip(t *testing.T, world string) (*Server, []byte, *Server) {
	t.Helper()
	w, err := ParseWorld([]byte(world))
	if err != nil {
		t.Fatal(err)
	}
	fc := New(Options{})
	if err := fc.Seed(w); err != nil {
		t.Fatal(err)
	}
	data, err := fc.Export()
	if err != nil {
		t.Fatal(err)
	}
	back := New(Options{})
	if err := back.Import(data); err != nil {
		t.Fatal(err)
	}
	if again, err := back.Export(); err != nil || string(again) != string(data) {
		t.Errorf("export after import differs: %v", err)
	}
	return fc, data, back
}
