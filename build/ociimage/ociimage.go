// Package ociimage builds the CCM's container image without a container
// engine or a registry: from one static binary per platform it writes an OCI
// image layout holding one multi-platform index, and a docker-archive tarball
// per platform for `docker load` and `kind load image-archive`.
//
// The image is the binary at /ccm and /etc/passwd and /etc/group naming the
// nonroot user 65532 it runs as; no shell, no CA bundle (the binary carries
// its roots, see ErrNoCARoots). Every date in it is the commit's, so the
// same binaries, version and commit give byte-identical digests.
package ociimage

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/sync/errgroup"
)

// The image's fixed descriptions, as OCI labels and annotations. No
// org.opencontainers.image.licenses: the repository declares no licence.
const (
	Title       = "hcloud-ccm"
	Description = "Kubernetes cloud-controller-manager for Hetzner Cloud"
	// DefaultSource is where the source lives, for Options.Source.
	DefaultSource = "https://github.com/hcloudlab/hcloud-ccm"
	// DefaultRepository is the image's name without a tag, for Options.Repository.
	DefaultRepository = "ghcr.io/hcloudlab/hcloud-ccm"
)

// The OCI annotation and label keys the image carries
// (https://github.com/opencontainers/image-spec/blob/main/annotations.md).
const (
	LabelTitle       = "org.opencontainers.image.title"
	LabelDescription = "org.opencontainers.image.description"
	LabelSource      = "org.opencontainers.image.source"
	LabelVersion     = "org.opencontainers.image.version"
	LabelRevision    = "org.opencontainers.image.revision"
	LabelCreated     = "org.opencontainers.image.created"
	// AnnotationRefName names the index in the layout's index.json and each
	// platform's manifest in the index: the tag, as skopeo's
	// oci:DIR:TAG and crane expect.
	AnnotationRefName = "org.opencontainers.image.ref.name"
	// AnnotationImageName is the full reference, which containerd's import
	// of an OCI layout uses as the image name.
	AnnotationImageName = "io.containerd.image.name"
)

// Env is the image's whole environment: the search path container runtimes
// default to, which a Dockerfile FROM scratch also gets. Nothing secret
// belongs here; the CCM's token comes from the pod spec.
var Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}

// Options are the inputs of Build; the same Options over the same binaries
// give the same digests.
type Options struct {
	// Repository is the image name without a tag, DefaultRepository if empty.
	Repository string
	// Version tags the image and labels it; every binary must be stamped
	// with it (see VersionSymbol).
	Version string
	// Revision is the commit the binaries were built from, for the
	// org.opencontainers.image.revision label; left out if empty.
	Revision string
	// Created is the commit's time (SOURCE_DATE_EPOCH), the date of the
	// image, its history and every file in the layer; never the build's.
	Created time.Time
	// Source is the source repository's URL, DefaultSource if empty.
	Source string
	// Binaries maps each linux GOARCH (amd64, arm64) to its CCM binary.
	Binaries map[string]string
	// OutDir receives the layout (OutDir/oci) and the tarballs. It is
	// replaced as a whole, so it must be absent or hold only what Build
	// writes there.
	OutDir string
}

// Result says what Build wrote.
type Result struct {
	// Reference is the tagged image name, such as ghcr.io/hcloudlab/hcloud-ccm:v0.1.0.
	Reference string
	// Layout is the OCI image layout directory, OutDir/oci.
	Layout string
	// IndexDigest is the multi-platform index's digest.
	IndexDigest string
	// Platforms are sorted by name: linux/amd64 before linux/arm64.
	Platforms []PlatformResult
}

// PlatformResult describes one platform's image.
type PlatformResult struct {
	// Platform is linux/GOARCH.
	Platform string
	// Digest is the platform manifest's digest, as a registry reports it.
	Digest string
	// CompressedSize is the config and the compressed layer in bytes: what
	// a node pulls.
	CompressedSize int64
	// BinarySize is the binary's size in bytes.
	BinarySize int64
	// Archive is the docker-archive tarball, OutDir/NAME-VERSION-linux-GOARCH.tar.
	Archive string
}

// platformImage is one platform's binary, checked, then its image.
type platformImage struct {
	arch   string
	path   string
	binary []byte
	image  v1.Image
}

