#!/usr/bin/env bash
# Builds the Kubernetes control plane the e2e harness runs (kube-apiserver
# and etcd) from the Go module proxy, into a cache outside the work tree:
#   ${XDG_CACHE_HOME:-~/.cache}/hcloud-ccm/kubernetes-<version>/bin
# What is there already is not built again; the script prints the
# directory last. No prebuilt Kubernetes binary can be downloaded offline,
# but k8s.io/kubernetes builds from its module once each k8s.io staging
# module is replaced by its published v0.x version.
#
#   scripts/build-control-plane.sh                 # kube-apiserver and etcd
#   COMPONENTS="kube-apiserver kube-controller-manager" scripts/build-control-plane.sh
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.36.3}
ETCD_VERSION=${ETCD_VERSION:-v3.6.8}
COMPONENTS=${COMPONENTS:-kube-apiserver}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hcloud-ccm
BIN=$CACHE/kubernetes-$K8S_VERSION/bin
mkdir -p "$BIN"

staging_version="v0.${K8S_VERSION#v1.}"
minor=${K8S_VERSION#v1.}
minor=${minor%%.*}

log() { printf '==> %s\n' "$*" >&2; }
elapsed() { printf '%ds' $(($(date +%s) - $1)); }

# workspace makes a module that requires what is to be built.
workspace() {
	local dir=$1 require=$2
	mkdir -p "$dir"
	printf 'module hcloudlab/controlplane\n\ngo 1.26\n\nrequire %s\n' "$require" >"$dir/go.mod"
}

build_kubernetes() {
	local component=$1
	if [[ -x $BIN/$component ]]; then
		log "$component $K8S_VERSION: cached"
		return
	fi
	local start dir mod
	start=$(date +%s)
	dir=$CACHE/build/kubernetes-$K8S_VERSION
	workspace "$dir" "k8s.io/kubernetes $K8S_VERSION"
	log "$component $K8S_VERSION: resolving modules"
	mod=$(cd "$dir" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
	# Each "k8s.io/x => ./staging/src/k8s.io/x" becomes "k8s.io/x => k8s.io/x v0.N.P".
	sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$mod" | while read -r m; do
		printf 'replace %s => %s %s\n' "$m" "$m" "$staging_version"
	done >>"$dir/go.mod"
	log "$component $K8S_VERSION: building (about 4 minutes on 2 cores for the first component, less for the next)"
	local ldflags="-s -w"
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
	done
	(cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$BIN/$component.tmp" "k8s.io/kubernetes/cmd/$component")
	mv "$BIN/$component.tmp" "$BIN/$component"
	log "$component $K8S_VERSION: built in $(elapsed "$start")"
}

build_etcd() {
	if [[ -x $BIN/etcd ]]; then
		log "etcd $ETCD_VERSION: cached"
		return
	fi
	local start dir
	start=$(date +%s)
	dir=$CACHE/build/etcd-$ETCD_VERSION
	workspace "$dir" "go.etcd.io/etcd/server/v3 $ETCD_VERSION"
	cat >"$dir/main.go" <<'EOF'
// Command etcd is etcd's own main, built from its module.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
	log "etcd $ETCD_VERSION: building (about a minute the first time)"
	(cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" .)
	mv "$BIN/etcd.tmp" "$BIN/etcd"
	log "etcd $ETCD_VERSION: built in $(elapsed "$start")"
}

build_etcd
for c in $COMPONENTS; do
	build_kubernetes "$c"
done
echo "$BIN"
