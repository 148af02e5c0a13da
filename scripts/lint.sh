#!/usr/bin/env bash
# lint.sh checks formatting (gofmt -l) and runs go vet, on ./... or on the packages given.
#
#   scripts/lint.sh                      # the whole module
#   scripts/lint.sh -tags=integration ./api ./worker
#
# Arguments starting with - are go vet flags; the rest are packages. gofmt looks at every .go
# file in each package's directory, including files excluded by build tags, and not at
# testdata/ or vendor/.
set -euo pipefail

export GOTOOLCHAIN=go1.27.3
cd "$(dirname "${BASH_SOURCE[0]}")/.."

flags=()
packages=()
for arg in "$@"; do
	case $arg in
	-*) flags+=("$arg") ;;
	*) packages+=("$arg") ;;
	esac
done
[[ ${#packages[@]} -gt 0 ]] || packages=(./...)

# -e: list the directory of a package even if it does not compile; vet reports that below.
dirs=$(go list -e -f '{{.Dir}}' "${packages[@]}")
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

go vet ${flags[@]+"${flags[@]}"} "${packages[@]}"
