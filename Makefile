# Banmen. `make run` serves the site on http://localhost:8080; `make test`
# runs every test. Both build what they need first.

GO        ?= go
BIN       := bin
PLUGINS   := $(notdir $(patsubst %/,%,$(dir $(wildcard plugins/*/main.go))))
FUZZTIME  ?= 3s
# TIMEOUT_SCALE multiplies every limit of the browser harness (its
# -timeout-scale, BANMEN_TIMEOUT_SCALE for its tests): CI sets 2.
TIMEOUT_SCALE ?= 1

.PHONY: all build node run deps test api-harness test-unit test-race test-browser fuzz-smoke fuzz bench proto vet api fmt clean

all: build

## build: the host, every plugin and the harness command into bin/
build:
	$(GO) build -o $(BIN)/banmen ./platform/cmd/banmen
	@mkdir -p $(BIN)/plugins
	@for p in $(PLUGINS); do echo "$(GO) build -o $(BIN)/plugins/$$p ./plugins/$$p"; $(GO) build -o $(BIN)/plugins/$$p ./plugins/$$p || exit 1; done
	$(GO) build -o $(BIN)/plugins/tictactoe github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe
	$(GO) build -o $(BIN)/harness ./harness/cmd/harness

## node: the TypeScript example plugin (sdk/examples/morris-ts): npm ci, then tsc into its dist/;
## and the independent record reader the shogi exports are checked with (npm ci)
MORRIS := sdk/examples/morris-ts
SHOGIREAD := plugins/shogi/rules/testdata/tsshogi
node: $(MORRIS)/dist/main.js $(SHOGIREAD)/node_modules/.package-lock.json

$(SHOGIREAD)/node_modules/.package-lock.json: $(SHOGIREAD)/package-lock.json
	cd $(SHOGIREAD) && npm ci --no-audit --no-fund

$(MORRIS)/node_modules/.package-lock.json: $(MORRIS)/package-lock.json
	cd $(MORRIS) && npm ci --no-audit --no-fund

$(MORRIS)/dist/main.js: $(MORRIS)/node_modules/.package-lock.json $(wildcard $(MORRIS)/src/*.ts) $(MORRIS)/tsconfig.json
	cd $(MORRIS) && npm run build

## run: start the site on the embedded defaults (configs/default.yaml)
run: build
	./$(BIN)/banmen

## deps: the Debian packages the tests need (installs them as root, else names the command)
deps:
	@./scripts/deps.sh

## test: vet, unit and integration tests (race detector on the host and sdk), browser tests, fuzz smoke runs
test: deps build node vet api-harness test-race test-unit test-browser fuzz-smoke

# The harness library's exported API against its snapshot (harness/api.txt):
# a breaking change must be recorded in harness/CHANGELOG.md.
api-harness:
	./scripts/harness-api.sh

# The sdk is a module of its own (sdk/go.mod), and so are the tools
# (tools/go.mod): their packages are vetted and tested from their
# directory. The sdk's exported API is compared with its last
# release (scripts/apicheck.sh, golang.org/x/exp/cmd/apidiff): an incompatible
# change sdk/CHANGELOG.md's Unreleased section does not name fails vet.
vet:
	$(GO) vet ./...
	cd sdk && $(GO) vet ./...
	cd tools && $(GO) vet ./...
	cd sdk/examples/connect4 && $(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "not gofmt-clean:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	./scripts/apicheck.sh
	./scripts/apicheck_test.sh

## api: after tagging an sdk release, make it the API check's baseline: make api BASE=sdk/v0.1.0
api:
	@test -n "$(BASE)" || { echo "usage: make api BASE=sdk/vX.Y.Z (the release's tag)"; exit 2; }
	@git rev-parse -q --verify "$(BASE)^{commit}" >/dev/null || { echo "no such revision: $(BASE)"; exit 2; }
	@{ echo "# The sdk's last release, which scripts/apicheck.sh compares the API with:"; \
	   echo "# $(BASE), written as its commit so that a clone without tags can check it."; \
	   echo "# make api BASE=sdk/vX.Y.Z moves it when a release is cut."; \
	   git rev-parse "$(BASE)^{commit}"; } > sdk/api/baseline.new && mv sdk/api/baseline.new sdk/api/baseline
	./scripts/apicheck.sh

# The host, the contract and the tools (the load command's smoke runs) run
# under the race detector; the rules plugins' perft tests are CPU-bound and
# run without it.
test-race:
	cd sdk && BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) test -race -count=1 ./...
	BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) test -race -count=1 ./platform/...
	cd tools && BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) test -race -count=1 ./...

test-unit:
	BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 15m $$($(GO) list ./... | grep -v -e /sdk -e /platform -e /harness -e /webui/e2e -e /webui/qrtest -e /webui/analysistest)
	cd sdk/examples/connect4 && $(GO) test -count=1 ./...

# The browser tests (Debian's chromium, firefox-esr and webkit2gtk-driver): the QR encoder's and the analysis module's, the board's own tests, then every
# harness scenario in the three engines against a host the harness starts. deps makes sure there
# is a browser, so none of them passes by skipping.
test-browser: deps
	BANMEN_REQUIRE_BROWSER=1 $(GO) test -count=1 ./webui/qrtest/ ./webui/analysistest/
	BANMEN_REQUIRE_BROWSER=1 BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 20m ./webui/e2e/
	BANMEN_REQUIRE_BROWSER=1 BANMEN_BIN=$(CURDIR)/$(BIN) BANMEN_TIMEOUT_SCALE=$(TIMEOUT_SCALE) BANMEN_HARNESS_JUNIT=$(CURDIR)/$(BIN)/harness-report.xml BANMEN_HARNESS_HTML=$(CURDIR)/$(BIN)/harness-report.html $(GO) test -count=1 -timeout 60m ./harness/...

## fuzz-smoke: every fuzz target for $(FUZZTIME) (make fuzz FUZZTIME=5m for longer)
fuzz-smoke:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

fuzz:
	FUZZTIME=$${FUZZTIME:-2m} ./scripts/fuzz.sh

## bench: figures, not assertions: plugin-boundary overhead, perft and analysis beside Fairy-Stockfish (tools/)
bench: build
	cd tools && BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) run ./callbench
	@for p in $(PLUGINS); do if [ -d tools/$${p}bench ]; then echo "== $$p"; (cd tools && BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) run ./$${p}bench) || exit 1; fi; done
	@echo "== analysis (beside Fairy-Stockfish)"
	cd tools && BANMEN_BIN=$(CURDIR)/$(BIN) $(GO) run ./analysebench

## proto: regenerate the wire code (needs protoc; installs the Go generators) and the TypeScript example's copy of the contract
proto:
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	GOBIN=$(CURDIR)/$(BIN)/tools $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
	PATH=$(CURDIR)/$(BIN)/tools:$$PATH protoc --go_out=. --go_opt=module=github.com/banmen/banmen \
		--go-grpc_out=. --go-grpc_opt=module=github.com/banmen/banmen sdk/internal/wire/wire.proto
	cp sdk/internal/wire/wire.proto $(MORRIS)/protos/wire.proto # the TypeScript example ships its copy

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf $(BIN) $(MORRIS)/dist $(MORRIS)/node_modules
