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
#   BASE=ba8b4f2 bench/bar.sh     # and the old build beside HEAD (commit first)
#
# With BASE (a git revision, or a wrapcheck binary), the speed of the
# build is judged against BASE's in the same run: bench/ab.sh BASE HEAD
# (the quick models unless FULL=1, ROUNDS=${ABROUNDS:-5}, the two builds
# interleaved), then `go run ./bench/bar -ab`: every configuration's
# median CPU ratio new÷old at most 1 + TOL plus the rounding, and every
# count equal. The table against the recorded one is then printed with
# -counts-only: its ratios to the peers move with the machine's speed
# from hour to hour (the peers' runs and ours do not move alike), which
# the A/B cancels, so there only the counts decide.
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
if [ -z "${BASE:-}" ]; then
	(cd "$ROOT" && go run ./bench/bar -tol "$TOL" bench/peers/latest.tsv "$TABLE") || exit 1
	exit "$rc"
fi
(cd "$ROOT" && go run ./bench/bar -tol "$TOL" -counts-only bench/peers/latest.tsv "$TABLE") || rc=1
quick=1
[ "${FULL:-0}" = 1 ] && quick=0
AB=$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-bar-ab.XXXXXX")
echo
echo "the old build beside the new: bench/ab.sh $BASE HEAD"
OUT=$AB QUICK=$quick ROUNDS=${ABROUNDS:-5} "$ROOT/bench/ab.sh" "$BASE" HEAD >"$AB/ab.md" || rc=1
(cd "$ROOT" && go run ./bench/bar -tol "$TOL" -ab "$AB/ab.tsv") || rc=1
exit "$rc"
