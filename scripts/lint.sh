#!/usr/bin/env bash
# lint.sh is Hub's static checks, on ./... or on the packages given (`make lint`; scripts/test.sh,
# and so `make test` and CI, runs it before the tests):
#
#   1. gofmt -l: every .go file in each package's directory, including files excluded by build
#      tags, and not testdata/ or vendor/;
#   2. go vet;
#   3. staticcheck (honnef.co/go/tools), default checks; a deliberate finding carries a
#      //lint:ignore comment that says why;
#   4. workflowcheck (go.temporal.io/sdk/contrib/tools/workflowcheck) over ./workflows/...: no
#      non-deterministic call (time.Now, rand, goroutines, map ranging, ...) reachable from
#      workflow code. It runs when the packages given include ./workflows (or are ./...).
#
# go vet and staticcheck see every file of ours: the build tags e2e (the end-to-end suite) and
# chaos (make chaos) are always on, with any -tags given added to them; every test file of e2e
# must carry the e2e tag. The import-direction
# check is a test (package internal/layers), so it runs with the tests.
#
#   scripts/lint.sh                          # the whole module
#   scripts/lint.sh -tags=integration ./api ./worker
#
# Arguments starting with - are go vet flags (-tags also goes to staticcheck); the rest are
# packages. staticcheck and workflowcheck are the versions go.mod's tool lines name, built by
# `go tool` from the module proxy on first use (docs/testing.md, "Static checks").
set -euo pipefail

export GOTOOLCHAIN=go1.27.3
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tags=e2e,chaos
flags=()
packages=()
while (($#)); do
	arg=$1
	shift
	case $arg in
	-tags=* | --tags=*) tags+=",${arg#*=}" ;;
	-tags | --tags)
		(($#)) || { echo "lint.sh: -tags needs a value" >&2; exit 2; }
		tags+=",$1"
		shift
		;;
	-*) flags+=("$arg") ;;
	*) packages+=("$arg") ;;
	esac
done
[[ ${#packages[@]} -gt 0 ]] || packages=(./...)
tags=${tags//[ ,]/,} # space-separated lists become comma-separated
tags=${tags%,}

# -e: list the directory of a package even if it does not compile; vet reports that below.
dirs=$(go list -e -tags "$tags" -f '{{.Dir}}' "${packages[@]}")
files=()
while IFS= read -r file; do
	files+=("$file")
done < <(while IFS= read -r dir; do
	[[ -z $dir ]] || find "$dir" -maxdepth 1 -type f -name '*.go'
done <<<"$dirs" | sort -u)

if [[ ${#files[@]} -gt 0 ]]; then
	unformatted=$(gofmt -l "${files[@]}")
	if [[ -n $unformatted ]]; then
		echo "lint.sh: these files need gofmt -w:" >&2
		echo "$unformatted" | sed "s|^$PWD/|  |" >&2
		exit 1
	fi
fi

# The end-to-end suite is behind the e2e tag (docs/testing.md, "The e2e build tag"); a test file of
# e2e without it would run, or fail to build, in a plain go test ./... .
untagged=$(grep -L '^//go:build e2e$' e2e/*_test.go || true)
if [[ -n $untagged ]]; then
	echo "lint.sh: these files need the line //go:build e2e above their package clause:" >&2
	echo "$untagged" | sed 's|^|  |' >&2
	exit 1
fi

go vet -tags "$tags" ${flags[@]+"${flags[@]}"} "${packages[@]}"

go tool staticcheck -tags "$tags" "${packages[@]}"

if go list -e -tags "$tags" "${packages[@]}" | grep -qx 'hub/workflows\(/.*\)\?'; then
	go tool workflowcheck ./workflows/...
fi
