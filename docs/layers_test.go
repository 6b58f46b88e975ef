package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLayersPageTraces: each step of the traced requests on the layers
// page names Go files that exist, and every function a step names (a code
// span that is a Go identifier) is defined in one of the step's files, so
// the page shows the path a request really takes.
func TestLayersPageTraces(t *testing.T) {
	const page = "explanation/fakecloud-layers.md"
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, path, ok := strings.Cut(string(data), "## The path of a request")
	if !ok {
		t.Fatalf("%s has no section on the path of a request", page)
	}
	steps := regexp.MustCompile(`(?m)^\d+\. (?:.*\n)(?:   .*\n)*`).FindAllString(path, -1)
	if len(steps) < 10 {
		t.Fatalf("found %d traced steps on %s, want the three traces", len(steps), page)
	}
	link := regexp.MustCompile(`\]\(([^)]+\.go)\)`)
	ident := regexp.MustCompile("`([A-Za-z][A-Za-z0-9]*)`")
	// A step that names no file goes on in the last one named.
	var files []string
	checked := 0
	for _, step := range steps {
		if m := link.FindAllStringSubmatch(step, -1); m != nil {
			files = nil
			for _, l := range m {
				file := filepath.Join(filepath.Dir(page), l[1])
				src, err := os.ReadFile(file)
				if err != nil {
					t.Errorf("%s: %v", page, err)
					continue
				}
				files = append(files, string(src))
			}
		}
		for _, m := range ident.FindAllStringSubmatch(step, -1) {
			def := regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?` + m[1] + `[\[(]`)
			found := false
			for _, src := range files {
				found = found || def.MatchString(src)
			}
			if !found {
				t.Errorf("%s: step %q names %s, which its files do not define", page, strings.SplitN(step, "\n", 2)[0], m[1])
			}
			checked++
		}
	}
	if checked < 15 {
		t.Errorf("checked %d functions on %s, want every step's", checked, page)
	}
}
