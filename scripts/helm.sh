#!/usr/bin/env bash
# scripts/helm.sh prints the path of a helm binary, building it once with
# `go install` from the Go module proxy into the cache outside the work tree
# (as kind/e2e-kind.sh caches kind). helm is not in go.mod on purpose: it
# requires newer k8s.io modules than the CCM is built with. Progress goes to
# stderr, so HELM=$(scripts/helm.sh) captures only the path.
set -o errexit -o nounset -o pipefail

# HELM_VERSION=v4.3.1 builds Helm 4 (its own cache directory), for the
# upgrade tests that run both.
HELM_VERSION=${HELM_VERSION:-v3.22.0}
MAJOR=${HELM_VERSION%%.*}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hcloud-ccm/helm-$HELM_VERSION
HELM=$CACHE/helm

if [[ ! -x $HELM ]]; then
	echo "building helm $HELM_VERSION into $CACHE (once, about two minutes)" >&2
	mkdir -p "$CACHE"
	tmp=$(mktemp -d "$CACHE/.build.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# With @version, go install ignores go.mod: helm's own requirements
	# decide, and nothing is recorded in this module.
	CGO_ENABLED=0 GOBIN=$tmp GOFLAGS= go install "helm.sh/helm/$MAJOR/cmd/helm@$HELM_VERSION"
	mv "$tmp/helm" "$HELM"
	echo "helm $HELM_VERSION built" >&2
fi
echo "$HELM"
