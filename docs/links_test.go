// Package docs_test checks the repository's Markdown: every relative link
// and anchor resolves, and no page cross-references a section by its
// quoted name or speaks of the project's history.
package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, seen from this package's directory.
const root = ".."

// skipDirs are never walked: tool output and other repositories.
var skipDirs = map[string]bool{".git": true, "bin": true, "node_modules": true}

// markdownFiles lists every .md file of the repository, relative to root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skipDirs[d.Name()] {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found %d Markdown files under %s, want the whole repository", len(files), root)
	}
	return files
}

// prose is a page's text without fenced code blocks and code spans, one
// entry a line, with the line number kept.
type line struct {
	n    int
	text string
}

var codeSpan = regexp.MustCompile("`+[^`]*`+")

func prose(text string) []line {
	var out []line
	outsideFences(text, func(n int, l string) { out = append(out, line{n, codeSpan.ReplaceAllString(l, "code")}) })
	return out
}

// outsideFences calls fn with each line of text, numbered from 1, that is
// not inside a fenced code block.
func outsideFences(text string, fn func(n int, l string)) {
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		fn(i+1, l)
	}
}

var (
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	heading    = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
)

// links are the link targets of a page, with their lines.
func links(text string) []line {
	var out []line
	for _, l := range prose(text) {
		for _, m := range inlineLink.FindAllStringSubmatch(l.text, -1) {
			out = append(out, line{l.n, m[1]})
		}
		if m := refLink.FindStringSubmatch(l.text); m != nil {
			out = append(out, line{l.n, m[1]})
		}
	}
	return out
}

// anchors are the fragments a page answers to: GitHub's slugs of its
// headings (a repeated one gets -1, -2, ...) and explicit HTML anchors.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	outsideFences(text, func(_ int, l string) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(l)
		if m == nil {
			return
		}
		s := slug(m[2])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	})
	return out
}

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading: its text without markup, lower
// case, every character but letters, digits, '-', '_' and spaces dropped,
// and spaces as '-'.
func slug(h string) string {
	h = mdLink.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// TestLinks: every relative link of every Markdown file names a file or
// directory that exists, and every #anchor a heading of its page.
func TestLinks(t *testing.T) {
	pages := map[string]string{}
	for _, f := range markdownFiles(t) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		pages[f] = string(data)
	}
	checked := 0
	for f, text := range pages {
		for _, l := range links(text) {
			target := l.text
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				if strings.HasPrefix(path, "/") {
					t.Errorf("%s:%d: %s: use a path relative to the page", f, l.n, target)
					continue
				}
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
				if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
					t.Errorf("%s:%d: %s: no such file or directory %s", f, l.n, target, dest)
					continue
				}
			}
			checked++
			if frag == "" {
				continue
			}
			page, ok := pages[dest]
			if !ok {
				t.Errorf("%s:%d: %s: an anchor into %s, which is not a Markdown page", f, l.n, target, dest)
				continue
			}
			if !anchors(page)[frag] {
				t.Errorf("%s:%d: %s: %s has no heading with the anchor #%s", f, l.n, target, dest, frag)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d relative links, want the documentation's", checked)
	}
}

// The documentation's pages: what a reader reads to use the project, as
// opposed to the changelog and the benchmark report.
func isDocPage(f string) bool {
	switch {
	case f == "CHANGELOG.md", f == "BENCHMARKS.md":
		return false
	case strings.HasPrefix(f, "docs/explanation/") && strings.HasSuffix(f, "-facts.md"):
		return false // research notes on other projects, quoting their history
	}
	return !strings.Contains(f, "/testdata/")
}

var (
	quotedSection = regexp.MustCompile(`(?i)\b(see|in|under|section)\s+"[A-Z][^"]*"`)
	history       = regexp.MustCompile(`(?i)\bissues?\s+#?[0-9]+\b|\bas before\b|\bnot relied on any more\b`)
)

// TestNoQuotedSectionsNorHistory: pages link to sections instead of
// quoting their names, and leave the project's history to CHANGELOG.md.
func TestNoQuotedSectionsNorHistory(t *testing.T) {
	for _, f := range markdownFiles(t) {
		if !isDocPage(f) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range prose(string(data)) {
			if m := quotedSection.FindString(l.text); m != "" {
				t.Errorf("%s:%d: %q: link to the section instead of quoting its name", f, l.n, m)
			}
			if m := history.FindString(l.text); m != "" {
				t.Errorf("%s:%d: %q: the project's history belongs in CHANGELOG.md", f, l.n, m)
			}
		}
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Upgrades and rollbacks":                     "upgrades-and-rollbacks",
		"Parity with the live API (make parity)":     "parity-with-the-live-api-make-parity",
		"`make scale`: 1,000 Nodes":                  "make-scale-1000-nodes",
		"Fault matrix: every call failed every way":  "fault-matrix-every-call-failed-every-way",
		"[Dedicated servers](guide.md) (Robot)":      "dedicated-servers-robot",
		"HCLOUD_LOAD_BALANCERS_* and ROBOT_* values": "hcloud_load_balancers_-and-robot_-values",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
