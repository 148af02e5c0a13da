#!/usr/bin/env bash
# shellcheck disable=SC2317 # functions run from traps look unreachable to shellcheck
# test.sh is Hub's one test command (`make test` runs it): the static checks (scripts/lint.sh:
# gofmt, go vet, staticcheck, workflowcheck), the OpenAPI document's lint and typed-client check
# (scripts/client-check.sh, for the whole module), the web console's checks (scripts/console.sh
# check, when the run covers ./console or ./e2e), then go test -tags e2e against a throwaway Postgres
# server that lives exactly as long as this script.
#
#   scripts/test.sh                      # everything: ./...
#   scripts/test.sh ./api                # one package (the static checks check only it, too)
#   scripts/test.sh -run TestTurn ./api  # any go test flags, before or after the packages
#
# Arguments starting with ./ ../ or hub/ (or equal to ., hub) are packages; everything else is
# passed to go test as it is. Without packages it tests ./... .
#
# Postgres: the server binaries are looked up in /usr/lib/postgresql/*/bin, /usr/pgsql-*/bin
# and PATH (installed with apt-get when missing, as root or with passwordless sudo). The cluster
# lives in a temporary directory, listens on 127.0.0.1 on a free port (its socket stays in that
# directory), runs as the postgres user when we are root, and is stopped and deleted on every
# exit path. Tests find it in HUB_TEST_DATABASE_URL; HUB_REQUIRE_POSTGRES=1 makes a database
# test fail rather than skip if it is missing (see package dbtest).
#
# If HUB_TEST_DATABASE_URL is already set, that server is used and none is started.
set -euo pipefail

export GOTOOLCHAIN=go1.27.3
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'test.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

command -v go >/dev/null 2>&1 ||
	die "go is not installed; install Go 1.21 or newer (it fetches go1.27.3 itself, see go.mod)"

# --- arguments ---------------------------------------------------------------------------------
# go test flags whose value may come as the next argument (`-run X`, `-coverpkg ./...`): that
# value is never a package, even when it starts with ./ .
value_flags='run|skip|bench|benchtime|count|cpu|list|parallel|p|timeout|shuffle|fuzz|fuzztime|fuzzminimizetime|'\
'coverprofile|coverpkg|covermode|cpuprofile|memprofile|memprofilerate|blockprofile|blockprofilerate|'\
'mutexprofile|mutexprofilefraction|trace|outputdir|o|exec|vet|tags|ldflags|gcflags|asmflags|mod|modfile|'\
'pkgdir|toolexec|overlay|pgo|C'
packages=()
go_test_args=()
# Build tags: e2e is always on (the end-to-end suite sits behind it so that a plain `go test ./...`
# stays quick, docs/testing.md); -tags given here are added to it, for go test and for lint.sh
# (which turns on e2e and chaos itself, so that vet and staticcheck see every file).
tags=e2e
lint_flags=()
after_args=()
while (($#)); do
	arg=$1
	shift
	case $arg in
	-args | --args)
		after_args=("$arg" "$@") # everything after -args belongs to the test binary
		break
		;;
	. | ./* | .. | ../* | hub | hub/*) packages+=("$arg") ;;
	-tags=* | --tags=*)
		tags+=",${arg#*=}"
		lint_flags+=("-tags=${arg#*=}")
		;;
	-tags | --tags)
		(($#)) || die "-tags needs a value"
		tags+=",$1"
		lint_flags+=("-tags=$1")
		shift
		;;
	-*)
		go_test_args+=("$arg")
		if [[ $arg =~ ^--?($value_flags)$ ]] && (($#)); then
			go_test_args+=("$1")
			shift
		fi
		;;
	*) go_test_args+=("$arg") ;;
	esac
done
# The OpenAPI document's npm checks (scripts/client-check.sh) run with the whole module, or when
# HUB_CLIENT_CHECK=1; HUB_CLIENT_CHECK=0 skips them.
client_check=${HUB_CLIENT_CHECK:-}
if [[ ${#packages[@]} -eq 0 ]]; then
	packages=(./...)
	client_check=${client_check:-1}
fi
tags=${tags//[ ,]/,} # space-separated lists become comma-separated
tags=${tags%,}

# --- Postgres ----------------------------------------------------------------------------------
pg_bin=""
pg_root=""
pg_data=""
pg_user="" # set when we run the server as another user (we are root)

find_pg_bin() {
	local dir
	# Newest version first.
	for dir in $(printf '%s\n' /usr/lib/postgresql/*/bin /usr/pgsql-*/bin | sort -V -r); do
		if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then
			echo "$dir"
			return
		fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v pg_ctl)"
	fi
}

