# Thin targets; each line says what it does. `make help` lists them.
GO ?= go
FUZZTIME ?= 30s
BIN := bin
MODULE := github.com/hcloudlab/hcloud-ccm

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: build-fakecloud build-ccm ## build bin/fakecloud and bin/ccm

build-fakecloud: ## build bin/fakecloud
	$(GO) build -o $(BIN)/fakecloud ./cmd/fakecloud

# This CCM's version, from git describe (a clone without tags gives the
# commit, with -dirty for uncommitted changes); VERSION=v1.0.0 overrides it.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The Kubernetes libraries' version, so the upstream code's version checks
# see v1.36.3 rather than v0.0.0-master, and this CCM's own version for
# --version, the User-Agent and the start log.
CCM_LDFLAGS := -s -w -X k8s.io/component-base/version.gitVersion=v1.36.3 -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=36 \
	-X $(MODULE)/ccm/version.Version=$(VERSION)

build-ccm: ## build bin/ccm, the cloud-controller-manager (about a minute the first time)
	$(GO) build -ldflags "$(CCM_LDFLAGS)" -o $(BIN)/ccm ./cmd/ccm

# make image: the image's name, and the commit it is built from and that
# commit's time, which dates everything in the image (reproducible builds).
IMAGE ?= ghcr.io/hcloudlab/hcloud-ccm
IMAGE_ARCHES := amd64 arm64
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
# The image's binaries are built with go.mod's toolchain exactly, as the
# Dockerfile's are (the go command fetches it from the module proxy when
# the installed one differs).
GO_TOOLCHAIN := $(shell sed -n 's/^toolchain //p' go.mod)

# One VERSION for the binaries and the tag (git describe runs once).
image: VERSION := $(VERSION)
image: ## build the image offline: bin/image/oci (OCI layout, linux/amd64 and linux/arm64) and bin/image/hcloud-ccm-VERSION-linux-ARCH.tar (docker load, kind load image-archive), tagged ghcr.io/hcloudlab/hcloud-ccm:VERSION (IMAGE= renames)
	@for arch in $(IMAGE_ARCHES); do \
		echo "==> linux/$$arch: $(BIN)/linux-$$arch/ccm"; start=$$(date +%s); \
		GOTOOLCHAIN=$(GO_TOOLCHAIN) CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -ldflags "$(CCM_LDFLAGS)" -o $(BIN)/linux-$$arch/ccm ./cmd/ccm || exit 1; \
		echo "    $$(($$(date +%s) - start)) s, $$(stat -c %s $(BIN)/linux-$$arch/ccm) bytes"; \
	done
	@echo "==> image $(IMAGE):$(VERSION) in $(BIN)/image"
	@$(GO) run ./cmd/ccm-image -repository $(IMAGE) -version $(VERSION) -revision "$(REVISION)" -created $(SOURCE_DATE_EPOCH) \
		$(foreach a,$(IMAGE_ARCHES),-binary linux/$(a)=$(BIN)/linux-$(a)/ccm) -out $(BIN)/image
.PHONY: image

release: ## VERSION=vX.Y.Z: the image (both platforms), the chart, an SBOM and SHA256SUMS in bin/release; PUSH=1 pushes image and chart to REGISTRY (ghcr.io/hcloudlab; INSECURE=1 for plain HTTP)
	@VERSION=$(VERSION) scripts/release.sh
.PHONY: release

# make test is the check to run often: without the race detector, whose
# build of every dependency is what makes a first run slow, and without
# the Helm chart's lint, which builds two Helms the first time. make race,
# make chart and make faults-quick are the slower checks; CI runs them all.
test: lint ## lint, vet and every unit and contract test, the generated reference pages and every Markdown link (about 3 minutes warm); CI also runs make race, make chart and make faults-quick
	$(GO) test -count=1 -skip '^TestFaultMatrix$$' ./...

race: ## every unit and contract test again with the race detector, but those it slows six-fold or that race on their own (the API economy simulation, the upstream service controller, the fault matrix); CI runs it
	$(GO) test -race -count=1 ./...

faults-quick: ## the fault matrix's subset (about a minute and a half): each CCM operation with its first call failed with 500, after-commit and action-error; CI runs it
	$(GO) test -count=1 -run '^TestFaultMatrix$$' ./ccm/

# actionlint checks .github/workflows; run by version, like helm, so its
# requirements stay out of go.mod.
ACTIONLINT := github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

