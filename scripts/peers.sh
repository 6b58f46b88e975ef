#!/usr/bin/env bash
# make peers: the Terraform provider for Hetzner Cloud's own acceptance
# tests, unmodified and with their own defaults, against fakecloud, then
# lego's Hetzner DNS-01 provider (testdata/peers/lego, a module of its
# own at the version its go.mod pins) against fakecloud's API and
# nameserver.
# OpenTofu and the provider come from the Go module proxy at the pinned
# versions and are built into a cache outside the work tree:
#   ${XDG_CACHE_HOME:-~/.cache}/hcloud-ccm/peers
# The provider's test support looks for a .git above its tests, so its
# copy gets one. Prints a line per test and "peers: terraform N/M passed";
# PEERS_WRITE=1 puts the table into BENCHMARKS.md.
#
#   scripts/peers.sh                       # every package
#   PEERS_PACKAGES="./internal/server/..." scripts/peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

TOFU_VERSION=${TOFU_VERSION:-v1.10.6}
PROVIDER_VERSION=${PROVIDER_VERSION:-v1.68.0}
PEERS_PACKAGES=${PEERS_PACKAGES:-./internal/...}
PEERS_TIMEOUT=${PEERS_TIMEOUT:-60m}
PEERS_PARALLEL=${PEERS_PARALLEL:-4}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hcloud-ccm/peers
ROOT=$PWD
mkdir -p "$CACHE/bin" "$CACHE/src"

log() { printf '==> %s\n' "$*" >&2; }
elapsed() { printf '%ds' $(($(date +%s) - $1)); }

# source copies a module's source out of the module cache, writable.
# The provider's releases after v1.56.0 are not in the checksum database
# yet, so its download is not checked against it (GONOSUMDB); the version
# is pinned here all the same.
source_of() {
	local module=$1 version=$2 dir=$3
	if [[ -d $dir ]]; then
		return
	fi
	local from
	from=$(GONOSUMDB=$module GOFLAGS=-mod=mod go mod download -json "$module@$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
	cp -r "$from" "$dir.tmp"
	chmod -R u+w "$dir.tmp"
	mv "$dir.tmp" "$dir"
}

tofu=$CACHE/bin/tofu-$TOFU_VERSION
if [[ -x $tofu ]]; then
	log "OpenTofu $TOFU_VERSION: cached"
else
	start=$(date +%s)
	log "OpenTofu $TOFU_VERSION: building from its module (its go.mod replaces a module, so go install cannot; about 10 minutes the first time)"
	source_of github.com/opentofu/opentofu "$TOFU_VERSION" "$CACHE/src/opentofu-$TOFU_VERSION"
	(cd "$CACHE/src/opentofu-$TOFU_VERSION" && go build -o "$tofu.tmp" ./cmd/tofu)
	mv "$tofu.tmp" "$tofu"
	log "OpenTofu $TOFU_VERSION: built in $(elapsed "$start")"
fi

provider=$CACHE/src/terraform-provider-hcloud-$PROVIDER_VERSION
if [[ ! -d $provider/.git ]]; then
	log "terraform-provider-hcloud $PROVIDER_VERSION: its source"
	source_of github.com/hetznercloud/terraform-provider-hcloud "$PROVIDER_VERSION" "$provider"
	git -C "$provider" init -q
fi

log "fakecloud: building and starting it on a free loopback port"
go build -o bin/fakecloud ./cmd/fakecloud
port=${PEERS_PORT:-18431}
token=peerspeerspeerspeerspeerspeerspeerspeerspeerspeerspeerspeerspeer
# The whole suite sends more than one project's hourly budget (3,600
# requests; the provider's own CI spreads its tests over projects), so the
# rate limit is off here: make test covers it.
bin/fakecloud --listen "127.0.0.1:$port" --token "$token" --rate-limit 0 >"$CACHE/fakecloud.log" 2>&1 &
fc=$!
trap 'kill $fc 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
	if curl -fsS "http://127.0.0.1:$port/_fakecloud/fidelity" >/dev/null 2>&1; then
		break
	fi
	sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/_fakecloud/fidelity" >/dev/null

# Tests that cannot pass on any simulator (cmd/peers lists them apart).
skip=$(go run ./cmd/peers -skip)
start=$(date +%s)
log "the provider's acceptance tests ($PEERS_PACKAGES, $PEERS_PARALLEL at a time, at most $PEERS_TIMEOUT) against fakecloud"
set +o errexit
# fakecloud issues a managed certificate for any domain, so the managed
# certificate test runs under the reserved example.com.
(cd "$provider" && TF_ACC=1 TF_ACC_TERRAFORM_PATH="$tofu" TF_ACC_PROVIDER_NAMESPACE=hetznercloud \
	TEST_CERTIFICATE_DOMAIN="${TEST_CERTIFICATE_DOMAIN:-example.com}" \
	HCLOUD_ENDPOINT="http://127.0.0.1:$port/v1" HCLOUD_TOKEN="$token" CHECKPOINT_DISABLE=1 \
	go test -json -count=1 -p 1 -parallel "$PEERS_PARALLEL" -timeout "$PEERS_TIMEOUT" -skip "$skip" $PEERS_PACKAGES) >"$CACHE/test.json" 2>"$CACHE/build.log"
set -o errexit
log "tests ran in $(elapsed "$start"); the raw results are in $CACHE/test.json"
write=()
if [[ ${PEERS_WRITE:-} == 1 ]]; then
	write=(-write "$ROOT/BENCHMARKS.md" -versions "OpenTofu $TOFU_VERSION and terraform-provider-hcloud $PROVIDER_VERSION" -date "$(date -u +%F)")
fi
start=$(date +%s)
log "lego's Hetzner DNS-01 provider (testdata/peers/lego) against fakecloud's API and its nameserver"
set +o errexit
(cd testdata/peers/lego && go test -count=1 -timeout 5m .)
lego=$?
set -o errexit
log "lego ran in $(elapsed "$start")"
go run ./cmd/peers "${write[@]}" <"$CACHE/test.json"
if [[ $lego -ne 0 ]]; then
	echo "peers: lego's Hetzner DNS-01 provider failed" >&2
	exit 1
fi
echo "peers: lego's Hetzner DNS-01 provider passed"
