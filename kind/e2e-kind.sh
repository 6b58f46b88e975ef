#!/usr/bin/env bash
# make e2e-kind: a real kind cluster whose kubelets run with
# --cloud-provider=external, fakecloud on the host, and the CCM in-cluster
# as make release publishes it (image and chart pushed to a local OCI
# registry, pulled from it), installed with helm over the official chart,
# all offline. Each phase prints its duration.
# Clusters, the private engine, iptables rules and bridges made here are
# removed at the end, also on failure, after the logs are exported to
# $KIND_LOGS (default /tmp/hcloud-ccm-kind-logs). KEEP_CLUSTER=1 keeps
# everything running for poking around.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $EUID -ne 0 ]]; then
	echo "make e2e-kind needs root: it runs a container engine, privileged kind nodes, and load balancers on ports such as 80" >&2
	exit 1
fi

CLUSTER=hcloud-ccm-e2e
KIND_VERSION=${KIND_VERSION:-v0.33.0}
K8S_VERSION=${K8S_VERSION:-v1.36.3}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hcloud-ccm/kind
LOGS=${KIND_LOGS:-/tmp/hcloud-ccm-kind-logs}
mkdir -p "$CACHE"

started=$(date +%s)
phase_start=$started
phase() {
	local now
	now=$(date +%s)
	printf '==> [%ds, +%ds] %s\n' "$((now - started))" "$((now - phase_start))" "$*" >&2
	phase_start=$now
}

phase "container engine"
eval "$(kind/engine.sh up)"

phase "kind $KIND_VERSION"
KIND=$CACHE/kind-$KIND_VERSION
if [[ ! -x $KIND ]]; then
	dir=$(mktemp -d)
	CGO_ENABLED=0 GOBIN=$dir go install "sigs.k8s.io/kind@$KIND_VERSION"
	mv "$dir/kind" "$KIND"
	rm -rf "$dir"
fi

# official_node_image prints the official kindest/node image (or
# $KIND_NODE_IMAGE) when it is present or a registry answers and the pull
# works. It is only tried on a stock engine: the private one exists because
# privileged containers fail here, and the official image's containerd does
# not restrict oom_score_adj as such a machine needs.
official_node_image() {
	local image=${KIND_NODE_IMAGE:-kindest/node:$K8S_VERSION}
	[[ $KIND_ENGINE == stock ]] || return 1
	docker image inspect "$image" >/dev/null 2>&1 && { echo "$image"; return 0; }
	curl -s -o /dev/null --max-time 5 https://registry-1.docker.io/v2/ || return 1
	timeout 600 docker pull -q "$image" >/dev/null 2>&1 || return 1
	echo "$image"
}

phase "node image"
if IMAGE=$(official_node_image); then
	phase "official node image $IMAGE"
else
	IMAGE=$(kind/build-node-image.sh)
fi

phase "helm (built once)"
HELM=$(scripts/helm.sh)

# The CCM arrives as an operator gets a release: make release pushes the
# image and the chart to an OCI registry (here cmd/release's in-memory one
# on the kind network), the nodes pull the image from it and helm installs
# the chart from it. Only the host's platform: the cluster runs no other,
# and a cold arm64 build would add minutes to CI (make image alone builds
# both).
RELEASE=v$(sed -n 's/^version: //p' deploy/chart/Chart.yaml)
ARCH=$(go env GOARCH)

phase "fakecloud and echo images (FROM scratch, static binaries)"
bin=$(mktemp -d)
CGO_ENABLED=0 make -s build-fakecloud
cp bin/fakecloud "$bin/"
CGO_ENABLED=0 go build -o "$bin/echo" ./kind/echo
for c in fakecloud echo; do
	printf 'FROM scratch\nCOPY %s /%s\nENTRYPOINT ["/%s"]\n' "$c" "$c" "$c" >"$bin/Dockerfile.$c"
	DOCKER_BUILDKIT=0 docker build -q -f "$bin/Dockerfile.$c" -t "hcloud-ccm/$c:dev" "$bin" >/dev/null
done

cleanup() {
	local rc=$?
	if [[ $rc -ne 0 ]]; then
		phase "failed: exporting logs to $LOGS"
		rm -rf "$LOGS"
		"$KIND" export logs "$LOGS" --name "$CLUSTER" >/dev/null 2>&1 || true
	fi
	if [[ ${KEEP_CLUSTER:-} == 1 ]]; then
		phase "KEEP_CLUSTER=1: cluster $CLUSTER kept; export DOCKER_HOST=$DOCKER_HOST; $KIND get kubeconfig --name $CLUSTER"
		exit $rc
	fi
	phase "cleaning up"
	"$KIND" delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true
	[[ -n ${registry_pid:-} ]] && kill "$registry_pid" 2>/dev/null || true
	kind/engine.sh down || true
	rm -rf "$bin"
	exit $rc
}
trap cleanup EXIT INT TERM

phase "cluster $CLUSTER (4 nodes, one playing a dedicated server, --cloud-provider=external)"
"$KIND" delete cluster --name "$CLUSTER" >/dev/null 2>&1 || true
"$KIND" create cluster --config kind/cluster.yaml --name "$CLUSTER" --image "$IMAGE" --wait 0s
for i in fakecloud echo; do "$KIND" load docker-image "hcloud-ccm/$i:dev" --name "$CLUSTER" >/dev/null; done
"$KIND" get kubeconfig --name "$CLUSTER" >"$CACHE/kubeconfig"

gateway=$(docker network inspect kind --format '{{range .IPAM.Config}}{{if .Gateway}}{{.Gateway}} {{end}}{{end}}' | tr ' ' '\n' | grep -m1 -E '^[0-9.]+$')
REGISTRY=$gateway:5001
phase "release $RELEASE (linux/$ARCH) pushed to the registry $REGISTRY"
go build -o "$bin/release" ./cmd/release
"$bin/release" registry -addr "$REGISTRY" >"$bin/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 50); do curl -sf "http://$REGISTRY/v2/" >/dev/null && break; sleep 0.1; done
curl -sf "http://$REGISTRY/v2/" >/dev/null || { echo "the registry on $REGISTRY did not start:" >&2; cat "$bin/registry.log" >&2; exit 1; }
for node in $("$KIND" get nodes --name "$CLUSTER"); do
	docker exec "$node" mkdir -p "/etc/containerd/certs.d/$REGISTRY"
	printf 'server = "http://%s"\n\n[host."http://%s"]\n  capabilities = ["pull", "resolve"]\n' "$REGISTRY" "$REGISTRY" |
		docker exec -i "$node" tee "/etc/containerd/certs.d/$REGISTRY/hosts.toml" >/dev/null
done
IMAGE_ARCHES=$ARCH VERSION=$RELEASE PUSH=1 REGISTRY=$REGISTRY INSECURE=1 scripts/release.sh

phase "scenarios"
E2E_KIND_KUBECONFIG=$CACHE/kubeconfig E2E_KIND_CLUSTER=$CLUSTER E2E_KIND_FAKECLOUD=$PWD/bin/fakecloud \
	E2E_KIND_HELM=$HELM E2E_KIND_REGISTRY=$REGISTRY E2E_KIND_RELEASE=$RELEASE \
	go test -tags e2ekind -count=1 -v -timeout 30m ./kind/e2e/
phase "done"
