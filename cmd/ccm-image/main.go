// Command ccm-image builds the CCM's container image offline from static
// binaries (see package ociimage); `make image` runs it after building them.
//
//	ccm-image -version v0.1.0 -revision $(git rev-parse HEAD) -created $(git log -1 --format=%ct) \
//		-binary linux/amd64=bin/linux-amd64/ccm -binary linux/arm64=bin/linux-arm64/ccm -out bin/image
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/build/ociimage"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ccm-image:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ccm-image", flag.ContinueOnError)
	opts := ociimage.Options{Binaries: map[string]string{}}
	fs.StringVar(&opts.Repository, "repository", ociimage.DefaultRepository, "image name without the tag")
	fs.StringVar(&opts.Version, "version", "", "the version the binaries are stamped with: the image's tag and version label")
	fs.StringVar(&opts.Revision, "revision", "", "the commit, for the revision label")
	created := fs.String("created", os.Getenv("SOURCE_DATE_EPOCH"), "the commit's time in Unix seconds, the image's date (default $SOURCE_DATE_EPOCH)")
	fs.StringVar(&opts.Source, "source", ociimage.DefaultSource, "the source repository's URL, for the source label")
	fs.StringVar(&opts.OutDir, "out", "bin/image", "output directory, replaced as a whole: OUT/oci and OUT/NAME-VERSION-linux-ARCH.tar")
	fs.Func("binary", "linux/ARCH=PATH, once per platform", func(s string) error {
		platform, path, ok := strings.Cut(s, "=")
		arch, isLinux := strings.CutPrefix(platform, "linux/")
		if !ok || !isLinux || arch == "" || path == "" {
			return fmt.Errorf("want linux/ARCH=PATH, got %q", s)
		}
		if _, dup := opts.Binaries[arch]; dup {
			return fmt.Errorf("linux/%s given twice", arch)
		}
		opts.Binaries[arch] = path
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *created != "" {
		secs, err := strconv.ParseInt(*created, 10, 64)
		if err != nil {
			return fmt.Errorf("-created %q: want Unix seconds: %w", *created, err)
		}
		opts.Created = time.Unix(secs, 0)
	}

	res, err := ociimage.Build(opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "image        %s\n", res.Reference)
	fmt.Fprintf(out, "index        %s  %s (skopeo copy --all oci:%s:%s docker://...)\n", res.IndexDigest, res.Layout, res.Layout, opts.Version)
	for _, p := range res.Platforms {
		fmt.Fprintf(out, "%-12s %s  %.1f MB compressed, binary %.1f MB  %s\n",
			p.Platform, p.Digest, float64(p.CompressedSize)/1e6, float64(p.BinarySize)/1e6, p.Archive)
	}
	return nil
}
