// Package refdoc keeps the reference pages that the code can write true:
// a test renders a page's generated block from the code's own tables and
// Check compares it with the page, or rewrites it under `make docs`.
package refdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// UpdateEnv is the environment variable that makes Check rewrite pages
// instead of comparing them; `make docs` sets it.
const UpdateEnv = "UPDATE_DOCS"

// Begin and End delimit a generated block named name in a page.
func Begin(name string) string {
	return "<!-- generated: " + name + "; `make docs` rewrites it from the code -->\n"
}

// End closes the block Begin opens.
func End(name string) string { return "<!-- end generated: " + name + " -->\n" }

// Check fails t when the block name of page (a path from the repository's
// root) differs from content; with UPDATE_DOCS=1 it rewrites the block.
func Check(t testing.TB, page, name, content string) {
	t.Helper()
	path := filepath.Join(Root(t), filepath.FromSlash(page))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	text := string(raw)
	begin, end := Begin(name), End(name)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the block %q ... %q", page, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	if text[i+len(begin):j] == content {
		return
	}
	if os.Getenv(UpdateEnv) == "" {
		t.Fatalf("%s: the block %s differs from what the code makes; run make docs", page, name)
	}
	if err := os.WriteFile(path, []byte(text[:i+len(begin)]+content+text[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: rewrote the block %s", page, name)
}

// Root is the repository's root: the nearest directory up from the
// test's that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Table renders a Markdown table; cells are escaped with Cell.
func Table(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range rows {
		if len(r) != len(header) {
			panic(fmt.Sprintf("refdoc: a row of %d cells under %d headers: %q", len(r), len(header), r))
		}
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = Cell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// Cell makes text fit in a table cell: pipes escaped, lines joined.
func Cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, `\|`, "|")
	return strings.ReplaceAll(s, "|", `\|`)
}

// Code is s as a code span, or empty when s is.
func Code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}
