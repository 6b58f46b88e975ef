package ccm

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/util/workqueue"

	"github.com/hcloudlab/hcloud-ccm/ccm/version"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func testConfig(c *cloudFixture) Config {
	return Config{Token: fakecloud.DefaultToken, Endpoint: c.URL + "/v1", AddressFamily: AddressFamilyIPv4,
		MetadataEndpoint: c.URL + "/metadata/node-0000/hetzner/v1/metadata",
		InventoryMaxAge:  5 * time.Minute, LifecycleMaxAge: time.Minute, ActionsEnabled: true, ListingMaxAge: 3 * time.Hour}
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
	if got := c.FC.Requests("GET", "/servers"); got != 2 {
		t.Errorf("start listed servers with %d requests, want one listing of 2 pages", got)
	}
	// The start-up listing fills the inventory: metadata costs nothing.
	c.FC.ResetCounters()
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
	if err == nil || !strings.Contains(err.Error(), "unauthorized") || !strings.Contains(err.Error(), "HCLOUD_TOKEN") || strings.Contains(err.Error(), cfg.Token) {
		t.Errorf("bad token: %v", err)
	}
	// With a network set, the first call is the network's: a wrong token
	// is still reported as the token's fault, not the network's.
	cfg.Network = "k8s"
	_, err = New(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "HCLOUD_TOKEN") || strings.Contains(err.Error(), "HCLOUD_NETWORK") {
		t.Errorf("bad token with HCLOUD_NETWORK: %v, want HCLOUD_TOKEN named and not HCLOUD_NETWORK", err)
	}
}

func TestAttachedCheck(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	c.CreateServer(t, "outsider")
	cfg := testConfig(c)
	cfg.Network = "k8s"
	if _, err := New(t.Context(), cfg); err != nil {
		t.Fatalf("server in the network refused: %v", err)
	}
	cfg.MetadataEndpoint = c.URL + "/metadata/outsider/hetzner/v1/metadata"
	_, err := New(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "not attached") || !strings.Contains(err.Error(), "HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK") {
		t.Errorf("server outside the network: %v", err)
	}
	cfg.MetadataEndpoint = c.URL + "/nowhere"
	if _, err = New(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "not possible") {
		t.Errorf("no metadata service: %v", err)
	}
	cfg.NetworkDisableAttachedCheck = true
	if _, err = New(t.Context(), cfg); err != nil {
		t.Errorf("check disabled: %v", err)
	}
}

func TestMetrics(t *testing.T) {
	c := newCloud(t, 3, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.MetricsEnabled, cfg.MetricsAddress = true, "127.0.0.1:0"
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "hcloud-test"})
	defer q.ShutDown()
	q.Add("x")
	before := testutil.ToFloat64(operationsTotal.WithLabelValues("hcloud/instancesv2.InstanceMetadata"))
	i, _ := cl.InstancesV2()
	for _, name := range []string{"node-0001", "node-0002", "node-0404"} {
		_, _ = i.InstanceMetadata(t.Context(), node(name, ""))
	}
	resp, err := http.Get("http://" + cl.HTTPAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`hcloud_api_requests_total{api_endpoint="/servers",code="200",method="get"} 2`,
		`hcloud_ccm_inventory_lookups_total{result="hit"} 2`,
		`hcloud_ccm_inventory_lookups_total{result="gone"} 1`,
		`hcloud_ccm_inventory_listings_total 1`,
		`go_goroutines`,
		// The Kubernetes libraries' metrics, as the official CCM serves them.
		`workqueue_adds_total{name="hcloud-test"} 1`,
		`registered_metrics_total`,
		// The official CCM's names, labels and meaning.
		`cloud_controller_manager_server_cache_requests_total{mode="all",result="hit",subsystem="instances_v2"} 2`,
		`cloud_controller_manager_server_cache_requests_total{mode="all",result="miss",subsystem="instances_v2"} 1`,
		`cloud_controller_manager_operations_total{op="hcloud/instancesv2.InstanceMetadata"}`,
		`cloud_controller_manager_operations_total{op="hcloud/newCloud"}`,
		`hcloud_api_request_duration_seconds_bucket{method="get",le="0.005"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if got := testutil.ToFloat64(operationsTotal.WithLabelValues("hcloud/instancesv2.InstanceMetadata")) - before; got != 3 {
		t.Errorf("InstanceMetadata counted %v times in cloud_controller_manager_operations_total, want 3", got)
	}
	if got := httpGet(t, cl, "/readyz"); got != "200 ok" {
		t.Errorf("/readyz = %q once built, want 200 ok", got)
	}
	// The address is taken: a second CCM says so instead of running blind.
	cfg.MetricsAddress = cl.HTTPAddr().String()
	if _, err := New(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "HCLOUD_METRICS_ADDRESS") {
		t.Errorf("busy metrics address: %v", err)
	}
}

// Probes answer whatever HCLOUD_METRICS_ENABLED says, so turning metrics
// off cannot get the pod killed.
func TestHealthWithMetricsOff(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.MetricsEnabled, cfg.MetricsAddress = false, "127.0.0.1:0"
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/healthz": "200 ok", "/livez": "200 ok", "/readyz": "200 ok",
		"/metrics": "404 metrics are off (HCLOUD_METRICS_ENABLED=false)"} {
		if got := httpGet(t, cl, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
}

// A provider that cannot start is alive but never ready.
func TestNotReadyWhenStartFails(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	cfg := testConfig(c)
	cfg.Token = strings.Repeat("x", 64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MetricsAddress = ln.Addr().String()
	ln.Close()
	if _, err := New(t.Context(), cfg); err == nil {
		t.Fatal("a wrong token started")
	}
	resp, err := http.Get("http://" + cfg.MetricsAddress + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz after a failed start = %d, want 503", resp.StatusCode)
	}
}

// httpGet is "code body" of a GET on the provider's health and metrics address.
func httpGet(t *testing.T, cl *Cloud, path string) string {
	t.Helper()
	resp, err := http.Get("http://" + cl.HTTPAddr().String() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
}

// The API sees this CCM's version in every request's User-Agent.
func TestUserAgentCarriesTheVersion(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	if _, err := New(t.Context(), testConfig(c)); err != nil {
		t.Fatal(err)
	}
	entries := c.FC.Journal(fakecloud.JournalFilter{})
	if len(entries) == 0 {
		t.Fatal("no request journaled")
	}
	for _, e := range entries {
		if want := "hcloud-ccm/" + version.Version + " hcloud-go/"; !strings.HasPrefix(e.UserAgent, want) {
			t.Errorf("%s %s: User-Agent %q, want it to start with %q", e.Method, e.Path, e.UserAgent, want)
		}
	}
}
