#!/usr/bin/env bash
# Puts the wrapcheck of the GitHub Action's own version in WRAPCHECK_BIN
# (a directory), for action.yml; also usable outside GitHub.
#
#   .ci/install.sh release   the release binary of WRAPCHECK_REF, when it
#                            is a release tag (vMAJOR.MINOR.PATCH...) of
#                            WRAPCHECK_REPO: downloaded with SHA256SUMS,
#                            installed only when its checksum matches; it
#                            prints installed=true or installed=false (and
#                            appends it to $GITHUB_OUTPUT when that is set)
#   .ci/install.sh build     builds cmd/wrapcheck from the checkout this
#                            script lies in (the action's own ref): static,
#                            -trimpath, version WRAPCHECK_REF
#   .ci/install.sh key       prints key=... for the build cache: the OS,
#                            the architecture, the Go version and a hash of
#                            the module's source (appended to $GITHUB_OUTPUT)
#
# Environment: WRAPCHECK_BIN (required), WRAPCHECK_REF (the action's ref,
# github.action_ref), WRAPCHECK_REPO (default wrapcheck/wrapcheck),
# WRAPCHECK_RELEASES (the download base URL, default
# https://github.com/$WRAPCHECK_REPO/releases/download).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="${WRAPCHECK_BIN:?WRAPCHECK_BIN: the directory to install wrapcheck in}"
ref="${WRAPCHECK_REF:-}"
repo="${WRAPCHECK_REPO:-wrapcheck/wrapcheck}"
base="${WRAPCHECK_RELEASES:-https://github.com/$repo/releases/download}"

output() {
	echo "$1"
	if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "$1" >> "$GITHUB_OUTPUT"; fi
}

target() {
	local os arch
	case "$(uname -s)" in
	Linux) os=linux ;; Darwin) os=darwin ;; MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;; *) return 1 ;;
	esac
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) return 1 ;;
	esac
	echo "$os-$arch"
}

sha256() {
	if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

exe() { case "$1" in windows-*) echo .exe ;; esac; }

case "${1:-}" in
release)
	if ! [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
		echo "wrapcheck: the action's ref ${ref:-(none)} is no release tag: building it"
		output installed=false; exit 0
	fi
	t=$(target) || { echo "wrapcheck: no release binary for $(uname -s) $(uname -m): building it"; output installed=false; exit 0; }
	name="wrapcheck-$t$(exe "$t")"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if ! curl -fsSL --retry 3 -o "$tmp/SHA256SUMS" "$base/$ref/SHA256SUMS" ||
		! curl -fsSL --retry 3 -o "$tmp/$name" "$base/$ref/$name"; then
		echo "wrapcheck: release $ref has no $name: building it"
		output installed=false; exit 0
	fi
	want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1 }' "$tmp/SHA256SUMS")
	got=$(sha256 "$tmp/$name")
	if [ -z "$want" ] || [ "$want" != "$got" ]; then
		echo "wrapcheck: $name of release $ref does not match its SHA256SUMS (want ${want:-none}, got $got)" >&2
		exit 1
	fi
	mkdir -p "$bin"
	install -m 0755 "$tmp/$name" "$bin/wrapcheck$(exe "$t")"
	echo "wrapcheck: release $ref, $name, sha256 $got"
	output installed=true
	;;
build)
	mkdir -p "$bin"
	cd "$root"
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${ref:-(devel)}" -o "$bin/" ./cmd/wrapcheck
	"$bin/wrapcheck" version
	;;
key)
	cd "$root"
	# The action's checkout is a tarball, not a clone: hash the files.
	sum=$(find . -path ./web/node_modules -prune -o -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -print |
		LC_ALL=C sort | while read -r f; do printf '%s  %s\n' "$(sha256 "$f")" "$f"; done | sha256 - | cut -c1-16)
	output "key=wrapcheck-$(target || uname -sm | tr ' ' -)-$(go env GOVERSION)-$sum"
	;;
*)
	echo "usage: install.sh release|build|key" >&2
	exit 2
	;;
esac
