# The commands the README names. Everything runs with the toolchain go.mod asks for.
export GOTOOLCHAIN := go1.27.3

.PHONY: test dev build lint bench chaos

# gofmt, go vet and every test, with the race detector, against a throwaway Postgres (see
# docs/testing.md). Arguments: make test ARGS="-run TestTurn ./workflows"
test:
	scripts/test.sh -race $(ARGS)

# The whole product in one process: api, worker, Temporal and the UI, SQLite.
dev:
	go run ./cmd/hub dev

build:
	go build -o bin/hub ./cmd/hub

lint:
	scripts/lint.sh

# Benchmarks only, with the same throwaway Postgres as the tests: make bench ARGS=./workflows
bench:
	scripts/test.sh -run '^$$' -bench . $(ARGS)

# kill -9 the worker (and twice the api) at random points of 50 turns and 20 Applies on Postgres,
# restarting it each time; reports turns finished / writes doubled / writes lost, which must be
# 50 / 0 / 0 (docs/testing.md). HUB_CHAOS_SEED, HUB_CHAOS_TURNS, HUB_CHAOS_APPLIES and
# HUB_CHAOS_CONCURRENCY change the run: make chaos HUB_CHAOS_TURNS=5 HUB_CHAOS_APPLIES=2
chaos:
	scripts/test.sh -tags chaos -run TestChaos -timeout 20m -v ./chaos
