package doctor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// reportedChecks are the check names the package's findings are made
// with, read from its source: every call of ok, warn or fail.
func reportedChecks(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains([]string{"ok", "warn", "fail"}, sel.Sel.Name) || len(call.Args) < 3 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: a finding whose check is not a string literal: the reference cannot list it", f)
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			names[name] = true
			return true
		})
	}
	if len(names) < 10 {
		t.Fatalf("found %d checks in the source, want every one", len(names))
	}
	return names
}

// TestReferenceDoctorChecks: docs/reference/doctor-checks.md lists every
// check doctor reports, and none it does not.
func TestReferenceDoctorChecks(t *testing.T) {
	reported := reportedChecks(t)
	documented := map[string]bool{}
	var rows [][]string
	for _, c := range checks {
		var cells []string
		for _, name := range strings.Fields(c.names) {
			documented[name] = true
			if !reported[name] {
				t.Errorf("check %s is documented but never reported", name)
			}
			cells = append(cells, refdoc.Code(name))
		}
		rows = append(rows, []string{strings.Join(cells, ", "), c.looksAt})
	}
	for name := range reported {
		if !documented[name] {
			t.Errorf("check %s is reported but not documented in checks.go", name)
		}
	}
	refdoc.Check(t, "docs/reference/doctor-checks.md", "doctor-checks", refdoc.Table([]string{"check", "what it looks at"}, rows))
}
