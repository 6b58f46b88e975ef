package ociimage

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The ways a binary can be unfit for the image, each returned wrapped with
// the platform, the path and the detail.
var (
	// ErrNotELF: the file is not an ELF executable (a script, an archive, a
	// binary for another operating system's format).
	ErrNotELF = errors.New("not an ELF executable")
	// ErrWrongArch: an ELF binary for another machine than the declared one.
	ErrWrongArch = errors.New("built for another architecture")
	// ErrNotStatic: the binary wants a dynamic loader or shared libraries,
	// which an image holding nothing but the binary cannot give it.
	ErrNotStatic = errors.New("not statically linked")
	// ErrNotGoLinux: not a Go binary, or one built for another GOOS or GOARCH.
	ErrNotGoLinux = errors.New("not a Go binary for the declared platform")
	// ErrNoCARoots: the binary does not link golang.org/x/crypto/x509roots/fallback,
	// so in an image without /etc/ssl it could not verify api.hetzner.cloud.
	ErrNoCARoots = errors.New("no compiled-in CA roots")
	// ErrVersionMismatch: the binary was not stamped with the version the
	// image is labelled and tagged with.
	ErrVersionMismatch = errors.New("binary version differs from the image's")
)

// FallbackRootsModule is the module whose package, linked into the binary,
// carries the CA roots the image does not hold as files.
const FallbackRootsModule = "golang.org/x/crypto/x509roots/fallback"

// VersionSymbol is the variable the Makefile stamps with -X at link time;
// the builder reads it back from the binary's build settings.
const VersionSymbol = "github.com/hcloudlab/hcloud-ccm/ccm/version.Version"

// machines maps each GOARCH the image is built for to its ELF machine.
var machines = map[string]elf.Machine{
	"amd64": elf.EM_X86_64,
	"arm64": elf.EM_AARCH64,
}

// checkBinary says whether data can be the only executable of a linux/arch
// image tagged version: a static ELF executable for that machine, a Go
// binary for linux/arch, with the compiled-in CA roots, stamped with version.
//
// The check is not injectable, and the tests do not stub it: they build
// small real Go binaries (testdata/fakeccm), cached after the first run, so
// the code that refuses a binary without CA roots is the code that runs in
// `make image`. A switch to turn it off would be a way to ship an image that
// cannot reach the Hetzner API over TLS.
func checkBinary(arch string, data []byte, version string) error {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotELF, err)
	}
	defer f.Close()
	if want := machines[arch]; f.Class != elf.ELFCLASS64 || f.Machine != want {
		return fmt.Errorf("%w: ELF machine %s (%s), want %s for linux/%s", ErrWrongArch, f.Machine, f.Class, want, arch)
	}
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_INTERP:
			interp, err := io.ReadAll(io.LimitReader(p.Open(), 256))
			if err != nil {
				interp = []byte("(unreadable)")
			}
			return fmt.Errorf("%w: it asks for the dynamic loader %q, which the image does not have; build with CGO_ENABLED=0", ErrNotStatic, strings.TrimRight(string(interp), "\x00"))
		case elf.PT_DYNAMIC:
			return fmt.Errorf("%w: it has a dynamic segment (a PIE or a binary linked against shared libraries); build with CGO_ENABLED=0 and the default -buildmode", ErrNotStatic)
		}
	}
	if f.Section(".dynamic") != nil {
		return fmt.Errorf("%w: it has a .dynamic section; build with CGO_ENABLED=0 and the default -buildmode", ErrNotStatic)
	}
	if f.Type != elf.ET_EXEC {
		return fmt.Errorf("%w: ELF type %s, want %s", ErrNotStatic, f.Type, elf.ET_EXEC)
	}

	bi, err := buildinfo.Read(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: no Go build information: %v", ErrNotGoLinux, err)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if settings["GOOS"] != "linux" || settings["GOARCH"] != arch {
		return fmt.Errorf("%w: built for %s/%s, want linux/%s", ErrNotGoLinux, settings["GOOS"], settings["GOARCH"], arch)
	}
	if !hasDep(bi, FallbackRootsModule) {
		return fmt.Errorf("%w: %s does not link %s (cmd/ccm imports it; was this binary built from cmd/ccm?)", ErrNoCARoots, bi.Path, FallbackRootsModule)
	}
	got, ok := stampedVersion(settings["-ldflags"])
	if !ok {
		return fmt.Errorf("%w: not stamped (no -X %s=... in its -ldflags); build it with make, which passes $(CCM_LDFLAGS)", ErrVersionMismatch, VersionSymbol)
	}
	if got != version {
		return fmt.Errorf("%w: the binary says %s, the image would say %s; build both with the same VERSION", ErrVersionMismatch, got, version)
	}
	return nil
}

func hasDep(bi *buildinfo.BuildInfo, module string) bool {
	for _, d := range bi.Deps {
		if d.Path == module {
			return true
		}
	}
	return false
}

// stampedVersion finds the value the link flags give VersionSymbol, the last
// one if several do (as the linker takes it), in either -X name=value or
// -X=name=value form.
func stampedVersion(ldflags string) (string, bool) {
	fields := strings.Fields(ldflags)
	var version string
	var found bool
	for i, f := range fields {
		var assignment string
		switch {
		case (f == "-X" || f == "--X") && i+1 < len(fields):
			assignment = fields[i+1]
		case strings.HasPrefix(f, "-X="):
			assignment = strings.TrimPrefix(f, "-X=")
		case strings.HasPrefix(f, "--X="):
			assignment = strings.TrimPrefix(f, "--X=")
		default:
			continue
		}
		if v, ok := strings.CutPrefix(assignment, VersionSymbol+"="); ok {
			version, found = v, true
		}
	}
	return version, found
}
