# Thin targets; each line says what it does. `make help` lists them.
GO ?= go
BIN := bin

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/fakecloud
	$(GO) build -o $(BIN)/fakecloud ./cmd/fakecloud

test: ## vet and run every unit and contract test
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

bench: ## run the benchmarks recorded in BENCHMARKS.md
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./fakecloud/

fuzz: ## fuzz the request decoders for 30 s each
	$(GO) test -run '^$$' -fuzz FuzzDecodeRequests -fuzztime 30s ./fakecloud/
	$(GO) test -run '^$$' -fuzz FuzzLabelSelector -fuzztime 30s ./fakecloud/

demo: build ## start fakecloud on a small seeded world and take a tour with curl
	bash scripts/demo.sh

.PHONY: help build test bench fuzz demo