// Build checks every binary, then writes the layout and the tarballs into
// OutDir. Any error in the options or a binary is reported, all of them at
// once, before anything is written.
func Build(opts Options) (*Result, error) {
	if opts.Repository == "" {
		opts.Repository = DefaultRepository
	}
	if opts.Source == "" {
		opts.Source = DefaultSource
	}
	opts.Created = opts.Created.UTC().Truncate(time.Second)

	tag, platforms, err := check(opts)
	if err != nil {
		return nil, err
	}

	labels := map[string]string{
		LabelTitle:       Title,
		LabelDescription: Description,
		LabelSource:      opts.Source,
		LabelVersion:     opts.Version,
		LabelCreated:     opts.Created.Format(time.RFC3339),
	}
	if opts.Revision != "" {
		labels[LabelRevision] = opts.Revision
	}

	// Compressing the layers is the slow part: one platform a core.
	var g errgroup.Group
	for _, p := range platforms {
		g.Go(func() (err error) {
			p.image, err = platformImageOf(p.arch, p.binary, opts.Created, labels)
			if err != nil {
				return fmt.Errorf("linux/%s image: %w", p.arch, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		index = mutate.AppendManifests(index, mutate.IndexAddendum{
			Add: containerImage{p.image},
			Descriptor: v1.Descriptor{
				Platform:    &v1.Platform{OS: "linux", Architecture: p.arch},
				Annotations: map[string]string{AnnotationRefName: tag.TagStr()},
			},
		})
	}
	index = mutate.Annotations(index, labels).(v1.ImageIndex)

	res := &Result{Reference: tag.String(), Layout: filepath.Join(opts.OutDir, "oci")}
	digest, err := index.Digest()
	if err != nil {
		return nil, fmt.Errorf("index digest: %w", err)
	}
	res.IndexDigest = digest.String()
	prefix := path.Base(tag.RepositoryStr())
	for _, p := range platforms {
		pr := PlatformResult{
			Platform:   "linux/" + p.arch,
			BinarySize: int64(len(p.binary)),
			Archive:    filepath.Join(opts.OutDir, fmt.Sprintf("%s-%s-linux-%s.tar", prefix, opts.Version, p.arch)),
		}
		d, err := p.image.Digest()
		if err != nil {
			return nil, fmt.Errorf("linux/%s digest: %w", p.arch, err)
		}
		pr.Digest = d.String()
		m, err := p.image.Manifest()
		if err != nil {
			return nil, fmt.Errorf("linux/%s manifest: %w", p.arch, err)
		}
		pr.CompressedSize = m.Config.Size
		for _, l := range m.Layers {
			pr.CompressedSize += l.Size
		}
		res.Platforms = append(res.Platforms, pr)
	}

	if err := write(opts.OutDir, tag, index, platforms, res); err != nil {
		return nil, err
	}
	return res, nil
}

// check validates the options and reads and checks every binary, reporting
// every problem found.
func check(opts Options) (name.Tag, []*platformImage, error) {
	var errs []error
	tag, err := name.NewTag(opts.Repository+":"+opts.Version, name.StrictValidation)
	if opts.Version == "" {
		errs = append(errs, errors.New("no version: the image is tagged and labelled with it"))
	} else if err != nil {
		errs = append(errs, fmt.Errorf("version %q with repository %q is not an image reference: %w", opts.Version, opts.Repository, err))
	}
	if opts.Created.IsZero() {
		errs = append(errs, errors.New("no creation time: give the commit's (SOURCE_DATE_EPOCH), so that builds are reproducible"))
	}
	if opts.OutDir == "" {
		errs = append(errs, errors.New("no output directory"))
	} else if err := replaceable(opts.OutDir); err != nil {
		errs = append(errs, err)
	}
	if len(opts.Binaries) == 0 {
		errs = append(errs, errors.New("no binaries: give one per platform, linux/amd64 and linux/arm64"))
	}

	var platforms []*platformImage
	for _, arch := range slices.Sorted(maps.Keys(opts.Binaries)) {
		p := &platformImage{arch: arch, path: opts.Binaries[arch]}
		if _, ok := machines[arch]; !ok {
			errs = append(errs, fmt.Errorf("linux/%s: not a platform this image is built for (%v)", arch, slices.Sorted(maps.Keys(machines))))
			continue
		}
		p.binary, err = os.ReadFile(p.path)
		if err == nil {
			err = checkBinary(arch, p.binary, opts.Version)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("linux/%s binary %s: %w", arch, p.path, err))
			continue
		}
		platforms = append(platforms, p)
	}
	return tag, platforms, errors.Join(errs...)
}

// platformImageOf is the image for one platform: the layer, then the config.
func platformImageOf(arch string, binary []byte, created time.Time, labels map[string]string) (v1.Image, error) {
	layer, err := rootfsLayer(binary, created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "hcloud-ccm build/ociimage: /ccm, /etc/passwd, /etc/group",
		},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS = "linux"
	cf.Architecture = arch
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint: []string{BinaryPath},
		WorkingDir: "/",
		Env:        slices.Clone(Env),
		Labels:     maps.Clone(labels),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, labels).(v1.Image), nil
}

// containerImage is an image that its index entry does not call an
// artifact: go-containerregistry gives an image manifest's descriptor the
// config's media type as artifactType, which OCI 1.1 allows, but container
// images from docker buildx and most registries' UIs have none, so neither
// do these.
type containerImage struct{ v1.Image }

// ArtifactType is the empty string: not an artifact.
func (containerImage) ArtifactType() (string, error) { return "", nil }
