package fakecloud

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestKnownCodes: every code in the OpenAPI description's error tables,
// and every code fakecloud answers with, is one a fault may use.
func TestKnownCodes(t *testing.T) {
	spec, err := os.ReadFile("../testdata/openapi/cloud.spec.json")
	if err != nil {
		t.Fatal(err)
	}
	inSpec := regexp.MustCompile("\\| `\\d{3}` \\| `([a-z_]+)` \\|").FindAllSubmatch(spec, -1)
	if len(inSpec) < 50 {
		t.Fatalf("found only %d error table rows in the description", len(inSpec))
	}
	for _, m := range inSpec {
		if !knownCodes[string(m[1])] {
			t.Errorf("the description's code %s is not in knownCodes", m[1])
		}
	}
	files, _ := filepath.Glob("*.go")
	used := regexp.MustCompile(`errorf\("([a-z_]+)"|code[A-Za-z]+ += "([a-z_]+)"`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range used.FindAllSubmatch(src, -1) {
			if code := string(m[1]) + string(m[2]); !knownCodes[code] {
				t.Errorf("%s answers with %s, which knownCodes lacks", f, code)
			}
		}
	}
	for code := range statusOf {
		if !knownCodes[code] {
			t.Errorf("statusOf maps %s, which knownCodes lacks", code)
		}
	}
}
