package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Wrong use gets an error that says what is wanted; checksums and sbom
// write their files.
func TestRun(t *testing.T) {
	ctx := t.Context()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "want a command"},
		{[]string{"publish"}, `unknown command "publish"`},
		{[]string{"sbom", "-binary", "x"}, "sbom needs -binary, -version and -out"},
		{[]string{"sbom", "-binary", "x", "-version", "v1", "-out", "y", "-created", "yesterday"}, "want Unix seconds"},
		{[]string{"checksums"}, "checksums needs the release folder"},
		{[]string{"push", "-layout", t.TempDir(), "-ref", "not a reference"}, "image reference"},
	} {
		if err := run(ctx, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("release %q: %v, want %q", tc.args, err, tc.want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.tgz"), []byte("chart"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"checksums", dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "SHA256SUMS")); err != nil {
		t.Error(err)
	}
}
