#!/usr/bin/env bash
# client-check.sh checks Hub's OpenAPI document the way a frontend uses it (docs/api.md, "The
# OpenAPI document"): with the npm toolchain pinned in clients/ts/package-lock.json (npm ci),
#   1. @redocly/cli lints docs/openapi.json with its recommended-strict rules: any problem fails;
#   2. openapi-typescript generates its TypeScript types (clients/ts/src/schema.d.ts);
#   3. tsc --noEmit (strict) compiles clients/ts/src/client.ts against them, with TypeScript 5.x and
#      with 7.x (the native compiler, as the npm alias typescript7): a typed openapi-fetch client that
#      creates a conversation, starts a turn with its page context, renames the conversation, applies
#      a proposal and reads receipts, so a renamed route, parameter or field breaks it.
# docs/openapi.json is the document /api/openapi.json serves, byte for byte (the Go test
# TestOpenAPIDocumentIsTheCommittedOne in ./api keeps it so). scripts/test.sh runs this script when
# it tests the whole module; node and npm are installed with apt-get when missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'client-check.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	sudo=""
	[[ $(id -u) == 0 ]] || ! sudo -n true 2>/dev/null || sudo="sudo"
	if command -v apt-get >/dev/null 2>&1 && [[ $(id -u) == 0 || -n $sudo ]]; then
		say "installing nodejs and npm with apt-get"
		$sudo apt-get update -qq >&2
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >&2
	fi
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
		die "node and npm are needed (Node.js 20.19 or newer; Debian/Ubuntu: sudo apt-get install nodejs npm)"
fi
# @redocly/cli needs Node.js ≥ 20.19.
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' ||
	die "Node.js $(node --version) is too old: the pinned @redocly/cli needs 20.19 or newer"

cd clients/ts
# No calls home from the CLI: no usage telemetry, no update check.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
say "npm ci (node $(node --version), npm $(npm --version))"
npm ci --no-audit --no-fund --loglevel=error >&2

say "redocly lint ../../docs/openapi.json"
npx --no-install redocly lint --config redocly.yaml --format stylish ../../docs/openapi.json

say "openapi-typescript ../../docs/openapi.json"
npx --no-install openapi-typescript ../../docs/openapi.json --output src/schema.d.ts

# Two compilers: TypeScript 5.x (typescript, the JavaScript compiler most frontends build with) and
# the newest 7.x (typescript7, an npm alias of typescript@7: the native compiler), both pinned.
say "tsc --noEmit (strict), TypeScript $(npx --no-install tsc --version)"
npx --no-install tsc --noEmit -p .
say "tsc --noEmit (strict), TypeScript $(node node_modules/typescript7/bin/tsc --version)"
node node_modules/typescript7/bin/tsc --noEmit -p .
say "ok: the document lints without errors and the typed client compiles with TypeScript 5 and 7"
