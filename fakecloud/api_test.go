package fakecloud_test

import (
	"flag"
	"fmt"
	"go/types"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
)

var updateAPI = flag.Bool("update-api", false, "rewrite testdata/api.txt from the package's exported API")

// TestExportedAPIUnchanged: the root package's exported API, written out
// with aliases resolved (a type moved to an internal package and aliased
// back reads the same), matches testdata/api.txt, so moving code between
// layers cannot change what users of fakecloud compile against.
func TestExportedAPIUnchanged(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedTypes | packages.NeedName}
	pkgs, err := packages.Load(cfg, "github.com/hcloudlab/hcloud-ccm/fakecloud")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("load fakecloud: %v %v", err, pkgs)
	}
	got := describeAPI(pkgs[0].Types)
	if *updateAPI {
		if err := os.WriteFile("testdata/api.txt", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("testdata/api.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("fakecloud's exported API changed (-testdata/api.txt +now); if that is meant, go test ./fakecloud -run TestExportedAPIUnchanged -update-api:\n%s", d)
	}
}

// describeAPI lists every exported name of pkg with its type written out:
// structs with their exported fields, named types with their exported
// methods. Types are named by package name only, so where a type is
// declared does not show.
func describeAPI(pkg *types.Package) string {
	// The module's own packages go unnamed: a type of fakecloud reads the
	// same wherever in fakecloud it is declared.
	qual := func(p *types.Package) string {
		if strings.HasPrefix(p.Path(), "github.com/hcloudlab/hcloud-ccm/") {
			return ""
		}
		return p.Name()
	}
	// underlying writes a struct with its exported fields only.
	underlying := func(t types.Type) string {
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return types.TypeString(t.Underlying(), qual)
		}
		var fields []string
		for i := range st.NumFields() {
			if f := st.Field(i); f.Exported() {
				fields = append(fields, fmt.Sprintf("%s %s %q", f.Name(), types.TypeString(f.Type(), qual), st.Tag(i)))
			}
		}
		return "struct{" + strings.Join(fields, "; ") + "}"
	}
	var lines []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.TypeName:
			typ := types.Unalias(o.Type())
			lines = append(lines, fmt.Sprintf("type %s %s", name, underlying(typ)))
			// The receiver is written with the name in scope, so an alias
			// reads as the type it names.
			for recvName, recv := range map[string]types.Type{name: typ, "*" + name: types.NewPointer(typ)} {
				ms := types.NewMethodSet(recv)
				for i := range ms.Len() {
					m := ms.At(i).Obj()
					if m.Exported() && ms.At(i).Kind() == types.MethodVal && len(ms.At(i).Index()) == 1 {
						lines = append(lines, fmt.Sprintf("method (%s) %s%s", recvName, m.Name(),
							strings.TrimPrefix(types.TypeString(m.Type(), qual), "func")))
					}
				}
			}
		case *types.Func:
			lines = append(lines, fmt.Sprintf("func %s%s", name, strings.TrimPrefix(types.TypeString(o.Type(), qual), "func")))
		case *types.Const:
			lines = append(lines, fmt.Sprintf("const %s %s = %s", name, types.TypeString(o.Type(), qual), o.Val()))
		case *types.Var:
			lines = append(lines, fmt.Sprintf("var %s %s", name, types.TypeString(o.Type(), qual)))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}
