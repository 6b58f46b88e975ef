package ociimage

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The version the fake binaries are stamped with, as the Makefile stamps the CCM.
const testVersion = "v1.2.3-4-gabcdef0"

// fakeBinaries are small Go programs built like the CCM (static, stamped,
// with the fallback roots) for the builder to check and pack; building the
// real CCM for two platforms would take minutes.
type fakeBinaries struct {
	amd64, arm64 string // testdata/fakeccm, fit for the image
	noRoots      string // testdata/noroots for amd64: static, stamped, but without the CA roots
}

var fakesDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ociimage-fakes-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakesDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildFakes builds the fakes once per test binary: under a second with a
// warm build cache (the first run compiles the standard library for arm64,
// as `make image` also does).
var buildFakes = sync.OnceValues(func() (fakeBinaries, error) {
	f := fakeBinaries{
		amd64:   filepath.Join(fakesDir, "amd64", "ccm"),
		arm64:   filepath.Join(fakesDir, "arm64", "ccm"),
		noRoots: filepath.Join(fakesDir, "noroots", "ccm"),
	}
	for _, b := range []struct{ arch, pkg, out string }{
		{"amd64", "./testdata/fakeccm", f.amd64},
		{"arm64", "./testdata/fakeccm", f.arm64},
		{"amd64", "./testdata/noroots", f.noRoots},
	} {
		cmd := exec.Command("go", "build", "-ldflags", "-s -w -X "+VersionSymbol+"="+testVersion, "-o", b.out, b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+b.arch)
		if out, err := cmd.CombinedOutput(); err != nil {
			return f, fmt.Errorf("go build %s for %s: %v\n%s", b.pkg, b.arch, err, out)
		}
	}
	return f, nil
})

func fakes(t *testing.T) fakeBinaries {
	t.Helper()
	f, err := buildFakes()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// withProgramHeader copies the binary at src into the test's directory with
// its empty GNU_STACK program header retyped as typ: PT_INTERP or PT_DYNAMIC
// make it read as a dynamically linked binary, which is all the check looks
// at (a real one, -buildmode=pie, costs a second standard library build).
func withProgramHeader(t *testing.T, src string, typ elf.ProgType) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	phoff, phentsize, phnum := le.Uint64(data[0x20:]), uint64(le.Uint16(data[0x36:])), uint64(le.Uint16(data[0x38:]))
	patched := false
	for i := range phnum {
		at := phoff + i*phentsize
		if elf.ProgType(le.Uint32(data[at:])) == elf.PT_GNU_STACK {
			le.PutUint32(data[at:], uint32(typ))
			patched = true
		}
	}
	if !patched {
		t.Fatalf("%s has no GNU_STACK program header to retype", src)
	}
	out := filepath.Join(t.TempDir(), "ccm-"+typ.String())
	if err := os.WriteFile(out, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}
