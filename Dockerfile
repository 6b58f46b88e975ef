# The CCM's image for operators who build with a container engine and push
# to a registry:
#
#   docker buildx build --platform linux/amd64,linux/arm64 \
#     --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg CREATED=$(git log -1 --format=%cI) \
#     -t ghcr.io/hcloudlab/hcloud-ccm:$(git describe --tags --always --dirty) --push .
#
# It gives the image `make image` builds offline (build/ociimage): the
# static binary at /ccm, /etc/passwd and /etc/group for the nonroot user
# 65532, no shell, no CA bundle (the binary has the roots compiled in, from
# golang.org/x/crypto/x509roots/fallback), the same config and labels.
#
# Not built in CI: CI has no container engine and no registry to pull
# golang or push to. build/ociimage/dockerfile_test.go keeps it in step
# instead: the Go version is go.mod's toolchain (which make image uses too), the build is the Makefile's
# build-ccm, the user, entrypoint and labels are the offline image's.

FROM --platform=$BUILDPLATFORM golang:1.26.8 AS build
WORKDIR /src
# The modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Cross-compiled on the build machine for each target platform, static,
# with the Makefile's link flags (this CCM's version, the Kubernetes
# libraries'). No .git in the context: VERSION comes from the build argument.
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH make build-ccm VERSION=$VERSION

FROM scratch
ARG VERSION=dev
ARG REVISION
ARG CREATED
COPY build/ociimage/rootfs/etc/passwd build/ociimage/rootfs/etc/group /etc/
COPY --from=build --chown=65532:65532 --chmod=0555 /src/bin/ccm /ccm
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/ccm"]
LABEL org.opencontainers.image.title="hcloud-ccm" \
      org.opencontainers.image.description="Kubernetes cloud-controller-manager for Hetzner Cloud" \
      org.opencontainers.image.source="https://github.com/hcloudlab/hcloud-ccm" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION" \
      org.opencontainers.image.created="$CREATED"
