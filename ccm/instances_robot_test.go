package ccm

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/fakecloudtest"
)

// newRobotInstances is newInstances with Robot on and the dedicated
// servers ded-1 (321) and ded-2 (322) in fakecloud's webservice.
func newRobotInstances(t *testing.T, c *cloudFixture, family string) (*instances, *record.FakeRecorder, *fakecloudtest.Clock) {
	t.Helper()
	for _, d := range []fakecloud.SeedDedicatedServer{
		{Number: 321, Name: "ded-1", IPv4: "198.51.100.7", IPv6Net: "2a01:4f8:111:4221::", Product: "DS 3000", DC: "FSN1-DC16"},
		{Number: 322, Name: "ded-2", IPv4: "198.51.100.8", Product: "Server Auction™", DC: "HEL1-DC2"},
	} {
		if err := c.FC.Apply(fakecloud.Event{Type: "add_dedicated_server", DedicatedServer: &d}); err != nil {
			t.Fatal(err)
		}
	}
	i, rec := newInstances(t, c, family)
	clock := fakecloudtest.NewClock(time.Now())
	i.cfg.Robot = RobotConfig{Enabled: true, User: fakecloud.DefaultRobotUser, Password: fakecloud.DefaultRobotPassword, ForwardInternalIPs: true}
	i.robot = robotclient.NewCache(robotclient.NewClient(c.URL+"/robot", fakecloud.DefaultRobotUser, fakecloud.DefaultRobotPassword, "test", 5*time.Second),
		robotclient.CacheOptions{MaxAge: 5 * time.Minute, ResetMaxAge: time.Minute, Now: clock.Now})
	return i, rec, clock
}

// robotRequests is how many requests fakecloud's webservice answered.
func robotRequests(c *cloudFixture) uint64 {
	return c.FC.Requests("GET", "/robot/server") + c.FC.Requests("GET", "/robot/reset/{server-number}")
}

// A dedicated server's Node gets the official CCM's metadata, found by
// name, by hrobot:// and by the legacy hcloud://bm-; every lookup within
// ROBOT_CACHE_TIMEOUT shares one listing.
func TestRobotInstanceMetadata(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	i, _, _ := newRobotInstances(t, c, AddressFamilyDualStack)
	n := node("ded-1", "")
	n.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: "10.0.0.5"},       // forwarded
		{Type: corev1.NodeInternalIP, Address: "198.51.100.7"},   // the external address: dropped
		{Type: corev1.NodeExternalIP, Address: "203.0.113.9"},    // not internal: dropped
		{Type: corev1.NodeInternalIP, Address: "not-an-address"}, // dropped
	}
	md, err := i.InstanceMetadata(t.Context(), n)
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.NodeAddress{
		{Type: corev1.NodeHostName, Address: "ded-1"},
		{Type: corev1.NodeExternalIP, Address: "2a01:4f8:111:4221::1"},
		{Type: corev1.NodeExternalIP, Address: "198.51.100.7"},
		{Type: corev1.NodeInternalIP, Address: "10.0.0.5"},
	}
	if diff := cmp.Diff(want, md.NodeAddresses); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	if md.ProviderID != "hrobot://321" || md.InstanceType != "DS-3000" || md.Zone != "fsn1-dc16" || md.Region != "fsn1" ||
		md.AdditionalLabels[labelProvidedBy] != "robot" {
		t.Errorf("metadata %+v", md)
	}
	i.cfg.AddressFamily, i.cfg.ZoneLabelEnabled = AddressFamilyIPv4, false
	for _, pid := range []string{"hrobot://322", "hcloud://bm-322"} {
		md, err := i.InstanceMetadata(t.Context(), node("whatever", pid))
		if err != nil || md.InstanceType != "Server-Auction" || md.Zone != "hel1-dc2" || len(md.NodeAddresses) != 2 {
			t.Errorf("%s: %+v, %v", pid, md, err)
		}
	}
	if md, err := i.InstanceMetadata(t.Context(), node("node-0001", "")); err != nil || md.AdditionalLabels[labelProvidedBy] != "cloud" {
		t.Errorf("a cloud server's Node beside them: %+v, %v", md, err)
	}
	if got := c.FC.Requests("GET", "/robot/server"); got != 1 {
		t.Errorf("%d listings of the webservice for 4 lookups, want 1", got)
	}
	before := c.Requests()
	for range 3 {
		if _, err := i.InstanceMetadata(t.Context(), node("ded-1", "")); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Requests() - before; got != 0 {
		t.Errorf("3 lookups of a dedicated server's Node by name sent %d requests, want 0 (no cloud listing for a name it lacks)", got)
	}
}

