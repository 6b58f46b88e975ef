package ociimage

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The Dockerfile at the repository root is not built in CI (no container
// engine, no registry), so this keeps it from drifting from what is: the
// Go version go.mod names, the Makefile's build-ccm, and the offline
// image's files, user, entrypoint and labels.
func TestDockerfileMatchesGoModMakefileAndImage(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dockerfile, gomod, makefile := read("Dockerfile"), read("go.mod"), read("Makefile")

	submatch := func(re, s string) string {
		if m := regexp.MustCompile(re).FindStringSubmatch(s); m != nil {
			return m[1]
		}
		return "(none)"
	}
	goVersion := submatch(`(?m)^toolchain go(\S+)$`, gomod)
	fromVersion := submatch(`(?m)^FROM (?:--platform=\S+ )?golang:(\S+) AS build$`, dockerfile)
	if fromVersion != goVersion {
		t.Errorf("the Dockerfile builds FROM golang:%s, go.mod's toolchain is go%s; they must be the same", fromVersion, goVersion)
	}
	if !strings.Contains(makefile, "GO_TOOLCHAIN := $(shell sed -n 's/^toolchain //p' go.mod)") ||
		!strings.Contains(makefile, "GOTOOLCHAIN=$(GO_TOOLCHAIN) CGO_ENABLED=0 GOOS=linux") {
		t.Error("make image no longer builds with go.mod's toolchain (GOTOOLCHAIN=$(GO_TOOLCHAIN)), so its binaries and the Dockerfile's could differ")
	}

	if !regexp.MustCompile(`(?m)^build-ccm:.*\n\t\$\(GO\) build -ldflags "\$\(CCM_LDFLAGS\)" -o \$\(BIN\)/ccm \./cmd/ccm$`).MatchString(makefile) {
		t.Error("the Makefile's build-ccm no longer builds $(BIN)/ccm from ./cmd/ccm with $(CCM_LDFLAGS), which the Dockerfile relies on")
	}
	if !strings.Contains(makefile, "-X $(MODULE)/ccm/version.Version=$(VERSION)") || !strings.HasSuffix(VersionSymbol, "/ccm/version.Version") {
		t.Errorf("the Makefile no longer stamps %s, which the builder checks", VersionSymbol)
	}

	for _, want := range []string{
		"\nRUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH make build-ccm VERSION=$VERSION\n",
		"\nFROM scratch\n",
		"\nCOPY build/ociimage/rootfs/etc/passwd build/ociimage/rootfs/etc/group /etc/\n",
		fmt.Sprintf("\nCOPY --from=build --chown=%d:%d --chmod=0%o /src/bin/ccm %s\n", UID, GID, BinaryMode, BinaryPath),
		fmt.Sprintf("\nUSER %d:%d\n", UID, GID),
		"\nWORKDIR /\n",
		fmt.Sprintf("\nENTRYPOINT [%q]\n", BinaryPath),
		fmt.Sprintf("%s=%q", LabelTitle, Title),
		fmt.Sprintf("%s=%q", LabelDescription, Description),
		fmt.Sprintf("%s=%q", LabelSource, DefaultSource),
		LabelVersion + `="$VERSION"`,
		LabelRevision + `="$REVISION"`,
		LabelCreated + `="$CREATED"`,
		"Not built in CI",
	} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile lacks %q", strings.TrimSpace(want))
		}
	}
	if n := strings.Count(dockerfile, "\nFROM "); n != 2 {
		t.Errorf("the Dockerfile has %d stages, want 2 (build, scratch)", n)
	}
}
