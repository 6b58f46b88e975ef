package fidelity

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestTheStatedAPIIsTheVendoredOne: the checksum is the vendored
// description's, and its README and the API coverage page state the same
// description and dates.
func TestTheStatedAPIIsTheVendoredOne(t *testing.T) {
	spec, err := os.ReadFile("../../../testdata/openapi/cloud.spec.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(spec)
	if got := hex.EncodeToString(sum[:]); got != Simulated.DescriptionSHA256 {
		t.Errorf("testdata/openapi/cloud.spec.json has sha256 %s, Simulated says %s", got, Simulated.DescriptionSHA256)
	}
	for path, wants := range map[string][]string{
		"../../../testdata/openapi/README.md":               {Simulated.DescriptionSHA256},
		"../../../docs/reference/fakecloud/api-coverage.md": {Simulated.Changelog, Simulated.ChangelogEntry, Simulated.Catalogue, Simulated.Description},
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s does not state %q", path, want)
			}
		}
	}
}