// A name that is both a cloud server's and a dedicated server's is an
// error with an event; Robot off, a dedicated Node is an error naming
// ROBOT_ENABLED, not a missing server.
func TestRobotInstanceLookupFailures(t *testing.T) {
	c := newCloud(t, 2, fakecloud.Options{})
	i, rec, _ := newRobotInstances(t, c, AddressFamilyIPv4)
	if err := c.FC.Apply(fakecloud.Event{Type: "rename_dedicated_server", ServerNumber: 322, Name: "node-0001"}); err != nil {
		t.Fatal(err)
	}
	i.robot = robotclient.NewCache(robotclient.NewClient(c.URL+"/robot", fakecloud.DefaultRobotUser, fakecloud.DefaultRobotPassword, "test", 5*time.Second), robotclient.CacheOptions{})
	if err := i.inv.Refresh(t.Context()); err != nil { // as at start
		t.Fatal(err)
	}
	if _, err := i.InstanceMetadata(t.Context(), node("node-0001", "")); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("metadata of an ambiguous name = %v", err)
	}
	expectEvent(t, rec, eventInstanceLookupFailed, "node-0001", "hrobot://322")
	i.robot, i.cfg.Robot = nil, RobotConfig{}
	if _, err := i.InstanceExists(t.Context(), node("ded-1", "hrobot://321")); err == nil || !strings.Contains(err.Error(), "ROBOT_ENABLED") {
		t.Errorf("InstanceExists with Robot off = %v", err)
	}
}

// A dedicated Node's server is gone only when a fresh listing lacks it:
// while the webservice fails the last listing answers, and a server
// missing from it is an error. A server reported shut off is off.
func TestRobotInstanceLifecycle(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	i, _, clock := newRobotInstances(t, c, AddressFamilyIPv4)
	n := node("ded-1", "hrobot://321")
	if ok, err := i.InstanceExists(t.Context(), n); !ok || err != nil {
		t.Fatalf("InstanceExists = %v, %v", ok, err)
	}
	if off, err := i.InstanceShutdown(t.Context(), n); off || err != nil {
		t.Fatalf("InstanceShutdown = %v, %v", off, err)
	}
	for _, e := range []fakecloud.Event{{Type: "power_off_dedicated_server", ServerNumber: 321}, {Type: "remove_dedicated_server", ServerNumber: 322}} {
		if err := c.FC.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(61 * time.Second)
	if off, err := i.InstanceShutdown(t.Context(), n); !off || err != nil {
		t.Errorf("InstanceShutdown after the power-off = %v, %v", off, err)
	}
	if _, err := c.FC.AddFault(fakecloud.Rule{Path: "/robot/**", Status: 503, Code: "INTERNAL_ERROR"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Minute)
	gone := node("ded-2", "hrobot://322")
	if ok, err := i.InstanceExists(t.Context(), gone); !ok && err == nil {
		t.Error("InstanceExists of a removed server = false while the webservice fails; want the last listing's answer or an error")
	}
	if ok, err := i.InstanceExists(t.Context(), node("ded-9", "hrobot://999")); ok || err == nil {
		t.Errorf("InstanceExists of a server never listed while the webservice fails = %v, %v; want an error", ok, err)
	}
	c.FC.ClearFaults()
	if ok, err := i.InstanceExists(t.Context(), gone); ok || err != nil {
		t.Errorf("InstanceExists of a removed server = %v, %v; want false", ok, err)
	}
	if ok, _ := i.InstanceExists(t.Context(), n); !ok {
		t.Error("a powered-off server does not exist")
	}
	if got := robotRequests(c); got != 6 {
		t.Errorf("%d requests to the webservice, want 6 (4 listings, two failed; 2 reset states)", got)
	}
}

// A CCM built with Robot credentials sends nothing to the webservice at
// start, and serves its calls by endpoint and result on /metrics.
func TestRobotBuiltAndMeasured(t *testing.T) {
	c := newCloud(t, 1, fakecloud.Options{})
	if err := c.FC.Apply(fakecloud.Event{Type: "add_dedicated_server", DedicatedServer: &fakecloud.SeedDedicatedServer{Number: 321, Name: "ded-1"}}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(c)
	cfg.MetricsEnabled, cfg.MetricsAddress = true, "127.0.0.1:0"
	cfg.Robot = RobotConfig{Enabled: true, User: fakecloud.DefaultRobotUser, Password: fakecloud.DefaultRobotPassword,
		Endpoint: c.URL + "/robot", CacheTimeout: 5 * time.Minute, RateLimitWait: 5 * time.Minute}
	cl, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := robotRequests(c); got != 0 {
		t.Fatalf("%d Robot requests at start, want 0", got)
	}
	i, _ := cl.InstancesV2()
	if md, err := i.InstanceMetadata(t.Context(), node("ded-1", "")); err != nil || md.ProviderID != "hrobot://321" {
		t.Fatalf("InstanceMetadata = %+v, %v", md, err)
	}
	if got := httpGet(t, cl, "/metrics"); !strings.Contains(got, `hcloud_ccm_robot_calls_total{endpoint="server",result="ok"} 1`) {
		t.Errorf("/metrics lacks the Robot listing:\n%s", got)
	}
}
