package ccm

import (
	"io/fs"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer"
	"github.com/hcloudlab/hcloud-ccm/ccm/loadbalancer/annotation"
)

const token64 = "0123456789012345678901234567890123456789012345678901234567890123"

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func noFile(string) ([]byte, error) { return nil, fs.ErrNotExist }

// robotDefaults are the Robot settings when no ROBOT_* variable is set.
var robotDefaults = RobotConfig{Endpoint: "https://robot-ws.your-server.de", CacheTimeout: 5 * time.Minute, RateLimitWait: 5 * time.Minute}

func TestLoadConfigDefaults(t *testing.T) {
	c, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": token64}), noFile)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Token: token64, Endpoint: "https://api.hetzner.cloud/v1", MetadataEndpoint: "http://169.254.169.254/hetzner/v1/metadata", AddressFamily: "ipv4", ZoneLabelEnabled: true,
		MetricsEnabled: true, MetricsAddress: ":8233", InventoryMaxAge: 5 * time.Minute, LifecycleMaxAge: time.Minute, BudgetReserve: 200,
		ActionsEnabled: true, ListingMaxAge: time.Hour, LoadBalancers: annotation.Defaults{Enabled: true, Type: "lb11", TargetAddressFamily: "ipv4"},
		NodeIPAM:          NodeIPAMConfig{IPv6MaskSize: 80, IPv4MaskSize: 24},
		LoadBalancerClass: loadbalancer.Class{Name: "hetzner.cloud/load-balancer", WithoutClass: true}, TargetHealthInterval: 5 * time.Minute,
		Robot: robotDefaults}
	if diff := cmp.Diff(want, c, cmpopts.EquateComparable(netip.Prefix{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLoadConfigEveryVariable(t *testing.T) {
	c, err := LoadConfig(env(map[string]string{
		"HCLOUD_TOKEN": token64, "HCLOUD_ENDPOINT": "http://127.0.0.1:8080/v1", "HCLOUD_DEBUG": "true",
		"HCLOUD_NETWORK": "k8s", "HCLOUD_NETWORK_ROUTES_ENABLED": "false", "HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK": "true",
		"HCLOUD_METADATA_ENDPOINT":        "http://127.0.0.1:8080/metadata/cp-1/hetzner/v1/metadata",
		"HCLOUD_INSTANCES_ADDRESS_FAMILY": "dualstack", "HCLOUD_INSTANCES_ZONE_LABEL_ENABLED": "false",
		"HCLOUD_METRICS_ENABLED": "false", "HCLOUD_METRICS_ADDRESS": "127.0.0.1:9000",
		"HCLOUD_INVENTORY_MAX_AGE": "10m", "HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE": "30s", "HCLOUD_BUDGET_RESERVE": "50",
		"HCLOUD_INVENTORY_ACTIONS_ENABLED": "false", "HCLOUD_INVENTORY_LISTING_MAX_AGE": "6h",
		"HCLOUD_LOAD_BALANCERS_ENABLED": "false", "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE": "eu-central",
		"HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS": "true", "HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP": "true",
		"HCLOUD_LOAD_BALANCERS_DISABLE_IPV6": "true", "HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK": "true",
		"HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL": "false", "HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE": "10.0.1.0/24",
		"HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE": "Least_Connections", "HCLOUD_LOAD_BALANCERS_TYPE": "lb21",
		"HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL": "5s", "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT": "3s",
		"HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES": "2", "HCLOUD_LOAD_BALANCERS_TARGET_ADDRESS_FAMILY": "ipv6",
		"HCLOUD_NODE_IPAM_IPV6_ENABLED": "true", "HCLOUD_NODE_IPAM_IPV6_MASK_SIZE": "112",
		"HCLOUD_LOAD_BALANCERS_CLASS": "example.com/hcloud", "HCLOUD_LOAD_BALANCERS_SERVE_WITHOUT_CLASS": "false",
		"HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL": "1m", "HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS": "60",
	}), noFile)
	if err != nil {
		t.Fatal(err)
	}
	yes, no, two := true, false, 2
	want := Config{Token: token64, Endpoint: "http://127.0.0.1:8080/v1", Debug: true, Network: "k8s", NetworkDisableAttachedCheck: true,
		MetadataEndpoint: "http://127.0.0.1:8080/metadata/cp-1/hetzner/v1/metadata",
		AddressFamily:    "dualstack", MetricsAddress: "127.0.0.1:9000", InventoryMaxAge: 10 * time.Minute, LifecycleMaxAge: 30 * time.Second, BudgetReserve: 50,
		ListingMaxAge: 6 * time.Hour,
		LoadBalancers: annotation.Defaults{NetworkZone: "eu-central", DisablePrivateIngress: true, UsePrivateIP: true, DisableIPv6: true,
			DisablePublicNetwork: &yes, UsesProxyProtocol: &no, PrivateSubnetIPRange: "10.0.1.0/24", AlgorithmType: "least_connections",
			Type: "lb21", TypeSet: true, HealthCheckInterval: 5 * time.Second, HealthCheckTimeout: 3 * time.Second, HealthCheckRetries: &two,
			TargetAddressFamily: "ipv6"},
		NodeIPAM:          NodeIPAMConfig{IPv6: true, IPv6MaskSize: 112, IPv4MaskSize: 24},
		LoadBalancerClass: loadbalancer.Class{Name: "example.com/hcloud"}, TargetHealthInterval: time.Minute, TrafficRequests: 60,
		Robot: robotDefaults}
	if diff := cmp.Diff(want, c, cmpopts.EquateComparable(netip.Prefix{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLoadConfigRoutesNeedANetwork(t *testing.T) {
	c, _ := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": token64, "HCLOUD_NETWORK_ROUTES_ENABLED": "true"}), noFile)
	if c.RoutesEnabled {
		t.Error("routes enabled without HCLOUD_NETWORK")
	}
	c, _ = LoadConfig(env(map[string]string{"HCLOUD_TOKEN": token64, "HCLOUD_NETWORK": "1"}), noFile)
	if !c.RoutesEnabled {
		t.Error("routes off by default with a network")
	}
}

func TestLoadConfigTokenFile(t *testing.T) {
	read := func(path string) ([]byte, error) {
		if path == "/secret/token" {
			return []byte(token64 + "\n"), nil
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	c, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN_FILE": "/secret/token"}), read)
	if err != nil || c.Token != token64 {
		t.Fatalf("token file: %v", err)
	}
	_, err = LoadConfig(env(map[string]string{"HCLOUD_TOKEN_FILE": "/missing"}), read)
	if err == nil || !strings.Contains(err.Error(), "HCLOUD_TOKEN_FILE") {
		t.Errorf("missing token file: %v", err)
	}
	c, err = LoadConfig(env(map[string]string{"HCLOUD_TOKEN": "short"}), read)
	if err != nil || len(c.Warnings) != 1 {
		t.Errorf("a short token is a warning, as upstream: %v %v", err, c.Warnings)
	}
}

// TestLoadConfigReportsEveryErrorWithoutTheToken: all problems at once,
// and the token never appears in them.
func TestLoadConfigReportsEveryErrorWithoutTheToken(t *testing.T) {
	secret := token64[:40] + "\x01secret-part-of-token!!"
	_, err := LoadConfig(env(map[string]string{
		"HCLOUD_TOKEN": secret, "HCLOUD_DEBUG": "yes please", "HCLOUD_INSTANCES_ADDRESS_FAMILY": "ipv5",
		"HCLOUD_ENDPOINT": "ftp://x", "HCLOUD_METADATA_ENDPOINT": "169.254.169.254", "HCLOUD_INVENTORY_MAX_AGE": "-1s", "HCLOUD_BUDGET_RESERVE": "lots",
		"HCLOUD_LOAD_BALANCERS_LOCATION": "fsn1", "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE": "eu-central",
		"HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE": "random", "HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE": "nope",
		"HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES": "x", "HCLOUD_LOAD_BALANCERS_CLASS": "not a class!",
	}), noFile)
	if err == nil {
		t.Fatal("bad configuration accepted")
	}
	for _, name := range []string{"HCLOUD_DEBUG", "HCLOUD_INSTANCES_ADDRESS_FAMILY", "HCLOUD_ENDPOINT", "HCLOUD_METADATA_ENDPOINT", "HCLOUD_INVENTORY_MAX_AGE",
		"HCLOUD_BUDGET_RESERVE", "HCLOUD_LOAD_BALANCERS_LOCATION", "HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE",
		"HCLOUD_LOAD_BALANCERS_PRIVATE_SUBNET_IP_RANGE", "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES", "HCLOUD_LOAD_BALANCERS_CLASS", "HTTP header"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not mention %s:\n%v", name, err)
		}
	}
	if strings.Contains(err.Error(), "secret-part") {
		t.Error("the error shows the token")
	}
	if n := len(strings.Split(err.Error(), "\n")); n != 12 {
		t.Errorf("%d errors reported, want all 12, one a line", n)
	}
	_, err = LoadConfig(env(nil), noFile)
	if err == nil || !strings.Contains(err.Error(), "HCLOUD_TOKEN") {
		t.Errorf("missing token: %v", err)
	}
}

func TestConfigStringHidesToken(t *testing.T) {
	c := Config{Token: token64}
	if strings.Contains(c.String(), token64) {
		t.Error("Config.String shows the token")
	}
}

// The Robot settings carry over from the official CCM: names, defaults,
// 0 as the default, the _FILE forms, both credentials or none.
func TestRobotConfig(t *testing.T) {
	files := func(name string) ([]byte, error) {
		if name == "/run/robot-password" {
			return []byte(" s3cret\n"), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	c, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": "t", "ROBOT_ENABLED": "true", "ROBOT_USER": "#ws+abc",
		"ROBOT_PASSWORD_FILE": "/run/robot-password", "ROBOT_CACHE_TIMEOUT": "0", "ROBOT_RATE_LIMIT_WAIT_TIME": "20m"}), files)
	want := RobotConfig{Enabled: true, User: "#ws+abc", Password: "s3cret", PasswordFile: "/run/robot-password", Endpoint: "https://robot-ws.your-server.de",
		CacheTimeout: 5 * time.Minute, RateLimitWait: 20 * time.Minute, ForwardInternalIPs: true}
	if err != nil || c.Robot != want {
		t.Fatalf("Robot = %+v, %v; want %+v", c.Robot, err, want)
	}
	if strings.Contains(c.String(), "s3cret") || strings.Contains(c.String(), "#ws+abc") {
		t.Errorf("String shows the credentials: %s", c)
	}
	off, _ := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": "t", "ROBOT_USER": "u", "ROBOT_PASSWORD": "p"}), nil)
	if off.Robot.Enabled || off.Robot.ForwardInternalIPs {
		t.Errorf("Robot off = %+v, want off without forwarding", off.Robot)
	}
	for name, vars := range map[string]map[string]string{
		"ROBOT_USER and ROBOT_PASSWORD": {"ROBOT_ENABLED": "1", "ROBOT_USER": "u"},
		"ROBOT_PASSWORD_FILE":           {"ROBOT_ENABLED": "1", "ROBOT_USER": "u", "ROBOT_PASSWORD_FILE": "/nope"},
		"ROBOT_CACHE_TIMEOUT":           {"ROBOT_CACHE_TIMEOUT": "5 minutes"},
		"ROBOT_ENDPOINT":                {"ROBOT_ENDPOINT": "robot-ws"},
	} {
		vars["HCLOUD_TOKEN"] = "t"
		if _, err := LoadConfig(env(vars), files); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: err = %v, want one naming %s", vars, err, name)
		}
	}
}

// TestLoadConfigRefusesWhatCannotWork: numbers out of range and Robot
// credentials basic authentication cannot carry are refused at start,
// each naming its variable and what it accepts, never the credentials.
func TestLoadConfigRefusesWhatCannotWork(t *testing.T) {
	for name, tc := range map[string]struct{ value, want string }{
		"HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL": {"10000h", "want whole seconds from 3s to 1m0s"},
		"HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT":  {"1500ms", "want whole seconds from 1s to 1m0s"},
		"HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES":  {"1000000", "want a whole number from 1 to 5"},
		"HCLOUD_BUDGET_RESERVE":                       {"99999999", "want 0 to 3599"},
		"HCLOUD_INVENTORY_MAX_AGE":                    {"1ns", "want a duration from 1s to 24h0m0s"},
		"HCLOUD_INVENTORY_LIFECYCLE_MAX_AGE":          {"1000h", "want a duration from 1s to 24h0m0s"},
		"HCLOUD_INVENTORY_LISTING_MAX_AGE":            {"1ns", "want a duration from 1s to 24h0m0s"},
		"ROBOT_CACHE_TIMEOUT":                         {"1ns", "want a duration from 1s to 24h0m0s"},
		"ROBOT_RATE_LIMIT_WAIT_TIME":                  {"100000h", "want a duration from 1s to 24h0m0s"},
		"ROBOT_USER":                                  {"ops:secret", "cannot send a user with a colon"},
		"ROBOT_PASSWORD":                              {"pa\x00ss", "control characters"},
	} {
		vars := map[string]string{"HCLOUD_TOKEN": token64, "ROBOT_ENABLED": "true", "ROBOT_USER": "#ws+ops", "ROBOT_PASSWORD": "pw", name: tc.value}
		_, err := LoadConfig(env(vars), noFile)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%q: %v; want an error naming it and saying %q", name, tc.value, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "pa\x00ss")) {
			t.Errorf("%s: the error shows the credentials: %v", name, err)
		}
	}
	if _, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": token64, "HCLOUD_BUDGET_RESERVE": "3599", "HCLOUD_INVENTORY_MAX_AGE": "1s",
		"HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL": "1m", "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES": "5"}), noFile); err != nil {
		t.Errorf("the edges of the ranges: %v", err)
	}
}
