#!/bin/sh
# Records PRISM's answers on the peer models into bench/prism/results.json,
# which TestPRISMRecorded compares wrapcheck's values with where PRISM
# cannot run (CI). Needs PRISM: WRAPCHECK_PRISM=/path/to/prism (the
# launcher) or prism on PATH, and Java.
#
#   WRAPCHECK_PRISM=/path/to/prism bench/prism/record.sh
set -eu
cd "$(dirname "$0")/../.."
if [ -z "${WRAPCHECK_PRISM:-}" ] && ! command -v prism >/dev/null 2>&1; then
	echo "record.sh: set WRAPCHECK_PRISM to PRISM's launcher, or put prism on PATH" >&2
	exit 2
fi
WRAPCHECK_UPDATE=1 go test -count=1 -run '^TestPRISM$' ./quant/
git diff --stat -- bench/prism/results.json
