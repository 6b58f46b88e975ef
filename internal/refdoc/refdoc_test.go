package refdoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	got := Table([]string{"a", "b"}, [][]string{{"x|y", "two\nlines"}, {"`k`", ""}})
	want := "| a | b |\n| --- | --- |\n| x\\|y | two lines |\n| `k` |  |\n"
	if got != want {
		t.Errorf("Table:\n%s\nwant:\n%s", got, want)
	}
}

// Check rewrites only under UPDATE_DOCS and only between the markers.
func TestCheckRewritesTheBlock(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := "before\n" + Begin("t") + "old\n" + End("t") + "after\n"
	if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	ft := &fakeT{T: t}
	func() { defer func() { _ = recover() }(); Check(ft, "p.md", "t", "new\n") }()
	if !ft.failed {
		t.Error("a differing block passed")
	}
	t.Setenv(UpdateEnv, "1")
	Check(t, "p.md", "t", "new\n")
	got, _ := os.ReadFile(filepath.Join(dir, "p.md"))
	if want := strings.Replace(page, "old\n", "new\n", 1); string(got) != want {
		t.Errorf("rewritten page:\n%s\nwant:\n%s", got, want)
	}
	t.Setenv(UpdateEnv, "")
	Check(t, "p.md", "t", "new\n") // now equal: passes
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	*testing.T
	failed bool
}

func (f *fakeT) Fatalf(string, ...any) { f.failed = true; panic("stop") }

// WriteBlock replaces only the named block, and refuses a file without it.
func TestWriteBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "B.md")
	if err := os.WriteFile(path, []byte("a\n<!-- x: begin -->\nold\n<!-- x: end -->\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteBlock(path, "x", "new\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\n<!-- x: begin -->\nnew\n<!-- x: end -->\nb\n" {
		t.Errorf("file %q", b)
	}
	if err := WriteBlock(path, "y", "new\n"); err == nil {
		t.Error("no error for a missing block")
	}
	if b, _ := os.ReadFile(path); string(b) != "a\n<!-- x: begin -->\nnew\n<!-- x: end -->\nb\n" {
		t.Errorf("a refused write changed the file: %q", b)
	}
}