lint: ## go vet, staticcheck and goimports (pinned in go.mod as tools) over every package, and again with the e2e tags where files carry them; actionlint over the GitHub Actions workflows
	$(GO) run $(ACTIONLINT) -color=false
	$(GO) vet ./...
	$(GO) vet -tags e2e,e2ekind ./e2e/... ./kind/...
	$(GO) tool staticcheck ./...
	$(GO) tool staticcheck -tags e2e,e2ekind ./e2e/... ./kind/...
	@out=$$($(GO) tool goimports -l -local $(MODULE) .); if [ -n "$$out" ]; then echo "gofmt or import groups (standard library, others, this module) differ; make fmt fixes:"; echo "$$out"; exit 1; fi

# The chart in deploy/chart, and the plain manifests rendered from it; helm
# is built once by scripts/helm.sh into ~/.cache/hcloud-ccm, not in go.mod.
# The render commands live in deploy/chart_test.go, which checks the files.
manifests: ## render deploy/ccm.yaml, deploy/ccm-networks.yaml and deploy/ccm-webhook.yaml from deploy/chart
	$(GO) test -count=1 -run '^TestManifests$$' ./deploy/ -update

# HELM_VERSIONS: chart lints with each (Helm 3 and 4 are both in use).
HELM_VERSIONS := v3.22.0 v4.3.1

chart: ## helm lint deploy/chart with Helm 3 and Helm 4 (default values, networking, the webhook both ways, an official values file; --strict) and check deploy/ccm*.yaml are its render
	@for v in $(HELM_VERSIONS); do \
		HELM=$$(HELM_VERSION=$$v scripts/helm.sh) && echo "==> helm $$v" && set -x && \
		$$HELM lint --strict deploy/chart && \
		$$HELM lint --strict deploy/chart --set networking.enabled=true && \
		$$HELM lint --strict deploy/chart --set webhook.enabled=true && \
		$$HELM lint --strict deploy/chart --set webhook.enabled=true --set webhook.certificates=cert-manager && \
		$$HELM lint --strict deploy/chart -f deploy/testdata/official-values.yaml && set +x || exit 1; \
	done
	$(GO) test -count=1 -run '^TestManifests$$' ./deploy/

.PHONY: manifests chart

# The reference pages generated from the code (TestReference* beside each
# table); make test fails when one differs, and checks every link.
docs: ## rewrite the generated reference pages in docs/reference from the code (annotations, environment, flags, metrics, doctor checks, fakecloud's flags, events, admin routes and action commands)
	UPDATE_DOCS=1 $(GO) test -count=1 -run '^TestReference' ./ccm/... ./cmd/... ./fakecloud/...
	$(GO) test -count=1 ./docs/

fmt: ## gofmt every file and group its imports: standard library, others, this module
	$(GO) tool goimports -w -local $(MODULE) .

# The node and load balancer scenarios run once more with fakecloud
# --realism pessimistic (what the API leaves open goes the unhelpful way).
E2E_PESSIMISTIC := ^(TestNodesInitialised|TestNodeAddressFollowsTheServer|TestDeletedServerDeletesItsNode|TestPowerOffTaintsTheNode|TestRoutesFollowTheNodes|TestLoadBalancerService|TestLoadBalancerOnPrimaryIP)$$

e2e: build-fakecloud build-ccm ## the end-to-end scenarios on kube-apiserver and etcd built from source (4 min the first time, then cached), the upgrades from the official CCM with Helm 3, Helm 4 and kubectl, then the node and load balancer ones with fakecloud --realism pessimistic
	@CONTROL_BIN=$$(COMPONENTS="kube-apiserver kubectl" scripts/build-control-plane.sh) && \
	HELM3=$$(scripts/helm.sh) && HELM4=$$(HELM_VERSION=v4.3.1 scripts/helm.sh) && \
	E2E_CONTROL_BIN=$$CONTROL_BIN E2E_HELM3=$$HELM3 E2E_HELM4=$$HELM4 $(GO) test -tags e2e -count=1 -v -timeout 25m ./e2e/ && \
	echo "==> again with fakecloud --realism pessimistic: $(E2E_PESSIMISTIC)" && \
	E2E_CONTROL_BIN=$$CONTROL_BIN E2E_REALISM=pessimistic $(GO) test -tags e2e -count=1 -v -timeout 15m -run '$(E2E_PESSIMISTIC)' ./e2e/

