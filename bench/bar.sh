#!/usr/bin/env bash
# bench/bar.sh: the no-regression bar. Runs bench/peers.sh (the --quick
# models unless FULL=1), then compares its table with the recorded one,
# bench/peers/latest.tsv (the table of docs/performance.md "Latest
# figures"), with `go run ./bench/bar`: every ratio (w1÷SPIN, w1÷SPIN cpu,
# w1÷(5·Rumur t1), w2÷w1, peer÷wc) must be at least the recorded one less
# the tolerance, every B/state at most the recorded one plus it, and every
# count equal. It prints one line per figure and exits 1 on a regression
# or a count mismatch (and when peers.sh found the tools disagreeing).
#
#   bench/bar.sh                  # the four small models (a few minutes)
#   FULL=1 bench/bar.sh           # all of them (15-30 minutes on 2 cores)
#   TOL=0.15 bench/bar.sh         # another tolerance (default 0.10)
#   TABLE=OUT/table.tsv bench/bar.sh   # compare a run already made
#
# The tolerance is relative, plus the rounding of the times a figure is
# made of (0.01 s over the time): the ratios of the small models move by
# about ±10% from run to run on an idle machine. On a loaded machine the
# wall-time ratios move more; compare on an idle one, as the recorded
# table was made. Environment of peers.sh (ROUNDS, TIMEOUT, OUT) applies.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOL=${TOL:-0.10}
rc=0
if [ -z "${TABLE:-}" ]; then
	export OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-bar.XXXXXX")}
	args=(--quick)
	[ "${FULL:-0}" = 1 ] && args=()
	"$ROOT/bench/peers.sh" "${args[@]}" || rc=$?
	TABLE=$OUT/table.tsv
	[ -s "$TABLE" ] || {
		echo "bench/bar.sh: bench/peers.sh wrote no $TABLE (exit $rc)" >&2
		exit 1
	}
fi
echo
(cd "$ROOT" && go run ./bench/bar -tol "$TOL" bench/peers/latest.tsv "$TABLE") || exit 1
exit "$rc"
