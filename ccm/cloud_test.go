package ccm

import (
	"strings"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func testConfig(c *cloudFixture) Config {
	return Config{Token: fakecloud.DefaultToken, Endpoint: c.url + "/v1", AddressFamily: AddressFamilyIPv4,
		InventoryMaxAge: 5 * time.Minute, LifecycleMaxAge: time.Minute}
}

func TestNewResolvesNetworkAndListsServers(t *testing.T) {
	c := newCloud(t, 60, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.Network, cfg.RoutesEnabled = "k8s", true
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cl.cfg.NetworkID == 0 {
		t.Error("network name not resolved to its ID")
	}
	if _, ok := cl.Routes(); !ok {
		t.Error("routes not offered with a network")
	}
	if _, ok := cl.InstancesV2(); !ok || cl.ProviderName() != "hcloud" || cl.HasClusterID() {
		t.Error("provider identity")
	}
	if got := c.fc.Requests("GET", "/servers"); got != 2 {
		t.Errorf("start listed servers with %d requests, want one listing of 2 pages", got)
	}
	// The start-up listing fills the inventory: metadata costs nothing.
	c.fc.ResetCounters()
	i, _ := cl.InstancesV2()
	if _, err := i.InstanceMetadata(t.Context(), node("node-0042", "")); err != nil {
		t.Fatal(err)
	}
	if c.requests() != 0 {
		t.Errorf("metadata after start cost %d requests", c.requests())
	}
}

func TestNewFailsClearly(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.Network = "nope"
	if _, err := New(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "HCLOUD_NETWORK") {
		t.Errorf("unknown network: %v", err)
	}
	cfg = testConfig(c)
	cfg.Token = strings.Repeat("x", 64)
	_, err := New(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "unauthorized") || strings.Contains(err.Error(), cfg.Token) {
		t.Errorf("bad token: %v", err)
	}
}