# The fault matrix's full sweep; make test runs a subset of the first
# part, make e2e of the second.
faults: build-fakecloud build-ccm ## the fault matrix (about 12 min): every cloud call of every CCM operation failed every way the API fails, in process (7 min), then the leader killed right after each call, with two replicas on kube-apiserver (4 min); both tables go into BENCHMARKS.md
	@echo "==> every call failed every way the API fails, each run a cluster in process, 16 at a time (about 7 minutes)"
	$(GO) test -count=1 -v -timeout 30m -run '^TestFaultMatrix$$' ./ccm/ -faults.full -faults.write $(CURDIR)/BENCHMARKS.md
	@echo "==> the leader killed right after each call (about 4 minutes; the control plane is built the first time)"
	@CONTROL_BIN=$$(COMPONENTS="kube-apiserver kubectl" scripts/build-control-plane.sh) && \
	E2E_CONTROL_BIN=$$CONTROL_BIN E2E_FAULTS=full E2E_FAULTS_WRITE=BENCHMARKS.md $(GO) test -tags e2e -count=1 -v -timeout 20m -run '^TestLeaderKilled$$' ./e2e/

e2e-kind: ## a real kind cluster, fakecloud and the CCM in-cluster, offline (node image built and cached the first time); KEEP_CLUSTER=1 keeps it
	bash kind/e2e-kind.sh

scale: build-fakecloud build-ccm ## the real CCM with 1,000 Nodes and 100 load balancers, phase by phase (SCALE_FLAGS, e.g. -nodes 60 -services 10 -speed 10 -check)
	@CONTROL_BIN=$$(scripts/build-control-plane.sh) && \
	E2E_CONTROL_BIN=$$CONTROL_BIN $(GO) run ./cmd/scale $(SCALE_FLAGS)

scale-check: ## a small make scale (60 Nodes, 5 of them on dedicated servers, 10 Services, clocks 10x faster; about 3 minutes) that fails when an aim, scaled to its size, is missed (CI runs it)
	$(MAKE) scale SCALE_FLAGS="-nodes 60 -services 10 -not-ready 5 -pool 10 -dedicated 5 -speed 10 -check"

peers: build-fakecloud ## the Terraform provider for Hetzner Cloud's own acceptance tests, unmodified, against fakecloud (OpenTofu and the provider built from the Go module proxy into ~/.cache the first time; PEERS_PACKAGES narrows, PEERS_WRITE=1 writes BENCHMARKS.md)
	scripts/peers.sh

parity: ## run the parity scenarios against an in-process fakecloud and compare with testdata/parity (PARITY_FLAGS, e.g. -live, -record, -run routes, -sweep -live)
	$(GO) run ./cmd/parity $(PARITY_FLAGS)

economy: ## print the API requests per hour, join and leave, and the load balancer figures (BENCHMARKS.md)
	$(GO) test -count=1 -run '^(TestAPIEconomy|TestLBEconomy.*)$$' -v ./ccm/ ./ccm/loadbalancer/

bench: ## run the benchmarks recorded in BENCHMARKS.md
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./fakecloud/...

fuzz: ## fuzz fakecloud's requests and the label selector for 30 s each (FUZZTIME=5m for longer)
	$(GO) test -run '^$$' -fuzz FuzzHostile -fuzztime $(FUZZTIME) ./fakecloud/
	$(GO) test -run '^$$' -fuzz FuzzDecodeRequests -fuzztime $(FUZZTIME) ./fakecloud/
	$(GO) test -run '^$$' -fuzz FuzzLabelSelector -fuzztime $(FUZZTIME) ./fakecloud/internal/labelselector/

demo: build-fakecloud build-ccm ## run the whole system offline (kube-apiserver built from source the first time) and narrate it; Ctrl-C stops it
	@CONTROL_BIN=$$(COMPONENTS="kube-apiserver kubectl" scripts/build-control-plane.sh) && \
	$(GO) run ./cmd/demo -control-bin "$$CONTROL_BIN" $(DEMO_FLAGS)

fakecloud-tour: build-fakecloud ## start fakecloud alone on a small seeded world and take a tour of its API with curl
	bash scripts/demo.sh

.PHONY: help build build-fakecloud build-ccm test race faults-quick lint fmt docs e2e scale scale-check peers parity economy bench fuzz demo fakecloud-tour e2e-kind faults
