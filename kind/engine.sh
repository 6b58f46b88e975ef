#!/usr/bin/env bash
# Sets up the container engine for make e2e-kind and prints the DOCKER_HOST
# to use. Where `docker run --privileged` works (a laptop, a hosted CI
# runner), that engine is used as it is. Where the VM lacks
# CAP_SYS_RESOURCE (these build machines), a private dockerd of the
# project's own is started: own socket, data and exec directories, and a
# default runtime that runs runc without that capability.
#
#   kind/engine.sh up      # prints export DOCKER_HOST=... KIND_ENGINE=stock or private
#   kind/engine.sh down    # stops the private dockerd it started
set -euo pipefail
cd "$(dirname "$0")/.."

STATE=${KIND_ENGINE_STATE:-/var/lib/hcloud-ccm-kind}
RUN=${KIND_ENGINE_RUN:-/run/hcloud-ccm-kind}
SOCK=$RUN/docker.sock

log() { printf '==> %s\n' "$*" >&2; }

# privileged_works runs a privileged container from a tiny local image.
privileged_works() {
	local host=$1
	DOCKER_HOST=$host docker info >/dev/null 2>&1 || return 1
	probe_image "$host"
	DOCKER_HOST=$host docker run --rm --privileged --network none hcloud-ccm-probe /bin/busybox true >/dev/null 2>&1
}

# probe_image imports a busybox-only image; nothing is pulled.
probe_image() {
	local host=$1
	DOCKER_HOST=$host docker image inspect hcloud-ccm-probe >/dev/null 2>&1 && return
	local bb
	bb=$(command -v busybox || true)
	[[ -n $bb ]] || { apt_install busybox-static; bb=$(command -v busybox); }
	local root
	root=$(mktemp -d)
	mkdir -p "$root/bin"
	cp "$bb" "$root/bin/busybox"
	tar -C "$root" -c . | DOCKER_HOST=$host docker import - hcloud-ccm-probe >/dev/null
	rm -rf "$root"
}

apt_install() {
	log "installing $* (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

up() {
	local default=${DOCKER_HOST:-unix:///var/run/docker.sock}
	if privileged_works "$default"; then
		log "the engine at $default runs privileged containers: using it"
		echo "export DOCKER_HOST=$default KIND_ENGINE=stock"
		return
	fi
	if [[ -S $SOCK ]] && privileged_works "unix://$SOCK"; then
		log "private dockerd already running at $SOCK"
		echo "export DOCKER_HOST=unix://$SOCK KIND_ENGINE=private"
		return
	fi
	command -v dockerd >/dev/null || apt_install docker.io
	mkdir -p "$STATE" "$RUN"
	log "building the runc wrapper that drops CAP_SYS_RESOURCE"
	CGO_ENABLED=0 go build -o "$STATE/runc-wrapper" ./kind/runc-wrapper
	log "starting a private dockerd at $SOCK (log $STATE/dockerd.log)"
	RUNC=$(command -v runc) nohup dockerd --host "unix://$SOCK" --data-root "$STATE/docker" --exec-root "$RUN/exec" \
		--pidfile "$RUN/dockerd.pid" --bridge=none --add-runtime "ccm-runc=$STATE/runc-wrapper" --default-runtime ccm-runc \
		>"$STATE/dockerd.log" 2>&1 &
	for _ in $(seq 1 100); do
		DOCKER_HOST=unix://$SOCK docker info >/dev/null 2>&1 && break
		sleep 0.2
	done
	if ! privileged_works "unix://$SOCK"; then
		log "the private dockerd cannot run privileged containers either; see $STATE/dockerd.log"
		exit 1
	fi
	log "private dockerd runs privileged containers"
	echo "export DOCKER_HOST=unix://$SOCK KIND_ENGINE=private"
}

down() {
	[[ -f $RUN/dockerd.pid ]] || return 0
	local pid
	pid=$(cat "$RUN/dockerd.pid")
	# Networks first: dockerd removes their bridges and rules itself.
	local nets
	nets=$(DOCKER_HOST=unix://$SOCK docker network ls -q --filter type=custom 2>/dev/null || true)
	[[ -z $nets ]] || DOCKER_HOST=unix://$SOCK docker network rm $nets >/dev/null 2>&1 || true
	log "stopping the private dockerd ($pid)"
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	rm -f "$RUN/dockerd.pid"
	# The DOCKER chains stay after dockerd; remove them unless another engine uses them.
	if ! pgrep -x dockerd >/dev/null; then
		local t c
		for t in filter nat; do
			iptables -t "$t" -S | grep -E '^-A [A-Z]+ .*-j DOCKER' | grep -vE '^-A DOCKER' | sed 's/^-A/-D/' |
				while read -r rule; do eval iptables -t "$t" "$rule"; done
			for c in $(iptables -t "$t" -S | awk '/^-N DOCKER/ {print $2}'); do iptables -t "$t" -F "$c"; done
			for c in $(iptables -t "$t" -S | awk '/^-N DOCKER/ {print $2}'); do iptables -t "$t" -X "$c"; done
		done
		log "removed the DOCKER iptables chains"
	fi
}

case ${1:-up} in
up) up ;;
down) down ;;
*)
	echo "usage: $0 up|down" >&2
	exit 2
	;;
esac
