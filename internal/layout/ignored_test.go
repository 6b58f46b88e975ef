package layout

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// TestNoSourceIsIgnored: no Go file, Markdown page or test data in the
// work tree is hidden by .gitignore, where it would pass here and be
// missing from every clone (a /parity meant for a binary once hid the
// parity kit's new sources).
func TestNoSourceIsIgnored(t *testing.T) {
	cmd := exec.Command("git", "ls-files", "--others", "--ignored", "--exclude-standard", "--", "*.go", "*.md", "testdata/*")
	cmd.Dir = refdoc.Root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the test needs git and the work tree)", err)
	}
	var hidden []string
	for _, f := range strings.Fields(string(out)) {
		if !strings.HasPrefix(f, "bin/") { // build output, meant to be ignored
			hidden = append(hidden, f)
		}
	}
	if len(hidden) > 0 {
		t.Errorf(".gitignore hides sources no clone will have: %v", hidden)
	}
}
