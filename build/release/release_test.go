package release

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// The index in a layout as make image writes it reaches a registry whole:
// pulled back, it has the same digest and every platform's image.
func TestPushLayout(t *testing.T) {
	idx, err := random.Index(256, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.AppendIndex(idx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Registry(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	ref := strings.TrimPrefix(srv.URL, "http://") + "/hcloudlab/hcloud-ccm:v1.2.3"
	got, err := PushLayout(t.Context(), dir, ref, true)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := idx.Digest()
	if got != want {
		t.Errorf("pushed %s, want the layout's index %s", got, want)
	}
	parsed, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := remote.Index(parsed)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := pulled.Digest(); d != want {
		t.Errorf("the registry serves %s under %s, want %s", d, ref, want)
	}
	m, _ := pulled.IndexManifest()
	for _, desc := range m.Manifests {
		if _, err := pulled.Image(desc.Digest); err != nil {
			t.Errorf("image %s of the index: %v", desc.Digest, err)
		}
	}
	// A layout with more than the one index is not what make image wrote.
	if err := lp.AppendIndex(idx); err != nil {
		t.Fatal(err)
	}
	if _, err := PushLayout(t.Context(), dir, ref, true); err == nil || !strings.Contains(err.Error(), "holds 2 entries") {
		t.Errorf("a layout of two entries: %v", err)
	}
}

// The SBOM of a Go binary lists its modules with versions and package
// URLs (a replaced one as its replacement), the toolchain, and the main
// module at the release's version.
func TestSBOM(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/hcloudlab/hcloud-ccm", Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: "github.com/google/go-containerregistry", Version: "v0.22.1", Sum: "h1:abc="},
			{Path: "example.com/old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1", Sum: "h1:def="}},
		}}
	data, err := sbomOf(info, "v1.2.3", time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var doc spdxDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SPDXVersion != "SPDX-2.3" || doc.CreationInfo.Created != "2026-11-26T12:00:00Z" || doc.Packages[0].VersionInfo != "v1.2.3" {
		t.Errorf("document %s created %s, main version %s", doc.SPDXVersion, doc.CreationInfo.Created, doc.Packages[0].VersionInfo)
	}
	var purls []string
	for _, p := range doc.Packages {
		purls = append(purls, p.ExternalRefs[0].Locator)
	}
	want := []string{"pkg:golang/github.com/hcloudlab/hcloud-ccm@v1.2.3", "pkg:golang/golang.org/toolchain@go1.26.8",
		"pkg:golang/github.com/google/go-containerregistry@v0.22.1", "pkg:golang/example.com/fork@v1.0.1"}
	if diff := cmp.Diff(want, purls); diff != "" {
		t.Errorf("package URLs (-want +got):\n%s", diff)
	}
	if doc.Packages[2].Comment != "go.sum h1:abc=" {
		t.Errorf("checksum comment %q", doc.Packages[2].Comment)
	}
	if len(doc.Relationships) != len(doc.Packages) || doc.Relationships[0].Type != "DESCRIBES" { // then one DEPENDS_ON per other package
		t.Errorf("relationships %+v for %d packages", doc.Relationships, len(doc.Packages))
	}
	// A real binary: the release command, built here, holds this module's
	// dependencies.
	bin := filepath.Join(t.TempDir(), "release")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "github.com/hcloudlab/hcloud-ccm/cmd/release").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if data, err := SBOM(bin, "v1", time.Now()); err != nil || !strings.Contains(string(data), "pkg:golang/github.com/google/go-containerregistry@v0.22.1") {
		t.Errorf("SBOM of the release command: %v, want go-containerregistry v0.22.1 in it", err)
	}
	if _, err := SBOM(filepath.Join(t.TempDir(), "none"), "v1", time.Now()); err == nil {
		t.Error("an SBOM of a missing file")
	}
}

// SHA256SUMS has a sha256sum line per file, sorted, and not itself.
func TestWriteChecksums(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"b.tgz": "chart", "a.tar": "image", ChecksumFile: "stale"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteChecksums(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, ChecksumFile))
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	if want := sum("image") + "  a.tar\n" + sum("chart") + "  b.tgz\n"; string(got) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", got, want)
	}
}