# as_pg runs a command as the user that owns the cluster.
as_pg() {
	if [[ -z $pg_user ]]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "$pg_user" -- "$@"
	else
		su -s /bin/sh "$pg_user" -c "$(printf '%q ' "$@")"
	fi
}

stop_postgres() {
	[[ -n $pg_root ]] || return 0
	if [[ -n $pg_data && -f $pg_data/postmaster.pid ]]; then
		as_pg "$pg_bin/pg_ctl" stop -D "$pg_data" -m immediate -w -t 30 >/dev/null 2>&1 || true
		# If pg_ctl could not stop it, the pid file's first line is the postmaster.
		if [[ -f $pg_data/postmaster.pid ]]; then
			local pid
			pid=$(head -n 1 "$pg_data/postmaster.pid" 2>/dev/null || true)
			if [[ $pid =~ ^[0-9]+$ ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
		fi
	fi
	rm -rf "$pg_root"
	pg_root=""
}

on_exit() {
	local status=$?
	trap - EXIT INT TERM HUP
	if [[ -n ${progress_pid:-} ]]; then kill "$progress_pid" 2>/dev/null || true; fi
	if [[ -n ${phase_file:-} ]]; then rm -f "$phase_file"; fi
	stop_postgres
	exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# apt_install installs Debian packages when apt-get is there and we may use it (root, or
# passwordless sudo); it returns non-zero when it could not try.
apt_install() {
	command -v apt-get >/dev/null 2>&1 || return 1
	local sudo=""
	[[ $(id -u) == 0 ]] || ! sudo -n true 2>/dev/null || sudo="sudo"
	[[ $(id -u) == 0 || -n $sudo ]] || return 1
	say "installing $* with apt-get"
	$sudo apt-get update -qq >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

start_postgres() {
	pg_bin=$(find_pg_bin)
	if [[ -z $pg_bin ]]; then
		apt_install postgresql && pg_bin=$(find_pg_bin)
		[[ -n $pg_bin ]] || die "Postgres server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or PATH.
  Install PostgreSQL 13 or newer (Debian/Ubuntu: sudo apt-get install postgresql; macOS: brew install postgresql),
  or point HUB_TEST_DATABASE_URL at a server you run (postgres://user:password@host:port/postgres)."
	fi

	local base=${TMPDIR:-/tmp}
	if [[ $(id -u) == 0 ]]; then
		# Postgres refuses to run as root. The postgres user must reach the directory, so
		# use /tmp rather than a TMPDIR that may sit under /root.
		pg_user=postgres
		if ! id -u "$pg_user" >/dev/null 2>&1; then
			useradd --system --no-create-home --shell /usr/sbin/nologin "$pg_user" ||
				die "cannot create the $pg_user user to run Postgres as"
		fi
		base=/tmp
	fi
	pg_root=$(mktemp -d "$base/hub-pgtest.XXXXXX")
	pg_data=$pg_root/data
	local log=$pg_root/postgres.log
	local password
	password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	printf '%s\n' "$password" >"$pg_root/pwfile"
	[[ -z $pg_user ]] || chown -R "$pg_user:" "$pg_root"

	if ! as_pg "$pg_bin/initdb" -D "$pg_data" -U postgres --pwfile="$pg_root/pwfile" \
		--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync >"$pg_root/initdb.log" 2>&1; then
		cat "$pg_root/initdb.log" >&2
		die "initdb failed"
	fi
	rm -f "$pg_root/pwfile"
	# Settings for a disposable server: nothing has to survive a crash, so skip every sync.
	cat >>"$pg_data/postgresql.conf" <<-EOF
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$pg_root'
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		wal_level = minimal
		max_wal_senders = 0
		max_connections = 300
	EOF
	# pg_stat_statements, when the server has it, lets a benchmark count the statements of a
	# turn (BenchmarkTurn, docs/benchmarks.md); nothing else needs it.
	if [[ -f $("$pg_bin/pg_config" --pkglibdir 2>/dev/null || echo /nonexistent)/pg_stat_statements.so ]]; then
		cat >>"$pg_data/postgresql.conf" <<-EOF
			shared_preload_libraries = 'pg_stat_statements'
			pg_stat_statements.track = all
			pg_stat_statements.max = 10000
		EOF
	fi

	# A free port: try random ones; the server's own bind is the test, so two runs started at
	# the same moment cannot end up on the same port.
	local port
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		port=$((20000 + RANDOM % 40000))
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			continue # something listens there
		fi
		[[ ! -f $log ]] || : >"$log" # keep its owner; judge this attempt by its own lines
		if as_pg "$pg_bin/pg_ctl" start -D "$pg_data" -o "-p $port" -l "$log" -w -t 60 >/dev/null 2>&1; then
			break
		fi
		if grep -q "could not bind\|Address already in use\|could not create any TCP/IP sockets" "$log" 2>/dev/null; then
			as_pg "$pg_bin/pg_ctl" stop -D "$pg_data" -m immediate >/dev/null 2>&1 || true
			port=""
			continue
		fi
		cat "$log" >&2 || true
		die "Postgres did not start (log above)"
	done
	[[ -n ${port:-} ]] || die "no free port for Postgres after 10 tries"

	local i
	for i in $(seq 1 100); do
		"$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres && break
		((i < 100)) || die "Postgres on 127.0.0.1:$port is not ready after 20 s"
		sleep 0.2
	done

	export HUB_TEST_DATABASE_URL="postgres://postgres:$password@127.0.0.1:$port/postgres?sslmode=disable"
	say "Postgres $("$pg_bin/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port (data in $pg_data)"
}

if [[ -n ${HUB_TEST_DATABASE_URL:-} ]]; then
	say "using the Postgres server in HUB_TEST_DATABASE_URL"
else
	start_postgres
fi
export HUB_REQUIRE_POSTGRES=1

# --- the race detector needs cgo, so a C compiler --------------------------------------------
for arg in ${go_test_args[@]+"${go_test_args[@]}"}; do
	if [[ $arg == -race || $arg == --race || $arg == -race=true ]] && ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
		apt_install gcc libc6-dev || true
		command -v gcc >/dev/null 2>&1 || die "-race needs a C compiler (cgo); install gcc (Debian/Ubuntu: sudo apt-get install gcc)"
	fi
done

# --- what it is doing ---------------------------------------------------------------------------
# A first run compiles for many minutes before go test prints a line (the Temporal server and every
# dependency, with -race; the lint tools). set_phase says which step starts; every HUB_TEST_PROGRESS
# seconds (default 60; 0: never) a line says the step, the time so far and, from ps, which packages
# the go command is compiling and which test binaries run.
phase_file=$(mktemp "${TMPDIR:-/tmp}/hub-test-phase.XXXXXX")
set_phase() {
	printf '%s' "$1" >"$phase_file"
	say "$1"
}
progress() {
	local every=$1 t0=$SECONDS mine compiling running what sleeper=""
	# Its sleep must not outlive it, nor hold the output a CI runner waits on.
	trap 'if [[ -n $sleeper ]]; then kill "$sleeper" 2>/dev/null; fi; exit 0' TERM
	while :; do
		sleep "$every" </dev/null >/dev/null 2>&1 &
		sleeper=$!
		wait "$sleeper" || true
		# This script's descendants only (the machine may run other builds): the compiler's -p
		# flag is the import path it compiles; a test binary is NAME.test.
		mine=$(ps -eo pid=,ppid=,args= 2>/dev/null | awk -v root=$$ '
			{ parent[$1] = $2; line[$1] = $0 }
			END { for (p in line) { q = p; while (q in parent && q != root && q > 1) q = parent[q]; if (q == root) print line[p] } }' || true)
		compiling=$(awk '/\/compile /{for(i=1;i<NF;i++) if($i=="-p"){print $(i+1); break}}' <<<"$mine" | sort -u | head -n 4 | paste -sd' ' - || true)
		running=$(awk '{print $3}' <<<"$mine" | grep '\.test$' | sed 's|.*/||' | sort -u | paste -sd' ' - || true)
		what=""
		[[ -z $compiling ]] || what+=" compiling $compiling"
		[[ -z $running ]] || what+=" running $running"
		say "$(((SECONDS - t0) / 60))m$(((SECONDS - t0) % 60))s: $(cat "$phase_file" 2>/dev/null)${what:+ —$what}"
	done
}
progress_pid=""
if [[ ${HUB_TEST_PROGRESS:-60} != 0 ]] && command -v ps >/dev/null 2>&1; then
	progress "${HUB_TEST_PROGRESS:-60}" &
	progress_pid=$!
fi

# --- checks and tests --------------------------------------------------------------------------
# ${a[@]+"${a[@]}"} expands an empty array to nothing, even under set -u in bash 3.2 (macOS).
set_phase "static checks: gofmt, go vet, staticcheck, workflowcheck (scripts/lint.sh; a first run builds the lint tools)"
scripts/lint.sh ${lint_flags[@]+"${lint_flags[@]}"} "${packages[@]}"
if [[ $client_check == 1 ]]; then
	set_phase "the OpenAPI document: redocly lint, openapi-typescript and tsc (scripts/client-check.sh)"
	scripts/client-check.sh
fi

# --- the web console ----------------------------------------------------------------------------
# When the run covers the console or the e2e package: the console's type check and that its built
# files are fresh (scripts/console.sh check), and Debian's chromium for TestConsoleInABrowser, which
# then must run rather than skip (docs/testing.md, "The console in a browser").
console_run=""
for p in "${packages[@]}"; do
	case $p in ./... | . | hub | hub/... | ./console | ./console/... | hub/console | ./e2e | ./e2e/... | hub/e2e) console_run=1 ;; esac
done
if [[ -n $console_run ]]; then
	set_phase "the web console: tsc and its built files (scripts/console.sh check), Debian's chromium"
	scripts/console.sh check
	HUB_CHROMIUM=$(scripts/console.sh browser)
	export HUB_CHROMIUM HUB_REQUIRE_BROWSER=1
fi

test_cmd=(go test -count=1 -timeout 20m -tags "$tags" ${go_test_args[@]+"${go_test_args[@]}"} "${packages[@]}" ${after_args[@]+"${after_args[@]}"})
set_phase "${test_cmd[*]} (a first run compiles the Temporal server and every dependency with -race first: 10-20 minutes on 2 cores)"

# go test runs in its own process group (set -m) and we wait for it in the background, so that
# a signal sent to this script alone (timeout(1), a CI runner) is handled at once: it is passed
# on to go test and its test binaries, then the exit trap stops Postgres.
tests=""
stop_tests() { # signal, exit status
	if [[ -n $tests ]]; then
		kill -"$1" -- "-$tests" 2>/dev/null || true
		wait "$tests" 2>/dev/null || true
	fi
	exit "$2"
}
trap 'stop_tests INT 130' INT
trap 'stop_tests TERM 143' TERM
trap 'stop_tests HUP 129' HUP
set -m
"${test_cmd[@]}" &
tests=$!
set +m
set +e
wait "$tests"
status=$?
set -e
exit "$status"
