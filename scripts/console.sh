#!/usr/bin/env bash
# console.sh builds and checks the web console (console/web: TypeScript sources, package.json and
# package-lock.json pinning typescript, playwright-core and axe-core; docs/decisions.md, "The web
# console's build").
#
#   scripts/console.sh build    # npm ci when node_modules is missing or stale; the api's types
#                               # (console/web/src/schema.d.ts) from docs/openapi.json; tsc: sources → console/static/js
#   scripts/console.sh check    # npm ci, schema.d.ts is what docs/openapi.json generates, tsc type check,
#                               # and console/static/js is exactly what the sources build
#   scripts/console.sh browser  # Debian's chromium for the browser test (apt-get when missing); prints its path
#
# The built JavaScript is committed, so `go build ./...` works on a clean clone without node; `check`
# (run by scripts/test.sh) fails when it was not rebuilt after a change to the sources. Nothing here
# downloads a prebuilt binary: typescript 5 is plain JavaScript, playwright-core is told never to fetch a
# browser, and the browser is Debian's package.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
web=console/web

say() { printf 'console.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

apt_install() {
	command -v apt-get >/dev/null 2>&1 || return 1
	local sudo=""
	[[ $(id -u) == 0 ]] || ! sudo -n true 2>/dev/null || sudo="sudo"
	[[ $(id -u) == 0 || -n $sudo ]] || return 1
	say "installing $* with apt-get"
	$sudo apt-get update -qq >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

need_node() {
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		apt_install nodejs npm || true
	fi
	command -v npm >/dev/null 2>&1 || die "node and npm are needed to build the console (Debian/Ubuntu: sudo apt-get install nodejs npm)"
}

# npm_ci installs exactly package-lock.json, again only when the lock file changed since.
npm_ci() {
	need_node
	local stamp=$web/node_modules/.package-lock.json
	if [[ ! -f $stamp || $web/package-lock.json -nt $stamp ]]; then
		say "npm ci in $web"
		(cd "$web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2)
	fi
}

tsc() { (cd "$web" && node node_modules/typescript/bin/tsc "$@"); }

# schema writes to $1 the TypeScript types openapi-typescript generates from docs/openapi.json, with
# the toolchain pinned in clients/ts (the one scripts/client-check.sh uses): the console's api.ts is
# typed by them, so a change to the api's contract breaks the console's type check.
schema() {
	local ts=clients/ts stamp=clients/ts/node_modules/.package-lock.json
	if [[ ! -f $stamp || $ts/package-lock.json -nt $stamp ]]; then
		say "npm ci in $ts"
		(cd "$ts" && npm ci --no-audit --no-fund --loglevel=error >&2)
	fi
	local out
	out=$(realpath -m "$1")
	(cd "$ts" && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true node node_modules/openapi-typescript/bin/cli.js ../../docs/openapi.json --output "$out" >&2 2>/dev/null)
}

case ${1:-} in
build)
	npm_ci
	schema $web/src/schema.d.ts
	tsc -p tsconfig.json
	say "built console/static/js"
	;;
check)
	npm_ci
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
	schema "$out/schema.d.ts"
	if ! diff "$out/schema.d.ts" $web/src/schema.d.ts >&2; then
		die "console/web/src/schema.d.ts is not what docs/openapi.json generates: run scripts/console.sh build (or make console), fix what no longer type-checks, and commit it"
	fi
	tsc -p tsconfig.json --noEmit
	tsc -p tsconfig.json --outDir "$out/js"
	if ! diff -r "$out/js" console/static/js >&2; then
		die "console/static/js is not what console/web/src builds: run scripts/console.sh build (or make console) and commit it"
	fi
	say "schema.d.ts is fresh; console types check; console/static/js is fresh"
	;;
browser)
	chromium=${HUB_CHROMIUM:-$(command -v chromium || true)}
	if [[ -z $chromium ]]; then
		apt_install chromium || true
		chromium=$(command -v chromium || true)
	fi
	[[ -n $chromium ]] || die "chromium is needed for the browser test (Debian/Ubuntu: sudo apt-get install chromium)"
	echo "$chromium"
	;;
*)
	die "usage: scripts/console.sh build|check|browser"
	;;
esac
