#!/usr/bin/env bash
# Builds the release binaries of wrapcheck: static (CGO_ENABLED=0), without
# the build paths (-trimpath) or the symbol table, for linux, darwin and
# windows on amd64 and arm64, named wrapcheck-GOOS-GOARCH (.exe on
# windows), with their SHA-256 sums in SHA256SUMS (sha256sum's format).
# The release workflow (.github/workflows/release.yml) runs it on a tag;
# the GitHub Action (action.yml, .ci/install.sh) downloads the binary of
# its own tag and checks it against SHA256SUMS.
#
# Usage: .ci/release.sh VERSION OUTDIR [GOOS/GOARCH...]
# (the targets default to all six). VERSION is linked in as main.version.
set -euo pipefail
version="${1:?usage: release.sh VERSION OUTDIR [GOOS/GOARCH...]}"
out="${2:?usage: release.sh VERSION OUTDIR [GOOS/GOARCH...]}"
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
fi
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
names=()
for t in "${targets[@]}"; do
	goos=${t%/*} goarch=${t#*/}
	name="wrapcheck-$goos-$goarch"
	[ "$goos" = windows ] && name="$name.exe"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
		-ldflags="-s -w -X main.version=$version" -o "$out/$name" ./cmd/wrapcheck
	names+=("$name")
done
(cd "$out" && sha256sum "${names[@]}" > SHA256SUMS)
