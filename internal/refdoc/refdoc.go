// Package refdoc is the one writer of the blocks the code writes into the
// repository's pages: a reference page's generated block, which a test
// renders from the code's own tables and Check compares with the page (or
// rewrites under `make docs`), and the figures make scale, make faults and
// make peers write into BENCHMARKS.md (WriteBlock).
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
	spliced, err := splice(text, Begin(name), End(name), content)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	if spliced == text {
		return
	}
	if os.Getenv(UpdateEnv) == "" {
		t.Fatalf("%s: the block %s differs from what the code makes; run make docs", page, name)
	}
	if err := os.WriteFile(path, []byte(spliced), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: rewrote the block %s", page, name)
}

// WriteBlock replaces, in the file at path, what stands between the lines
// "<!-- name: begin -->" and "<!-- name: end -->" with content: how make
// scale, make faults and make peers put their figures into BENCHMARKS.md.
// A file without both markers is left as it is, and named in the error.
func WriteBlock(path, name, content string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, err := splice(string(raw), "<!-- "+name+": begin -->\n", "<!-- "+name+": end -->", content)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// splice is text with what stands between begin and end replaced by
// content.
func splice(text, begin, end, content string) (string, error) {
	i := strings.Index(text, begin)
	j := strings.Index(text[max(i, 0):], end)
	if i < 0 || j < len(begin) {
		return "", fmt.Errorf("no block %q ... %q", strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	j += i
	return text[:i+len(begin)] + content + text[j:], nil
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
