package fakecloud

import (
	"strings"
	"testing"
)

// TestToolchainWorld: testdata/worlds/toolchain.yaml seeds every kind the
// toolchain's resources need, each where the world says.
func TestToolchainWorld(t *testing.T) {
	w, err := LoadWorld("../testdata/worlds/toolchain.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fc := New(Options{})
	if err := fc.Seed(w); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/v1/servers?name=worker-1":                      `"volumes":[1`,
		"/v1/servers?name=worker-2":                      `"status":"applied"`,
		"/v1/servers?name=control-plane-1":               `"floating_ips":[9`,
		"/v1/firewalls?name=nodes":                       `"applied_to_resources":[{"type":"server"`,
		"/v1/placement_groups?name=workers":              `"servers":[1`,
		"/v1/volumes?name=pvc-data-0":                    `"status":"available"`,
		"/v1/zones?name=demo-cluster.com":                `"record_count":6`,
		"/v1/zones/demo-cluster.com/rrsets/*.apps/CNAME": `"value":"api.demo-cluster.com."`,
	} {
		rec := answer(t, fc, "GET", path, nil)
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %s, want %s", path, rec.Body, want)
		}
	}
}
