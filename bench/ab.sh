#!/usr/bin/env bash
# bench/ab.sh: an A/B of two wrapcheck builds on the peer models, the runs
# of the two builds interleaved (A B, then B A, and so on), so that a drift
# of the machine's speed falls on both alike. Every speed change is measured
# with it; its table goes in the commit message.
#
#   bench/ab.sh A B            # A, B: git revisions or wrapcheck binaries
#   ROUNDS=4 bench/ab.sh main HEAD
#   QUICK=1 bench/ab.sh 979d214~1 HEAD   # the --quick models of peers.sh
#
# A revision is exported with git archive and built with go build; a path
# to an executable is used as it is. Each configuration is the one
# bench/peers.sh runs (--no-symmetry --no-por with 1 and 2 workers, with
# --hash-compact, and the defaults). For every configuration the script
# checks that A and B report the same states and transitions, then prints
# the median wall and CPU (user+system) time of each build and the median
# of the per-round ratios B/A: below 1 means B is faster. On a shared
# machine the CPU ratio is the steadier figure.
#
# Environment: ROUNDS (default 3, each one run of A and one of B per
# configuration), QUICK=1 for the small models only, TIMEOUT per run
# (default 300 s), ONLY (an extended regular expression: only the
# configurations whose model name matches), OUT (default a fresh
# directory) keeps ab.tsv.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
QUICK=${QUICK:-0}
ONLY=${ONLY:-.}
TIMEOUT=${TIMEOUT:-300}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-ab.XXXXXX")}
[ $# = 2 ] || {
	echo "usage: bench/ab.sh A B (git revisions or wrapcheck binaries)" >&2
	exit 2
}
mkdir -p "$OUT"

# build NAME REV-OR-BINARY: sets BIN
build() {
	if [ -x "$2" ] && [ -f "$2" ]; then
		BIN=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
		return
	fi
	local src=$OUT/src_$1
	rm -rf "$src"
	mkdir -p "$src"
	(cd "$ROOT" && git archive "$2") | tar -x -C "$src"
	(cd "$src" && go build -o "$OUT/$1" ./cmd/wrapcheck)
	BIN=$OUT/$1
}
build a "$1"
A=$BIN
build b "$2"
B=$BIN
{
	echo "A: $1 ($A)"
	echo "B: $2 ($B)"
	echo "date: $(date -u +%FT%TZ)"
	echo "uptime: $(uptime)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
} | tee "$OUT/versions.txt" >&2

# configuration lines: NAME | FILE | DEFINES | FLAGS
configs() {
	local full=(
		"pipeline K=3 N=2|peers/pipeline.wrap|K=3 N=2"
		"mutex N=5|peers/mutex.wrap|N=5"
		"toctou D=3 M=10|peers/toctou.wrap|D=3 M=10 FIXED=1"
		"philo N=14|peers/philo.wrap|N=14 DEADLOCK_OK=1"
	)
	if [ "$QUICK" = 0 ]; then
		full+=(
			"mutex N=6|peers/mutex_sym.wrap|N=6"
			"pipeline K=2 N=4|peers/pipeline.wrap|K=2 N=4"
		)
	fi
	local m
	for m in "${full[@]}"; do
		echo "$m|--no-symmetry --no-por --workers 1"
		echo "$m|--no-symmetry --no-por --workers 2"
		echo "$m|--no-symmetry --no-por --workers 1 --hash-compact"
	done
	echo "pipeline K=3 N=2|peers/pipeline.wrap|K=3 N=2|"
	echo "mutex N=5|peers/mutex_sym.wrap|N=5|"
	echo "toctou D=3 M=10|peers/toctou.wrap|D=3 M=10 FIXED=1|"
}

# one BIN FILE DEFINES FLAGS: prints "states transitions wall cpu"
one() {
	local bin=$1 file=$2 defs=$3 flags=$4 kv args=() log=$OUT/run.log
	for kv in $defs; do args+=(-D "$kv"); done
	# shellcheck disable=SC2086
	(cd "$ROOT" && /usr/bin/time -f '%e %U %S' -o "$log.time" timeout "$TIMEOUT" \
		"$bin" check --format json "${args[@]}" $flags "examples/$file") >"$log" 2>&1 || true
	local s e w u sy
	s=$(sed -nE 's/.*"states": ([0-9]+).*/\1/p' "$log" | head -1)
	e=$(sed -nE 's/.*"transitions": ([0-9]+).*/\1/p' "$log" | head -1)
	read -r w u sy < <(tail -1 "$log.time")
	echo "${s:-?} ${e:-?} $w $(awk -v a="$u" -v b="$sy" 'BEGIN{printf "%.2f", a+b}')"
}

TSV=$OUT/ab.tsv
: >"$TSV"
for ((r = 0; r < ROUNDS; r++)); do
	while IFS='|' read -r name file defs flags; do
		order="a b"
		[ $((r % 2)) = 1 ] && order="b a"
		for side in $order; do
			bin=$A
			[ "$side" = b ] && bin=$B
			read -r s e w c < <(one "$bin" "$file" "$defs" "$flags")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$name" "$flags" "$side" "$s" "$e" "$w" "$c" >>"$TSV"
		done
	done < <(configs | grep -E "^($ONLY)")
	echo "round $((r + 1)) of $ROUNDS done" >&2
done
uptime >>"$OUT/versions.txt"
echo "raw: $TSV" >&2

python3 - "$TSV" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(dict)
counts = collections.defaultdict(set)
for line in open(sys.argv[1]):
    r, name, flags, side, s, e, w, c = line.rstrip("\n").split("\t")
    rows[(name, flags)][(int(r), side)] = (float(w), float(c))
    counts[(name, flags)].add((s, e))
print("| model | flags | states | A wall s | B wall s | B/A wall | A cpu s | B cpu s | B/A cpu |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
bad = 0
for (name, flags), runs in rows.items():
    cs = counts[(name, flags)]
    states = "/".join(sorted(s for s, _ in cs))
    if len(cs) != 1 or "?" in states:
        bad += 1
        states += " MISMATCH"
    rounds = sorted({r for r, _ in runs})
    aw = [runs[(r, "a")][0] for r in rounds]
    bw = [runs[(r, "b")][0] for r in rounds]
    ac = [runs[(r, "a")][1] for r in rounds]
    bc = [runs[(r, "b")][1] for r in rounds]
    rw = statistics.median(b / a for a, b in zip(aw, bw) if a > 0) if any(aw) else float("nan")
    rc = statistics.median(b / a for a, b in zip(ac, bc) if a > 0) if any(ac) else float("nan")
    print(f"| {name} | {flags or '(defaults)'} | {states} | {statistics.median(aw):.2f} | {statistics.median(bw):.2f} | {rw:.3f} | {statistics.median(ac):.2f} | {statistics.median(bc):.2f} | {rc:.3f} |")
sys.exit(1 if bad else 0)
PY
