package main

import (
	"flag"
	"io"
	"regexp"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// envNote is the part of a flag's usage that names its variable.
var envNote = regexp.MustCompile(`\s*\(env ([A-Z0-9_]+)(, comma-separated)?(?:; default ([^)]*))?\)`)

// TestReferenceFlags: docs/reference/fakecloud/flags.md lists every flag
// of fakecloud serve, with its variable and default, and every flag has a
// FAKECLOUD_* variable.
func TestReferenceFlags(t *testing.T) {
	var c config
	fs, _ := newFlagSet(&c, func(string) string { return "" }, io.Discard)
	var rows [][]string
	fs.VisitAll(func(f *flag.Flag) {
		m := envNote.FindStringSubmatch(f.Usage)
		if m == nil {
			t.Errorf("--%s: its usage names no variable (env FAKECLOUD_...)", f.Name)
			return
		}
		env, def := refdoc.Code(m[1]), refdoc.Code(f.DefValue)
		if m[2] != "" {
			env += " (comma-separated)"
		}
		if m[3] != "" {
			def = m[3]
		}
		if def == "" {
			def = "none"
		}
		rows = append(rows, []string{refdoc.Code("--" + f.Name), env, def, envNote.ReplaceAllString(f.Usage, "")})
	})
	if len(rows) < 20 {
		t.Fatalf("found %d flags, want every one", len(rows))
	}
	refdoc.Check(t, "docs/reference/fakecloud/flags.md", "fakecloud-flags", refdoc.Table([]string{"flag", "variable", "default", "meaning"}, rows))
}
