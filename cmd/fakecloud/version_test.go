package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// TestVersionNamesTheSimulatedAPI: --version and the version command print
// the build and the date of the API fakecloud simulates.
func TestVersionNamesTheSimulatedAPI(t *testing.T) {
	api := fakecloud.SimulatedAPI()
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		var out, errOut bytes.Buffer
		if err := dispatch(t.Context(), args, envOf(nil), &out, &errOut); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "fakecloud ") ||
			!strings.Contains(lines[1], "as of "+api.Changelog) || !strings.Contains(lines[1], api.Description) {
			t.Errorf("%q printed %q, want the build, then the API as of %s", args, out.String(), api.Changelog)
		}
	}
	var out bytes.Buffer
	if err := dispatch(t.Context(), []string{"version", "extra"}, envOf(nil), &out, &out); err == nil {
		t.Error("version with an argument: no error")
	}
}
