package ccm

import (
	"strings"
	"testing"
	"time"
)

// TestLoadBalancerTypeSet: HCLOUD_LOAD_BALANCERS_TYPE counts as set with
// any value, lb11 too, as the official CCM's warning of an unconfigured
// type reads it; blank is unset.
func TestLoadBalancerTypeSet(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		set         bool
	}{
		{name: "unset"},
		{name: "blank", value: " "},
		{name: "lb11", value: "lb11", set: true},
		{name: "lb21", value: "lb21", set: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": token64, "HCLOUD_LOAD_BALANCERS_TYPE": tt.value}), noFile)
			if err != nil {
				t.Fatal(err)
			}
			if c.LoadBalancers.TypeSet != tt.set {
				t.Errorf("TypeSet = %v, want %v", c.LoadBalancers.TypeSet, tt.set)
			}
		})
	}
}

// TestTargetHealthSettings: the health interval is 5m unless set, 0 turns
// it off, and a value outside 1s to 24h is refused naming the range; the
// traffic metrics are off unless granted at most 900 requests an hour.
func TestTargetHealthSettings(t *testing.T) {
	for _, tt := range []struct {
		name, interval, traffic string
		wantInterval            time.Duration
		wantTraffic             int
		err                     string
	}{
		{name: "defaults", wantInterval: 5 * time.Minute},
		{name: "off", interval: "0", wantInterval: 0},
		{name: "a minute, 60 requests", interval: "1m", traffic: "60", wantInterval: time.Minute, wantTraffic: 60},
		{name: "too short", interval: "500ms", err: "HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL=\"500ms\": want 0 (off) or a duration from 1s to 24h0m0s"},
		{name: "not a duration", interval: "often", err: "want 0 (off) or a duration"},
		{name: "too many requests", traffic: "1000", err: "HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS=1000: want 0 (off) to 900"},
		{name: "negative requests", traffic: "-1", err: "HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(env(map[string]string{"HCLOUD_TOKEN": token64,
				"HCLOUD_LOAD_BALANCERS_TARGET_HEALTH_INTERVAL": tt.interval, "HCLOUD_LOAD_BALANCERS_TRAFFIC_METRICS_REQUESTS": tt.traffic}), noFile)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.TargetHealthInterval != tt.wantInterval || c.TrafficRequests != tt.wantTraffic {
				t.Errorf("interval %s, traffic %d; want %s, %d", c.TargetHealthInterval, c.TrafficRequests, tt.wantInterval, tt.wantTraffic)
			}
		})
	}
}
