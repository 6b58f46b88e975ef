package ociimage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// Bad input fails with every problem named and writes nothing.
func TestBadInputWritesNothing(t *testing.T) {
	f := fakes(t)
	script := filepath.Join(t.TempDir(), "ccm.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec sleep infinity\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	interp := withProgramHeader(t, f.amd64, 3 /* PT_INTERP */)
	dynamic := withProgramHeader(t, f.amd64, 2 /* PT_DYNAMIC */)

	for _, tc := range []struct {
		name   string
		change func(*Options)
		want   []error // each must be in the error chain; none listed: any error
	}{
		{"missing binary", func(o *Options) { o.Binaries["amd64"] = filepath.Join(t.TempDir(), "nothing") }, []error{fs.ErrNotExist}},
		{"a script", func(o *Options) { o.Binaries["arm64"] = script }, []error{ErrNotELF}},
		{"arm64 binary declared amd64", func(o *Options) { o.Binaries["amd64"] = f.arm64 }, []error{ErrWrongArch}},
		{"amd64 binary declared arm64", func(o *Options) { o.Binaries["arm64"] = f.amd64 }, []error{ErrWrongArch}},
		{"dynamic loader", func(o *Options) { o.Binaries["amd64"] = interp }, []error{ErrNotStatic}},
		{"dynamic segment", func(o *Options) { o.Binaries["amd64"] = dynamic }, []error{ErrNotStatic}},
		{"no CA roots", func(o *Options) { o.Binaries["amd64"] = f.noRoots }, []error{ErrNoCARoots}},
		{"other version", func(o *Options) { o.Version = "v9.9.9" }, []error{ErrVersionMismatch}},
		{"every problem at once", func(o *Options) { o.Binaries["amd64"] = f.noRoots; o.Binaries["arm64"] = script }, []error{ErrNoCARoots, ErrNotELF}},
		{"unknown platform", func(o *Options) { o.Binaries["riscv64"] = f.amd64 }, nil},
		{"no binaries", func(o *Options) { o.Binaries = nil }, nil},
		{"version not a tag", func(o *Options) { o.Version = "v1.0.0+build" }, nil},
		{"no version", func(o *Options) { o.Version = "" }, nil},
		{"no creation time", func(o *Options) { o.Created = time.Time{} }, nil},
		{"output directory holds other files", func(o *Options) {
			if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(o.OutDir, "notes.txt"), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testOptions(t)
			tc.change(&opts)
			before := listing(t, filepath.Dir(opts.OutDir))
			_, err := Build(opts)
			if err == nil {
				t.Fatal("Build succeeded")
			}
			t.Log(err)
			for _, want := range tc.want {
				if !errors.Is(err, want) {
					t.Errorf("error %q is not %q", err, want)
				}
			}
			if diff := cmp.Diff(before, listing(t, filepath.Dir(opts.OutDir))); diff != "" {
				t.Errorf("Build wrote (-before +after):\n%s", diff)
			}
		})
	}
}

// A build replaces the previous one whole: another version's tarballs go.
func TestBuildReplacesThePreviousBuild(t *testing.T) {
	opts := testOptions(t)
	build(t, opts)
	old := tree(t, opts.OutDir)
	opts.Created = testCreated.Add(time.Hour)
	res := build(t, opts)
	now := tree(t, opts.OutDir)
	if cmp.Equal(old, now) {
		t.Fatal("the second build left the first's files")
	}
	var archives []string
	for rel := range now {
		if filepath.Dir(rel) == "." {
			archives = append(archives, rel)
		}
	}
	slices.Sort(archives)
	if diff := cmp.Diff([]string{filepath.Base(res.Platforms[0].Archive), filepath.Base(res.Platforms[1].Archive)}, archives); diff != "" {
		t.Errorf("top-level files (-want +got):\n%s", diff)
	}
}

// listing is every path under dir, directories (hidden ones too) with a
// trailing slash.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			rel += "/"
		}
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func readIndex(t *testing.T, outDir string) v1.ImageIndex {
	t.Helper()
	top, err := layout.ImageIndexFromPath(filepath.Join(outDir, "oci"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	index, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return index
}

func imageFor(t *testing.T, index v1.ImageIndex, arch string) v1.Image {
	t.Helper()
	m, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == arch {
			img, err := index.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("no linux/%s in the index", arch)
	return nil
}
