#!/usr/bin/env bash
# bench-pairs.sh measures two hub binaries side by side with `hub bench` (docs/benchmarks.md,
# "Devices measured side by side"): A and B alternated, A B then B A, on SQLite and on Postgres (a
# throwaway server started here, a fresh database per run), one line per run, after one unreported
# warm-up run per engine.
#
#   scripts/bench-pairs.sh ./hub-with ./hub-without LABEL          # both engines
#   ENGINES=sqlite scripts/bench-pairs.sh ./hub-a ./hub-b LABEL    # one
#   PAIRS=3 …                                                      # more pairs (default 2)
#
# Run it on a quiet machine (the load average is printed per run). Each run is
# `hub bench --warmup 5 --sequential 100 --concurrent 200 --in-flight 20 --samples 0 --delay-turns 0`;
# a line gives the sequential median, the CPU per turn (Hub, and Postgres on Postgres) of the
# sequential and the concurrent phase, and the concurrent turns per second.
set -euo pipefail
[[ $# == 3 ]] || { echo "usage: $0 BINARY_A BINARY_B LABEL" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2") LABEL=$3
root=$(mktemp -d /tmp/hub-benchpairs.XXXXXX)
chmod 755 "$root" # the postgres user reaches its data dir below it
cleanup() { :; }
trap 'cleanup; rm -rf "$root"' EXIT

if [[ " ${ENGINES:-sqlite pg} " == *" pg "* ]]; then
	pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[[ -n $pg_bin ]] || { echo "$0: Postgres server binaries not found (apt-get install postgresql)" >&2; exit 1; }
	as_pg() { if [[ $(id -u) == 0 ]]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }
	mkdir "$root/pg"
	[[ $(id -u) != 0 ]] || chown postgres: "$root/pg"
	as_pg "$pg_bin/initdb -D $root/pg/data -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null"
	port=$((20000 + RANDOM % 20000))
	printf "listen_addresses = '127.0.0.1'\nport = %s\nunix_socket_directories = '%s'\nmax_connections = 300\n" \
		"$port" "$root/pg" >>"$root/pg/data/postgresql.conf"
	as_pg "$pg_bin/pg_ctl -D $root/pg/data -l $root/pg/log -w start >/dev/null"
	cleanup() { as_pg "$pg_bin/pg_ctl -D $root/pg/data -m immediate stop >/dev/null" || true; }
fi

args=(--json --warmup 5 --sequential 100 --concurrent 200 --in-flight 20 --samples 0 --delay-turns 0)
n=0
run() { # binary name engine
	local bin=$1 name=$2 engine=$3 extra=()
	n=$((n + 1))
	if [[ $engine == pg ]]; then
		as_pg "$pg_bin/psql -h $root/pg -p $port -U postgres -qc 'CREATE DATABASE b$n'"
		extra=(--database-url "postgres://postgres@127.0.0.1:$port/b$n?sslmode=disable")
	fi
	(cd "$root" && "$bin" bench "${args[@]}" "${extra[@]}" >"$root/out.json" 2>"$root/err.txt") ||
		{ tail -5 "$root/err.txt" >&2; return 1; }
	python3 - "$LABEL" "$name" "$engine" "$root/out.json" <<'PY'
import json, sys
label, name, engine, path = sys.argv[1:]
r = json.load(open(path))
seq = next(p for p in r["phases"] if p["system"] == "hub" and p["name"] == "sequential")
con = next(p for p in r["phases"] if p["system"] == "hub" and p["name"] != "sequential")
print(f"{label}\t{engine}\t{name}\tseq_median_ms={seq['latency']['medianMs']:.1f}\tseq_cpu_ms={seq['cpuTotalPerTurnMs']}"
      f"\tcon_cpu_ms={con['cpuTotalPerTurnMs']}\tcon_tps={con['turnsPerSecond']}\terrors={seq['errors'] + con['errors']}"
      f"\tload={r['loadAverage'][0]}", flush=True)
PY
}
for engine in ${ENGINES:-sqlite pg}; do
	# A first run on a fresh server is slower whatever the binary (cold caches): one of A, not reported.
	run "$A" warm-up "$engine" >/dev/null
	for ((pair = 1; pair <= ${PAIRS:-2}; pair++)); do
		if ((pair % 2)); then run "$A" A "$engine"; run "$B" B "$engine"; else run "$B" B "$engine"; run "$A" A "$engine"; fi
	done
done
