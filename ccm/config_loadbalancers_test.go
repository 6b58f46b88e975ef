package ccm

import "testing"

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
