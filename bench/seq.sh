#!/usr/bin/env bash
# bench/seq.sh: instructions per state of a queue written as a sequence
# (bench/seq/queue_seq.wrap, seq[N] of T) and as an array and a length
# counter (bench/seq/queue_array.wrap), the method of
# docs/design/search.md: valgrind --tool=callgrind on a CGO_ENABLED=0
# build run with GODEBUG=asyncpreemptoff=1, one worker, no reductions, on
# two sizes of each model (M=4 and M=5 values, N=6), the difference of the
# totals over the difference of the states (75,811), so that start-up
# and compilation cancel. Both models reach the same states.
#
#   bench/seq.sh            # the working tree's build
#   WRAPCHECK=path bench/seq.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
BIN=${WRAPCHECK:-$OUT/wrapcheck}
if [ -z "${WRAPCHECK:-}" ]; then
	(cd "$ROOT" && CGO_ENABLED=0 go build -o "$BIN" ./cmd/wrapcheck)
fi
for model in queue_seq queue_array; do
	total=()
	states=()
	for m in 4 5; do
		GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$model.$m" \
			"$BIN" check --workers 1 --no-symmetry --no-por -D M=$m "$ROOT/bench/seq/$model.wrap" >"$OUT/out" 2>/dev/null || true
		states+=("$(sed -n 's/^\([0-9]*\) states,.*/\1/p' "$OUT/out")")
		total+=("$(sed -n 's/^summary: //p' "$OUT/cg.$model.$m")")
	done
	echo "$model: ${states[0]} and ${states[1]} states, $(((total[1] - total[0]) / (states[1] - states[0]))) instructions per state"
done
