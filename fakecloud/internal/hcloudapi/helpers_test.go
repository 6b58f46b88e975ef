package hcloudapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
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
