# The commands the README names. Everything runs with the toolchain go.mod asks for.
export GOTOOLCHAIN := go1.27.3

.PHONY: test e2e dev build lint bench chaos client-check console

# The static checks (make lint) and every test, the e2e suite included (-tags e2e), with the race
# detector, against a throwaway Postgres (see docs/testing.md). CI runs this.
# Arguments: make test ARGS="-run TestTurn ./workflows"
test:
	scripts/test.sh -race $(ARGS)

# The end-to-end suite alone (package e2e, behind the e2e build tag), as make test runs it:
# make e2e ARGS="-run TestApply"
e2e:
	scripts/test.sh -race $(ARGS) ./e2e

# The whole product in one process: api, worker, Temporal and the UI, SQLite.
dev:
	go run ./cmd/hub dev

build: console
	go build -o bin/hub ./cmd/hub

# The web console: npm ci (pinned by console/web/package-lock.json), then tsc builds console/web/src
# into console/static/js, which is committed and embedded by go build (make test checks it is fresh).
console:
	scripts/console.sh build

# gofmt, go vet, staticcheck and workflowcheck (versions pinned by go.mod's tool lines), no tests.
# The import-direction check is a test: go test ./internal/layers.
lint:
	scripts/lint.sh

# The OpenAPI document's checks alone (make test runs them too): redocly lint, openapi-typescript
# and tsc on a typed client, with the npm versions pinned in clients/ts (docs/api.md).
client-check:
	scripts/client-check.sh

# Benchmarks only, with the same throwaway Postgres as the tests: make bench ARGS=./workflows
bench:
	scripts/test.sh -run '^$$' -bench . $(ARGS)

# kill -9 the worker (and twice the api) at random points of 50 turns and 20 Applies on Postgres,
# restarting it each time; reports turns finished / writes doubled / writes lost, which must be
# 50 / 0 / 0 (docs/testing.md). HUB_CHAOS_SEED, HUB_CHAOS_TURNS, HUB_CHAOS_APPLIES and
# HUB_CHAOS_CONCURRENCY change the run: make chaos HUB_CHAOS_TURNS=5 HUB_CHAOS_APPLIES=2
chaos:
	scripts/test.sh -tags chaos -run TestChaos -timeout 20m -v ./chaos
