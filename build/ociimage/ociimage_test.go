package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

var testCreated = time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)

const testRevision = "abcdef0123456789abcdef0123456789abcdef01"

// testOptions build the fakes into a new directory of the test's.
func testOptions(t *testing.T) Options {
	t.Helper()
	f := fakes(t)
	return Options{
		Version:  testVersion,
		Revision: testRevision,
		Created:  testCreated,
		Binaries: map[string]string{"amd64": f.amd64, "arm64": f.arm64},
		OutDir:   filepath.Join(t.TempDir(), "image"),
	}
}

type sharedResult struct {
	opts Options
	res  *Result
}

// buildShared is one build of testOptions for the tests that only read it.
var buildShared = sync.OnceValues(func() (sharedResult, error) {
	f, err := buildFakes()
	if err != nil {
		return sharedResult{}, err
	}
	opts := Options{
		Version:  testVersion,
		Revision: testRevision,
		Created:  testCreated,
		Binaries: map[string]string{"amd64": f.amd64, "arm64": f.arm64},
		OutDir:   filepath.Join(fakesDir, "shared", "image"),
	}
	res, err := Build(opts)
	return sharedResult{opts, res}, err
})

func shared(t *testing.T) (Options, *Result) {
	t.Helper()
	s, err := buildShared()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return s.opts, s.res
}

func wantLabels() map[string]string {
	return map[string]string{
		LabelTitle:       "hcloud-ccm",
		LabelDescription: Description,
		LabelSource:      "https://github.com/hcloudlab/hcloud-ccm",
		LabelVersion:     testVersion,
		LabelRevision:    testRevision,
		LabelCreated:     "2026-11-23T09:30:00Z",
	}
}

func build(t *testing.T, opts Options) *Result {
	t.Helper()
	res, err := Build(opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return res
}

// The layout's index.json names one index by the tag; the index holds
// exactly linux/amd64 and linux/arm64, each annotated with the tag too.
func TestLayoutHoldsOneIndexOfBothPlatforms(t *testing.T) {
	opts, res := shared(t)

	top, err := layout.ImageIndexFromPath(filepath.Join(opts.OutDir, "oci"))
	if err != nil {
		t.Fatal(err)
	}
	topManifest, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(topManifest.Manifests) != 1 {
		t.Fatalf("index.json has %d entries, want the one index", len(topManifest.Manifests))
	}
	entry := topManifest.Manifests[0]
	if entry.MediaType != types.OCIImageIndex || entry.Digest.String() != res.IndexDigest {
		t.Errorf("index.json entry = %s %s, want %s %s", entry.MediaType, entry.Digest, types.OCIImageIndex, res.IndexDigest)
	}
	if diff := cmp.Diff(map[string]string{
		AnnotationRefName:   testVersion,
		AnnotationImageName: "ghcr.io/hcloudlab/hcloud-ccm:" + testVersion,
	}, entry.Annotations); diff != "" {
		t.Errorf("index.json entry annotations (-want +got):\n%s", diff)
	}

	index, err := top.ImageIndex(entry.Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantLabels(), im.Annotations); diff != "" {
		t.Errorf("index annotations (-want +got):\n%s", diff)
	}
	var platforms []string
	for i, m := range im.Manifests {
		platforms = append(platforms, m.Platform.String())
		if m.MediaType != types.OCIManifestSchema1 || m.Annotations[AnnotationRefName] != testVersion {
			t.Errorf("%s: media type %s, ref name %q; want %s, %q", m.Platform, m.MediaType, m.Annotations[AnnotationRefName], types.OCIManifestSchema1, testVersion)
		}
		if m.ArtifactType != "" {
			t.Errorf("%s: artifactType %s, want none: a container image, not an artifact", m.Platform, m.ArtifactType)
		}
		if m.Digest.String() != res.Platforms[i].Digest {
			t.Errorf("%s digest %s, Build said %s", m.Platform, m.Digest, res.Platforms[i].Digest)
		}
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, platforms); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
	for path, modeAndDigest := range tree(t, opts.OutDir) {
		if !strings.HasPrefix(modeAndDigest, "-rw-r--r-- ") {
			t.Errorf("%s: %s, want mode -rw-r--r--", path, modeAndDigest)
		}
	}
}

// Each platform's config runs /ccm as 65532 from /, for its own OS and
// architecture, labelled with the version; the manifest carries the same
// labels as annotations.
func TestConfig(t *testing.T) {
	opts, _ := shared(t)
	index := readIndex(t, opts.OutDir)
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			img := imageFor(t, index, arch)
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(v1.Config{
				User:       "65532:65532",
				Entrypoint: []string{"/ccm"},
				WorkingDir: "/",
				Env:        []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
				Labels:     wantLabels(),
			}, cf.Config); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if cf.OS != "linux" || cf.Architecture != arch || !cf.Created.Equal(testCreated) {
				t.Errorf("config says %s/%s created %s, want linux/%s created %s", cf.OS, cf.Architecture, cf.Created, arch, testCreated)
			}
			if len(cf.History) != 1 || !cf.History[0].Created.Equal(testCreated) {
				t.Errorf("history %+v, want one entry dated %s", cf.History, testCreated)
			}
			m, err := img.Manifest()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantLabels(), m.Annotations); diff != "" {
				t.Errorf("manifest annotations (-want +got):\n%s", diff)
			}
			if m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
				t.Errorf("manifest config %s, layers %+v; want an OCI config and one OCI gzip layer", m.Config.MediaType, m.Layers)
			}
		})
	}
}

