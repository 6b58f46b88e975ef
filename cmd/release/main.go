// Command release is make release's helper (package build/release):
//
//	release sbom -binary bin/linux-amd64/ccm -version v1.2.3 -out bin/release/hcloud-ccm-v1.2.3.spdx.json
//	release checksums bin/release
//	release push -layout bin/image/oci -ref ghcr.io/hcloudlab/hcloud-ccm:v1.2.3 [-insecure]
//	release registry -addr 127.0.0.1:5000
//
// push uses the credentials of `docker login` (~/.docker/config.json);
// registry serves an in-memory OCI registry, to try a release locally.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/hcloudlab/hcloud-ccm/build/release"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("want a command: sbom, checksums, push or registry")
	}
	fs := flag.NewFlagSet("release "+args[0], flag.ContinueOnError)
	switch args[0] {
	case "sbom":
		binary := fs.String("binary", "", "the Go binary")
		version := fs.String("version", "", "the release's version, vX.Y.Z")
		out := fs.String("out", "", "the SPDX JSON file to write")
		created := fs.String("created", os.Getenv("SOURCE_DATE_EPOCH"), "the document's date in Unix seconds (default $SOURCE_DATE_EPOCH, else now)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *binary == "" || *version == "" || *out == "" {
			return errors.New("sbom needs -binary, -version and -out")
		}
		at := time.Now()
		if *created != "" {
			secs, err := strconv.ParseInt(*created, 10, 64)
			if err != nil {
				return fmt.Errorf("-created %q: want Unix seconds", *created)
			}
			at = time.Unix(secs, 0)
		}
		doc, err := release.SBOM(*binary, *version, at)
		if err != nil {
			return err
		}
		return os.WriteFile(*out, doc, 0o644)
	case "checksums":
		if len(args) != 2 {
			return errors.New("checksums needs the release folder")
		}
		return release.WriteChecksums(args[1])
	case "push":
		layout := fs.String("layout", "bin/image/oci", "the OCI layout make image wrote")
		ref := fs.String("ref", "", "where to push, REGISTRY/REPOSITORY:TAG")
		insecure := fs.Bool("insecure", false, "plain HTTP, for a registry on loopback")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		digest, err := release.PushLayout(ctx, *layout, *ref, *insecure, remote.WithAuthFromKeychain(authn.DefaultKeychain))
		if err != nil {
			return err
		}
		fmt.Printf("%s@%s\n", *ref, digest)
		return nil
	case "registry":
		addr := fs.String("addr", "127.0.0.1:5000", "address to listen on")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		srv := &http.Server{Addr: *addr, Handler: release.Registry(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
		go func() { <-ctx.Done(); _ = srv.Close() }()
		fmt.Printf("an in-memory OCI registry on %s; Ctrl-C ends it\n", *addr)
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
	return fmt.Errorf("unknown command %q: want sbom, checksums, push or registry", args[0])
}
