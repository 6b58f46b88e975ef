package apierr

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestKnownCodes: every code in the OpenAPI description's error tables,
// and every code fakecloud answers with, is one a fault may use.
func TestKnownCodes(t *testing.T) {
	spec, err := os.ReadFile("../../../testdata/openapi/cloud.spec.json")
	if err != nil {
		t.Fatal(err)
	}
	inSpec := regexp.MustCompile("\\| `\\d{3}` \\| `([a-z_]+)` \\|").FindAllSubmatch(spec, -1)
	if len(inSpec) < 50 {
		t.Fatalf("found only %d error table rows in the description", len(inSpec))
	}
	for _, m := range inSpec {
		if !known[string(m[1])] {
			t.Errorf("the description's code %s is not known", m[1])
		}
	}
	var files []string
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 50 {
		t.Fatalf("found %d Go files under fakecloud (%v), want every one", len(files), err)
	}
	used := regexp.MustCompile(`[eE]rrorf\("([a-z_]+)"|[cC]ode[A-Za-z]+ += "([a-z_]+)"`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range used.FindAllSubmatch(src, -1) {
			if code := string(m[1]) + string(m[2]); !known[code] {
				t.Errorf("%s answers with %s, which the known codes lack", f, code)
			}
		}
	}
	for code := range statusOf {
		if !known[code] {
			t.Errorf("statusOf maps %s, which the known codes lack", code)
		}
	}
}
