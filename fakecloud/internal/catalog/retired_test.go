package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNothingOrdersARetiredType: no seed world, scenario, demo, end-to-end
// test, deployment or documentation example names a server type the
// catalogue marks as retired, since a user who copies it fails against the
// live API. The pages that explain the retirement may name them.
func TestNothingOrdersARetiredType(t *testing.T) {
	c := New()
	var names []string
	for _, st := range c.serverTypes {
		if c.retired[st.ID] {
			names = append(names, st.Name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no retired server type: the test would check nothing")
	}
	retired := regexp.MustCompile(`(?i)\b(` + strings.Join(names, "|") + `)\b`)
	explains := map[string]bool{
		"docs/reference/fakecloud/api-coverage.md": true,
		"docs/reference/fakecloud/deviations.md":   true,
	}
	root := "../../.."
	for _, dir := range []string{"testdata/worlds", "testdata/scenarios", "testdata/parity", "docs", "e2e", "kind", "deploy", "cmd", "scripts", "README.md", "ccm"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			if explains[filepath.ToSlash(rel)] || !regexp.MustCompile(`\.(go|ya?ml|md|json|sh)$`).MatchString(path) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if m := retired.FindString(line); m != "" {
					t.Errorf("%s:%d names the retired server type %s: use a type sold today (cx23, cpx22, ...)", rel, i+1, m)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
