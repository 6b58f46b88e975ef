#!/usr/bin/env bash
# Builds the kind node image offline: nothing is pulled. Kubernetes, etcd,
# CoreDNS and pause are built from source; the root file system is a
# Debian bookworm debootstrap with systemd, containerd, runc and the CNI
# plugins; kind's own base-image files come from the sigs.k8s.io/kind
# module. The image is cached as a tarball keyed by a hash of the inputs,
# so a second run loads it in seconds.
#
#   DOCKER_HOST=... kind/build-node-image.sh     # prints the image name
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_VERSION=${K8S_VERSION:-v1.36.3}
KIND_VERSION=${KIND_VERSION:-v0.33.0}
COREDNS_VERSION=v1.14.2 # kind/node/coredns/go.mod
PAUSE_TAG=${PAUSE_TAG:-3.10.2}
ETCD_TAG=${ETCD_TAG:-3.6.8-0}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES=jq,systemd,systemd-sysv,dbus,containerd,runc,containernetworking-plugins,iptables,nftables,iproute2,ethtool,socat,conntrack,ebtables,kmod,ca-certificates,util-linux,mount,procps,libseccomp2,pigz,bash,sed,gawk

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hcloud-ccm/kind
WORK=${KIND_WORK:-/var/tmp/hcloud-ccm-kind}
mkdir -p "$CACHE" "$WORK"

log() { printf '==> %s\n' "$*" >&2; }
started=$(date +%s)
phase() { log "[$(($(date +%s) - started))s] $*"; }

