#!/usr/bin/env bash
# scripts/release.sh (make release) writes a release into bin/release:
#   hcloud-ccm-VERSION-linux-ARCH.tar   the image per platform (docker load)
#   hcloud-ccm-VERSION-oci.tar          the two-platform OCI layout
#   hcloud-ccm-X.Y.Z.tgz                the chart, its default image this release's
#   hcloud-ccm-VERSION.spdx.json        the SBOM (SPDX 2.3) of the linux/amd64 binary (the first of IMAGE_ARCHES)
#   SHA256SUMS                          sha256sum -c checks them
# With PUSH=1 it also pushes the image to REGISTRY/hcloud-ccm:VERSION and
# the chart to oci://REGISTRY/charts/hcloud-ccm:X.Y.Z (INSECURE=1: plain
# HTTP, for a registry on loopback such as `go run ./cmd/release registry`).
# IMAGE_ARCHES=amd64 builds one platform only (make e2e-kind does).
set -o errexit -o nounset -o pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-}
if [[ ! $VERSION =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "make release needs VERSION=vX.Y.Z (a release tag), got '$VERSION'" >&2
	exit 2
fi
REGISTRY=${REGISTRY:-ghcr.io/hcloudlab}
REPO=$REGISTRY/hcloud-ccm
OUT=bin/release
STAGE=bin/release-chart/hcloud-ccm
step() { echo "==> [$((SECONDS))s] $*"; }

rm -rf "$OUT" "$(dirname "$STAGE")"
mkdir -p "$OUT" "$(dirname "$STAGE")"
step "image $REPO:$VERSION (make image)"
make --no-print-directory image IMAGE="$REPO" VERSION="$VERSION" ${IMAGE_ARCHES:+IMAGE_ARCHES="$IMAGE_ARCHES"}
cp bin/image/*.tar "$OUT/"
tar -C bin/image -cf "$OUT/hcloud-ccm-$VERSION-oci.tar" oci

step "chart ${VERSION#v}, image $REPO"
cp -r deploy/chart "$STAGE"
sed -i "s#^  repository: ghcr.io/hcloudlab/hcloud-ccm\$#  repository: $REPO#" "$STAGE/values.yaml"
sed -i "s#^  hcloudlab.dev/image: ghcr.io/hcloudlab/hcloud-ccm\$#  hcloudlab.dev/image: $REPO#" "$STAGE/Chart.yaml"
grep -q "repository: $REPO\$" "$STAGE/values.yaml" && grep -q "hcloudlab.dev/image: $REPO\$" "$STAGE/Chart.yaml" ||
	{ echo "the chart's image lines were not found to set $REPO" >&2; exit 1; }
HELM=$(scripts/helm.sh)
"$HELM" package "$STAGE" --version "${VERSION#v}" --app-version "$VERSION" -d "$OUT" >/dev/null

step "SBOM and checksums"
SBOM_ARCH=${IMAGE_ARCHES:-amd64}
SBOM_ARCH=${SBOM_ARCH%% *}
go run ./cmd/release sbom -binary "bin/linux-$SBOM_ARCH/ccm" -version "$VERSION" -out "$OUT/hcloud-ccm-$VERSION.spdx.json" \
	-created "$(git log -1 --format=%ct 2>/dev/null || date +%s)"
go run ./cmd/release checksums "$OUT"

if [[ -n ${PUSH:-} ]]; then
	insecure=()
	plain=()
	if [[ -n ${INSECURE:-} ]]; then insecure=(-insecure); plain=(--plain-http); fi
	step "push $REPO:$VERSION"
	go run ./cmd/release push -layout bin/image/oci -ref "$REPO:$VERSION" "${insecure[@]}"
	step "push oci://$REGISTRY/charts"
	"$HELM" push "$OUT/hcloud-ccm-${VERSION#v}.tgz" "oci://$REGISTRY/charts" "${plain[@]}"
fi
step "release $VERSION in $OUT"
ls -l "$OUT"
