package ociimage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// replaceable says whether Build may replace dir: absent, or holding only
// an oci directory and .tar files, what Build writes. Anything else there
// means dir was mistyped (bin, ., a home directory) and is refused.
func replaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	for _, e := range entries {
		if (e.Name() == "oci" && e.IsDir()) || (strings.HasSuffix(e.Name(), ".tar") && e.Type().IsRegular()) {
			continue
		}
		return fmt.Errorf("output directory %s holds %s, which this builder does not write; refusing to replace it", dir, e.Name())
	}
	return nil
}

// write puts the layout and the tarballs in a new directory beside outDir,
// then swaps it in, so that outDir holds one whole build, the last: after
// a failure it is as it was.
func write(outDir string, tag name.Tag, index v1.ImageIndex, platforms []*platformImage, res *Result) (err error) {
	parent := filepath.Dir(filepath.Clean(outDir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(outDir)+"-")
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}

	// The layout's index.json names the one multi-platform index by its
	// tag (skopeo's oci:DIR:TAG) and full reference (containerd's import).
	lp, err := layout.Write(filepath.Join(tmp, "oci"), empty.Index)
	if err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}
	if err := lp.AppendIndex(index, layout.WithAnnotations(map[string]string{
		AnnotationRefName:   tag.TagStr(),
		AnnotationImageName: tag.String(),
	})); err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}

	for i, p := range platforms {
		archive := filepath.Join(tmp, filepath.Base(res.Platforms[i].Archive))
		if err := tarball.WriteToFile(archive, tag, p.image); err != nil {
			return fmt.Errorf("linux/%s docker archive: %w", p.arch, err)
		}
	}

	// go-containerregistry writes the layout's files executable; nothing
	// in it is a program.
	if err := filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chmod(path, 0o644)
	}); err != nil {
		return fmt.Errorf("output file modes: %w", err)
	}

	if err := os.RemoveAll(outDir); err != nil {
		return fmt.Errorf("replace %s: %w", outDir, err)
	}
	if err := os.Rename(tmp, outDir); err != nil {
		return fmt.Errorf("replace %s: %w", outDir, err)
	}
	return nil
}
