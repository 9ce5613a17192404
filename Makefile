# Sesame: the two set-up commands are `make dev` and `make test`.
SHELL := /bin/bash
FUNCTIONS := $(notdir $(wildcard functions/*))
GOFLAGS_LAMBDA := -tags lambda.norpc -trimpath -ldflags "-s -w"
NODE_DEPS := localstack/node_modules/.package-lock.json
# The TypeScript client's own pinned tools (typescript, openapi-typescript).
CLIENT_TS_DEPS := clients/typescript/node_modules/.package-lock.json
# ARCH: the Lambda functions' architecture, arm64 (AWS's cheaper Graviton)
# or amd64 (LocalStack on an x86 host runs functions natively only then).
# `make build` builds for it and `make synth` declares it (cdk -c arch=).
ARCH ?= arm64
check_arch = $(if $(filter $(ARCH),arm64 amd64),,$(error ARCH must be arm64 or amd64, not $(ARCH)))
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: dev dev-up dev-down dev-reset test build synth lint bench bench-smoke ci clean deps invoke fuzz chromium screenshots clients

deps: $(NODE_DEPS) $(CLIENT_TS_DEPS)
	@command -v java >/dev/null || (apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless)
	@command -v node >/dev/null || (apt-get update -qq && apt-get install -y -qq nodejs npm)
	go mod download

$(NODE_DEPS): localstack/package.json localstack/package-lock.json
	cd localstack && npm ci --no-audit --no-fund
	@touch $@

$(CLIENT_TS_DEPS): clients/typescript/package.json clients/typescript/package-lock.json
	cd clients/typescript && npm ci --no-audit --no-fund
	@touch $@

bin/sesame: $(shell find cmd internal -name '*.go' -not -name '*_test.go') go.mod go.sum
	go build -o $@ ./cmd/sesame

## dev: the local stack in the foreground (Ctrl-C stops it all)
dev: deps bin/sesame
	localstack/stack.sh run

## dev-up / dev-down: the same stack detached, for scripts
dev-up: deps bin/sesame
	localstack/stack.sh up

dev-down:
	localstack/stack.sh down

## dev-reset: stop the stack and delete its data (the table, the demo keys)
dev-reset:
	localstack/stack.sh reset

## test: starts the emulators, runs every test (race detector), stops them
test: deps chromium
	localstack/test.sh

## chromium: Debian's Chromium, for the dashboard's browser tests
chromium:
	localstack/chromium.sh

## screenshots: a PNG of each dashboard screen under .sesame/screenshots/
screenshots: deps chromium
	SESAME_SCREENSHOTS=$(CURDIR)/.sesame/screenshots PACKAGES=./internal/devstack/ localstack/test.sh -run 'TestDashboard.*InBrowser'

## fuzz: every fuzz target (func Fuzz… in a _test.go) for FUZZTIME each, in turn;
##   its seed corpus (testdata/fuzz/<Fuzz…>) also runs in make test. A failing
##   input is written to that corpus: fix the code, keep the input.
FUZZTIME ?= 30s
fuzz:
	FUZZTIME=$(FUZZTIME) localstack/fuzz.sh

## bench: speed, DynamoDB calls and capacity per request, cost per 1,000 emails
bench: deps
	localstack/bench.sh

## bench-smoke: every benchmark once (BENCHTIME=1x, a small automation
##   run), as CI runs them: a benchmark that cannot run fails; its budgets,
##   ratios measured side by side, still hold
bench-smoke: deps
	BENCHTIME=1x BENCH_AUTOMATION_RUNS=$${BENCH_AUTOMATION_RUNS:-200} localstack/bench.sh

## ci: what CI runs (.ci/run): lint, build and synth for both architectures
##   and modes, every test, every benchmark once, every fuzz target briefly
ci:
	.ci/run

## invoke: run FN's handler once on EVENT against the local stack, e.g.
##   make invoke FN=get-email EVENT=events/apigw/get-email.json EMAIL_ID=<id>
invoke: bin/sesame
	@test -f .sesame/dev.env || (echo "start the local stack first: make dev-up"; exit 1)
	set -a; . .sesame/dev.env; set +a; bin/sesame invoke $(FN) $(EVENT)

## build: every Lambda function to bin/<fn>/bootstrap (linux/$(ARCH); ARCH=amd64 for LocalStack on x86),
##   each within its architecture's size budget (docs/decisions.md, "Binary size budget"):
##   15 MiB on arm64, what Lambda runs; the same code is 8-9 % larger on amd64.
##   Every function, the dashboard and the MCP server included, is within it.
BINARY_BUDGET_KIB_arm64 := 15360
BINARY_BUDGET_KIB_amd64 := 16896
build:
	$(check_arch)
	@for fn in $(FUNCTIONS); do \
		echo "build $$fn ($(ARCH))"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=$(ARCH) go build $(GOFLAGS_LAMBDA) -o bin/$$fn/bootstrap ./functions/$$fn || exit 1; \
	done
	@over=0; for fn in $(FUNCTIONS); do \
		budget=$(BINARY_BUDGET_KIB_$(ARCH)); \
		size=$$(stat -c %s bin/$$fn/bootstrap); \
		if [ $$size -gt $$((budget * 1024)) ]; then echo "bin/$$fn/bootstrap ($$size bytes) is over its $(ARCH) budget of $$budget KiB (docs/decisions.md, \"Binary size budget\")"; over=1; fi; \
	done; exit $$over

## synth: the CDK CloudFormation template (builds the functions first);
##   CDK_CONTEXT adds context, e.g. CDK_CONTEXT="-c localstack=true"
CDK_CONTEXT ?=
synth: deps build
	$(check_arch)
	localstack/node_modules/.bin/cdk synth -q -c arch=$(ARCH) $(CDK_CONTEXT)

## lint: gofmt, go vet, go mod tidy must leave no diff (the Go client's module too);
##   shellcheck on the scripts; the OpenAPI document through Redocly (redocly.yaml)
##   and Spectral (.spectral.yaml); tsc type-checks the TypeScript client and its tests
lint: $(NODE_DEPS) $(CLIENT_TS_DEPS)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt: $$out"; exit 1; fi
	@command -v shellcheck >/dev/null || (apt-get update -qq && apt-get install -y -qq shellcheck)
	shellcheck -x $$(git ls-files '*.sh') .ci/run
	go vet ./...
	cp go.mod /tmp/sesame.go.mod; cp go.sum /tmp/sesame.go.sum
	go mod tidy
	@git diff --quiet go.mod go.sum || (echo "go mod tidy changed go.mod/go.sum"; cp /tmp/sesame.go.mod go.mod; cp /tmp/sesame.go.sum go.sum; exit 1)
	localstack/node_modules/.bin/redocly lint sesame
	localstack/node_modules/.bin/spectral lint --ruleset .spectral.yaml --fail-severity=warn internal/openapi/openapi.json
	cd clients/go && go vet ./... && go mod tidy -diff
	clients/typescript/node_modules/.bin/tsc -p clients/typescript --noEmit

## clients: regenerate the clients' types and calls from internal/openapi/openapi.json
##   (TestGoClientFollowsDocument and TestTypeScriptClientFollowsDocument fail until then)
clients: $(CLIENT_TS_DEPS)
	cd clients/go && go generate ./...
	cd clients/typescript && npm run --silent generate

clean:
	rm -rf bin cdk.out .sesame/test clients/typescript/dist
