# The commands the README names. Everything runs with the toolchain go.mod asks for.
export GOTOOLCHAIN := go1.27.3

.PHONY: test dev build lint bench

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