type tarEntry struct {
	Name       string
	Type       byte
	Mode       int64
	UID, GID   int
	Uname      string
	Size       int64
	ModTime    time.Time
	Format     tar.Format
	PAXRecords map[string]string
}

// The layer holds /ccm (the binary, 0555, 65532:65532), /etc, /etc/group
// and /etc/passwd (root's), in that order, all dated at the commit; no
// shell, nothing else.
func TestLayerHoldsOnlyTheBinaryAndTheUser(t *testing.T) {
	opts, _ := shared(t)
	index := readIndex(t, opts.OutDir)
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			layers, err := imageFor(t, index, arch).Layers()
			if err != nil || len(layers) != 1 {
				t.Fatalf("layers: %d, %v; want one", len(layers), err)
			}
			rc, err := layers[0].Uncompressed()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			binary, err := os.ReadFile(opts.Binaries[arch])
			if err != nil {
				t.Fatal(err)
			}
			var got []tarEntry
			bodies := map[string][]byte{}
			tr := tar.NewReader(rc)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(tr)
				if err != nil {
					t.Fatal(err)
				}
				bodies[h.Name] = body
				got = append(got, tarEntry{h.Name, h.Typeflag, h.Mode, h.Uid, h.Gid, h.Uname, h.Size, h.ModTime.UTC(), h.Format, h.PAXRecords})
				if strings.Contains(h.Name, "sh") {
					t.Errorf("layer holds %s", h.Name)
				}
			}
			want := []tarEntry{
				{"ccm", tar.TypeReg, 0o555, 65532, 65532, "nonroot", int64(len(binary)), testCreated, tar.FormatUSTAR, nil},
				{"etc/", tar.TypeDir, 0o755, 0, 0, "root", 0, testCreated, tar.FormatUSTAR, nil},
				{"etc/group", tar.TypeReg, 0o644, 0, 0, "root", int64(len(Group)), testCreated, tar.FormatUSTAR, nil},
				{"etc/passwd", tar.TypeReg, 0o644, 0, 0, "root", int64(len(Passwd)), testCreated, tar.FormatUSTAR, nil},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("layer entries (-want +got):\n%s", diff)
			}
			if !bytes.Equal(bodies["ccm"], binary) {
				t.Error("/ccm differs from the binary")
			}
			if diff := cmp.Diff("nonroot:x:65532:65532:nonroot:/:/sbin/nologin\n", string(bodies["etc/passwd"])); diff != "" {
				t.Errorf("/etc/passwd (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff("nonroot:x:65532:\n", string(bodies["etc/group"])); diff != "" {
				t.Errorf("/etc/group (-want +got):\n%s", diff)
			}
		})
	}
}

// Each docker-archive tarball loads back, tagged with the reference, as the
// same image (config) as the layout's.
func TestDockerArchiveLoadsWithTheTag(t *testing.T) {
	opts, res := shared(t)
	index := readIndex(t, opts.OutDir)
	tag, err := name.NewTag(res.Reference, name.StrictValidation)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tag.String(), "ghcr.io/hcloudlab/hcloud-ccm:"+testVersion; got != want {
		t.Errorf("reference %s, want %s", got, want)
	}
	for _, p := range res.Platforms {
		arch := strings.TrimPrefix(p.Platform, "linux/")
		t.Run(arch, func(t *testing.T) {
			if got, want := filepath.Base(p.Archive), "hcloud-ccm-"+testVersion+"-linux-"+arch+".tar"; got != want {
				t.Errorf("archive %s, want %s", got, want)
			}
			manifest, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(p.Archive) })
			if err != nil {
				t.Fatal(err)
			}
			if len(manifest) != 1 || !cmp.Equal(manifest[0].RepoTags, []string{tag.String()}) {
				t.Errorf("manifest.json = %+v, want one image tagged %s", manifest, tag)
			}
			img, err := tarball.ImageFromPath(p.Archive, &tag)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := img.ConfigName()
			if err != nil {
				t.Fatal(err)
			}
			want, err := imageFor(t, index, arch).ConfigName()
			if err != nil {
				t.Fatal(err)
			}
			if loaded != want {
				t.Errorf("archive's config %s, layout's %s", loaded, want)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.Architecture != arch || cf.Config.User != "65532:65532" {
				t.Errorf("loaded config: %s, user %s", cf.Architecture, cf.Config.User)
			}
		})
	}
}

// The same inputs give the same bytes, in the layout and the tarballs; a
// different commit time gives other digests, so the dates are really in.
func TestReproducible(t *testing.T) {
	first, a := shared(t)
	second := testOptions(t)
	b := build(t, second)
	if diff := cmp.Diff(a, b, cmp.Transformer("base", filepath.Base)); diff != "" {
		t.Errorf("results differ (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(tree(t, first.OutDir), tree(t, second.OutDir)); diff != "" {
		t.Errorf("output files differ (-first +second):\n%s", diff)
	}

	later := first
	later.OutDir = filepath.Join(t.TempDir(), "image")
	later.Created = testCreated.Add(time.Second)
	c := build(t, later)
	if c.IndexDigest == a.IndexDigest || c.Platforms[0].Digest == a.Platforms[0].Digest {
		t.Errorf("another commit time gave the same digests: %s", c.IndexDigest)
	}
}

// tree maps each file under dir to its mode and its contents' digest:
// equal trees have equal maps.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		h, _, err := v1.SHA256(bytes.NewReader(data))
		files[rel] = fmt.Sprintf("%s %s", info.Mode(), h)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
