// Package layout_test holds the repository's walls: how large a file
// may grow, and which package may import which. Each rule fails
// here when crossed, so a boundary is the compiler's and this test's, not
// a reviewer's memory.
package layout_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

const module = "github.com/hcloudlab/hcloud-ccm"

// pkg is what go list says of one package.
type pkg struct {
	path, dir       string
	files           []string // non-test Go files
	imports, tested []string // imports, and those of its tests
	deps            []string
}

// goList runs go list over the module in dir.
func goList(dir string) (map[string]pkg, error) {
	cmd := exec.Command("go", "list", "-deps=false", "-f",
		`{{.ImportPath}}|{{.Dir}}|{{join .GoFiles " "}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}|{{join .Deps " "}}`, "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	pkgs := map[string]pkg{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		if len(f) != 6 {
			return nil, fmt.Errorf("go list line %q", sc.Text())
		}
		pkgs[f[0]] = pkg{path: f[0], dir: f[1], files: strings.Fields(f[2]), imports: strings.Fields(f[3]), tested: strings.Fields(f[4]), deps: strings.Fields(f[5])}
	}
	return pkgs, sc.Err()
}

// go list's answer, asked once for every test of the package.
var (
	listOnce sync.Once
	listPkgs map[string]pkg
	listErr  error
)

// list is the module's packages, as go list says.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	dir := refdoc.Root(t)
	listOnce.Do(func() { listPkgs, listErr = goList(dir) })
	pkgs, err := listPkgs, listErr
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 40 {
		t.Fatalf("go list found %d packages, want the module's", len(pkgs))
	}
	return pkgs
}

// lines counts a file's lines.
func lines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
}

// TestSizes: no Go file, test or not, holds more than 500 lines. A
// package is as large as its one responsibility needs: packages are cut
// by what they are for, not by a size.
func TestSizes(t *testing.T) {
	const maxFile = 500
	root := refdoc.Root(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			if n := lines(t, path); n > maxFile {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s has %d lines, more than %d: split it", rel, n, maxFile)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFakecloudWalls: under fakecloud/, only the admin client and the
// fault sweep import the root package (so the root can use every other
// package); every other package under fakecloud/ has a wall: what of
// fakecloud it may import, and whether it may reach HTTP.
func TestFakecloudWalls(t *testing.T) {
	pkgs := list(t)
	root := module + "/fakecloud"
	// The test kit imports no fakecloud package (so fakecloud's own tests
	// can use it); its tests drive a fakecloud.
	mayImportRoot := []string{root, root + "/adminclient", root + "/faultsweep", root + "/fakecloudtest"}
	for _, p := range pkgs {
		if !strings.HasPrefix(p.path, root+"/") || slices.Contains(mayImportRoot, p.path) {
			continue
		}
		if slices.Contains(p.imports, root) || slices.Contains(p.tested, root) {
			t.Errorf("%s imports %s: only %v may", p.path, root, mayImportRoot[1:])
		}
	}
	// What each package may import of fakecloud's own packages, and
	// whether it may reach net/http or chi.
	type wall struct {
		imports []string
		http    bool
	}
	in := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, root+"/internal/"+n)
		}
		return out
	}
	walls := map[string]wall{
		root + "/internal/apierr":        {},
		root + "/internal/strict":        {imports: in("apierr")},
		root + "/internal/jsontime":      {},
		root + "/internal/labelselector": {},
		root + "/internal/catalog":       {},
		root + "/internal/netaddr":       {},
		root + "/internal/dedicated":     {imports: in("netaddr")},
		root + "/internal/wire":          {imports: in("apierr", "strict"), http: true},
		root + "/internal/statefile":     {},
		root + "/internal/trafficspec":   {},
		root + "/internal/timeseries":    {imports: in("apierr")},
		root + "/internal/event":         {imports: in("jsontime", "dedicated", "netaddr")},
		root + "/internal/listing":       {imports: in("apierr", "labelselector")},
		root + "/internal/realism":       {imports: in("jsontime")},
		root + "/internal/seed":          {imports: in("dedicated", "strict")},
		root + "/internal/scenario":      {imports: in("faults", "event", "jsontime", "strict", "realism"), http: true},
		// The admin API: HTTP over the server's operations, which it knows
		// only as an interface.
		root + "/internal/fidelity":     {},
		root + "/internal/contract":     {},
		root + "/internal/contract/gen": {imports: in("contract")},
		root + "/internal/faults":       {imports: in("jsontime"), http: true},
		root + "/internal/journal":      {imports: in("jsontime")},
		root + "/internal/ratelimit":    {},
		// The nameserver: DNS over UDP and TCP from what a Source gives.
		root + "/internal/dnsserve":       {},
		root + "/lbtraffic":               {imports: in("trafficspec"), http: true},
		root + "/lbtraffic/lbtraffictest": {},
		root + "/robot":                   {imports: in("dedicated"), http: true},
		// The admin API's Go client and the fault sweep drive a fakecloud
		// through the root package, as any user does.
		root + "/adminclient":    {imports: []string{root}, http: true},
		root + "/faultsweep":     {imports: []string{root}, http: true},
		root + "/fakecloudtest":  {http: true},
		root + "/internal/admin": {imports: append(in("apierr", "strict", "wire", "faults", "fidelity", "event", "seed", "scenario", "realism", "ratelimit", "journal", "statefile"), root+"/robot"), http: true},
		// The state layer: the tables, the lock, the actions and their
		// undo, unexported behind typed operations; no HTTP.
		root + "/internal/world": {imports: in("apierr", "strict", "jsontime", "labelselector", "catalog", "netaddr", "dedicated", "trafficspec", "event", "listing", "realism", "timeseries")},
	}
	for _, p := range pkgs {
		if _, ok := walls[p.path]; !ok && strings.HasPrefix(p.path, root+"/") {
			t.Errorf("%s has no wall: add what it may import to the walls", p.path)
		}
	}
	for path, w := range walls {
		p, ok := pkgs[path]
		if !ok {
			t.Errorf("%s is gone: update the walls", path)
			continue
		}
		for _, d := range p.deps {
			if !w.http && (d == "net/http" || strings.HasPrefix(d, "github.com/go-chi/")) {
				t.Errorf("%s depends on %s, which a package without HTTP must not", path, d)
			}
		}
		for _, imp := range p.imports {
			if strings.HasPrefix(imp, module+"/") && !slices.Contains(w.imports, imp) {
				t.Errorf("%s imports %s; it may import only %v of this module", path, imp, w.imports)
			}
		}
	}
}