hash=$( (cat "$0" kind/node/*.yaml kind/node/coredns/*; echo "$K8S_VERSION $KIND_VERSION $COREDNS_VERSION $PAUSE_TAG $ETCD_TAG $PACKAGES") | sha256sum | cut -c1-12)
IMAGE=hcloud-ccm/kind-node:$K8S_VERSION-$hash
TARBALL=$CACHE/node-$K8S_VERSION-$hash.tar

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
	phase "node image $IMAGE: present"
	echo "$IMAGE"
	exit 0
fi
if [[ -f $TARBALL ]]; then
	phase "node image $IMAGE: loading the cached $TARBALL"
	docker load -i "$TARBALL" >/dev/null
	echo "$IMAGE"
	exit 0
fi

phase "Kubernetes $K8S_VERSION binaries and etcd"
BIN=$(COMPONENTS="kube-apiserver kubectl kubeadm kubelet kube-controller-manager kube-scheduler kube-proxy" \
	K8S_VERSION=$K8S_VERSION scripts/build-control-plane.sh)

phase "CoreDNS $COREDNS_VERSION with the plugins kubeadm's Corefile uses"
coredns=$CACHE/coredns-$COREDNS_VERSION
if [[ ! -x $coredns ]]; then
	(cd kind/node/coredns && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$coredns.tmp" .)
	mv "$coredns.tmp" "$coredns"
fi

phase "pause $PAUSE_TAG (gcc -static of the Kubernetes module's pause.c)"
pause=$CACHE/pause
if [[ ! -x $pause ]]; then
	command -v gcc >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null; }
	src=$(cd "$WORK" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
	gcc -Os -static -o "$pause" "$src/build/pause/linux/pause.c" -DVERSION="$PAUSE_TAG"
fi

phase "root file system: debootstrap $SUITE ($PACKAGES)"
rootfs_tar=$CACHE/rootfs-$SUITE-$(echo "$PACKAGES" | sha256sum | cut -c1-12).tar
if [[ ! -f $rootfs_tar ]]; then
	command -v debootstrap >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
	rm -rf "$WORK/rootfs"
	debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
		{ tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
	tar -C "$WORK/rootfs" -cf "$rootfs_tar.tmp" .
	mv "$rootfs_tar.tmp" "$rootfs_tar"
	rm -rf "$WORK/rootfs"
fi

phase "kind $KIND_VERSION base files, systemd set-up, Kubernetes binaries"
root=$WORK/node-rootfs
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$rootfs_tar"
kind_src=$(cd "$WORK" && go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
files=$kind_src/images/base/files
install -m 0755 "$files"/usr/local/bin/* "$root/usr/local/bin/"
mkdir -p "$root/kind/bin" "$root/etc/containerd" "$root/etc/default" "$root/etc/sysctl.d" "$root/etc/systemd/system/kubelet.service.d"
install -m 0644 "$files"/kind/README.txt "$root/kind/"
install -m 0755 "$files"/kind/bin/* "$root/kind/bin/"
install -m 0644 "$files"/etc/crictl.yaml "$root/etc/"
install -m 0644 "$files"/etc/default/* "$root/etc/default/"
install -m 0644 "$files"/etc/sysctl.d/* "$root/etc/sysctl.d/"
install -m 0644 "$files"/etc/systemd/system/*.service "$files"/etc/systemd/system/*.slice "$root/etc/systemd/system/"
install -m 0644 "$files"/etc/systemd/system/kubelet.service.d/* "$root/etc/systemd/system/kubelet.service.d/"
# This VM's kernel refuses oom_score_adj changes without CAP_SYS_RESOURCE.
# Pods' sandboxes use the pause image built here.
sed -e 's/restrict_oom_score_adj = false/restrict_oom_score_adj = true/' \
	-e "s#sandbox_image = .*#sandbox_image = \"registry.k8s.io/pause:$PAUSE_TAG\"#" \
	"$files/etc/containerd/config.toml" >"$root/etc/containerd/config.toml"
# The base runtime spec kind's containerd config names: containerd's
# default, with kind's product-files hook and without rlimits.
chroot "$root" ctr oci spec | python3 -c '
import json, sys
spec = json.load(sys.stdin)
spec.setdefault("hooks", {}).setdefault("createContainer", []).append({"path": "/kind/bin/mount-product-files.sh"})
spec["process"].pop("rlimits", None)
json.dump(spec, sys.stdout, indent=2)' >"$root/etc/containerd/cri-base.json"
# Debian's binaries are in /usr/bin and /usr/sbin; kind's units expect /usr/local/bin.
ln -sf /usr/bin/containerd "$root/usr/local/bin/containerd"
ln -sf /usr/sbin/runc "$root/usr/local/sbin/runc"
mkdir -p "$root/opt/cni/bin"
cp -a "$root"/usr/lib/cni/* "$root/opt/cni/bin/"
install -m 0755 "$BIN/kubelet" "$BIN/kubeadm" "$BIN/kubectl" "$root/usr/bin/"
rm -f "$root"/lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service
echo "ReadKMsg=no" >>"$root/etc/systemd/journald.conf"
ln -sf /usr/lib/systemd/systemd "$root/sbin/init"
chroot "$root" systemctl enable kubelet.service containerd.service undo-mount-hacks.service >/dev/null 2>&1
chroot "$root" systemctl mask systemd-binfmt.service >/dev/null 2>&1
mkdir -p "$root/etc/kubernetes/manifests" "$root/kind/manifests" "$root/kind/images"
echo "$K8S_VERSION" >"$root/kind/version"
install -m 0644 kind/node/default-storage.yaml "$root/kind/manifests/default-storage.yaml"

phase "component images, tagged as kubeadm $K8S_VERSION expects"
images=$WORK/images
rm -rf "$images"
mkdir -p "$images"
# image NAME TAG ENTRYPOINT FILE... makes an image of static binaries in /usr/local/bin.
image() {
	local name=$1 tag=$2 entry=$3
	shift 3
	local dir
	dir=$(mktemp -d -p "$WORK")
	mkdir -p "$dir/usr/local/bin" "$dir/etc" "$dir/tmp"
	for f in "$@"; do install -m 0755 "$f" "$dir/usr/local/bin/$(basename "$f")"; done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$dir/etc/passwd"
	local ref=registry.k8s.io/$name:$tag
	tar -C "$dir" -c . | docker import --change "ENTRYPOINT [\"$entry\"]" - "$ref" >/dev/null
	docker save "$ref" -o "$images/$(basename "$name").tar"
	rm -rf "$dir"
}
for c in kube-apiserver kube-controller-manager kube-scheduler; do
	image "$c" "$K8S_VERSION" "/usr/local/bin/$c" "$BIN/$c"
done
image etcd "$ETCD_TAG" /usr/local/bin/etcd "$BIN/etcd"
# Installed under the entrypoint's name (the cache's file carries its version).
cp "$coredns" "$WORK/coredns"
image coredns/coredns "$COREDNS_VERSION" /usr/local/bin/coredns "$WORK/coredns"
cp "$pause" "$WORK/pause"
image pause "$PAUSE_TAG" /usr/local/bin/pause "$WORK/pause"
# kube-proxy runs iptables: its image is the node's own root file system.
tar -C "$root" -c . | docker import --change 'ENTRYPOINT ["/usr/local/bin/kube-proxy"]' - "registry.k8s.io/kube-proxy:$K8S_VERSION" >/dev/null
install -m 0755 "$BIN/kube-proxy" "$root/usr/local/bin/kube-proxy"
docker rmi "registry.k8s.io/kube-proxy:$K8S_VERSION" >/dev/null
tar -C "$root" -c . | docker import --change 'ENTRYPOINT ["/usr/local/bin/kube-proxy"]' - "registry.k8s.io/kube-proxy:$K8S_VERSION" >/dev/null
docker save "registry.k8s.io/kube-proxy:$K8S_VERSION" -o "$images/kube-proxy.tar"
cp "$images"/*.tar "$root/kind/images/"

phase "assembling $IMAGE"
base=hcloud-ccm/kind-base:$hash
tar -C "$root" -c . | docker import - "$base" >/dev/null
builder=hcloud-ccm-node-build-$hash
docker rm -f "$builder" >/dev/null 2>&1 || true
docker run -d --name "$builder" --privileged --entrypoint /usr/bin/containerd "$base" >/dev/null
for _ in $(seq 1 100); do docker exec "$builder" ctr version >/dev/null 2>&1 && break; sleep 0.2; done
for t in "$root"/kind/images/*.tar; do
	docker exec "$builder" ctr -n k8s.io images import --all-platforms "/kind/images/$(basename "$t")" >/dev/null
done
docker exec "$builder" rm -rf /kind/images
docker stop "$builder" >/dev/null
docker commit "$builder" "$base-committed" >/dev/null
docker rm "$builder" >/dev/null
# docker commit cannot set STOPSIGNAL; a build from the local image needs no pull.
printf 'FROM %s\nENV container=docker\nSTOPSIGNAL SIGRTMIN+3\nENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]\n' "$base-committed" |
	DOCKER_BUILDKIT=0 docker build -q -t "$IMAGE" - >/dev/null
docker rmi "$base-committed" "$base" >/dev/null
rm -rf "$root" "$images"

phase "saving $TARBALL for the next run"
docker save "$IMAGE" -o "$TARBALL.tmp"
mv "$TARBALL.tmp" "$TARBALL"
phase "node image $IMAGE built"
echo "$IMAGE"