// TestAnnotationWall: the CCM's reading of Service annotations, which
// the sync, the webhook and doctor share, reads no cloud and no cluster:
// no package of this module, no hcloud-go, no client-go.
func TestAnnotationWall(t *testing.T) {
	path := module + "/ccm/loadbalancer/annotation"
	p, ok := list(t)[path]
	if !ok {
		t.Fatalf("%s is gone: update the wall", path)
	}
	for _, imp := range p.imports {
		if strings.HasPrefix(imp, module+"/") {
			t.Errorf("%s imports %s; it may import no package of this module", path, imp)
		}
	}
	for _, d := range p.deps {
		if strings.HasPrefix(d, "github.com/hetznercloud/") || strings.HasPrefix(d, "k8s.io/client-go") {
			t.Errorf("%s depends on %s: it must read no cloud and no cluster", path, d)
		}
	}
}

// TestTaggedFilesWhereLintLooks: make lint vets and checks the files that
// carry the e2e build tags under e2e/ and kind/ only, so a tagged file
// elsewhere would go unchecked.
func TestTaggedFilesWhereLintLooks(t *testing.T) {
	root := refdoc.Root(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(rel, "e2e/") || strings.HasPrefix(rel, "kind/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(data)) {
			if strings.HasPrefix(line, "package ") {
				break
			}
			if strings.HasPrefix(line, "//go:build") && strings.Contains(line, "e2e") {
				t.Errorf("%s carries the e2e build tags outside e2e/ and kind/, where make lint does not look with them", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEveryPackageSaysWhatItIs: every package with Go files outside its
// tests has a package comment ("Package x ..." or "Command x ...").
func TestEveryPackageSaysWhatItIs(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{len .GoFiles}}|{{.Doc}}`, "./...")
	cmd.Dir = refdoc.Root(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.SplitN(strings.TrimSpace(line), "|", 3)
		if len(f) != 3 || f[1] == "0" {
			continue
		}
		n++
		if f[2] == "" {
			t.Errorf("%s has no package comment: say in one sentence what it is", f[0])
		}
	}
	if n < 40 {
		t.Fatalf("go list found %d packages, want the module's", n)
	}
}
