#!/usr/bin/env bash
# bench/cluster.sh: the simulated cluster of docs/distributed.md
# ("A model of N machines"). Runs `wrapcheck check --store file://...
# --workers-local N` on examples/peers/pipeline.wrap -D K=3 -D N=2
# --no-symmetry --no-por (970,299 states, 31 levels) for every N of NS and
# every store latency of LATS (the store URL's latency=D: each operation
# of the store takes D longer), each worker logging its store operations
# (WRAPCHECK_STORE_LOG: start, end, process CPU, bytes, records), checks
# that every report is check's byte for byte (the seconds and workers
# fields aside), and runs `go run ./bench/cluster`, which prints per run
# the measured figures beside the model's (a level's CPU from the
# workers' logs, its round trips on the critical path from the code,
# polling from the logs) and the model's speed-ups for the pipeline of
# K=4 (96,059,601 states) on N = 4, 16 and 64 machines.
#
#   bench/cluster.sh                        # NS="1 2 4" LATS="0 5 20 50"
#   NS="1 2 4 8" LATS="0 20" bench/cluster.sh
#   DIR=OUT bench/cluster.sh                # the model on runs already made
#   RECORD=1 bench/cluster.sh               # also write bench/cluster/testdata/runs.tsv
#   PART='run[Run1]' NS="2 4 8" LATS=0 bench/cluster.sh   # workers by run 1's state
#
# Environment: NS, LATS (milliseconds); PART, the check's --partition
# (default: none, the whole state); OUT (default: a fresh directory
# under ${TMPDIR:-/tmp}) keeps each run's report, time and logs; WC
# (default: this checkout built as the README installs it) the binary.
# Wall time and CPU time (user + system, the workers included) are
# /usr/bin/time's. The runs share this machine's cores: the model takes
# the CPU of each worker from its log, not the wall time, and the wall
# time only to check the latency term (sleeping takes no core).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${DIR:-}" ]; then
	cd "$ROOT" && exec go run ./bench/cluster "$DIR"
fi
NS=${NS:-1 2 4}
LATS=${LATS:-0 5 20 50}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-cluster.XXXXXX")}
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "cluster.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
if [ -z "${WC:-}" ]; then
	WC=$OUT/wrapcheck
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$WC" ./cmd/wrapcheck)
fi
SPEC=(--no-symmetry --no-por -D K=3 -D N=2 examples/peers/pipeline.wrap)
PARTS=()
[ -z "${PART:-}" ] || PARTS=(--partition "$PART")
{
	echo "date: $(date -u +%FT%TZ)"
	echo "uptime: $(uptime)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
	echo "partition: ${PART:-the whole state}"
	echo "wrapcheck: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet -- cluster cmd || echo +dirty)"
} | tee "$OUT/versions.txt" >&2

# blank: a report with its timing and worker count blanked.
blank() { sed -E 's/"seconds": [0-9.]+/"seconds": 0/; s/"workers": [0-9]+/"workers": 0/' "$1"; }

(cd "$ROOT" && "$WC" check --format json --progress off --workers 1 "${SPEC[@]}") >"$OUT/check.json" || [ $? = 0 ]
blank "$OUT/check.json" >"$OUT/check.blank"

# The level profile of one run of the pipeline (K=1): its states per
# level, which bench/cluster convolves into the profiles of K runs.
mkdir -p "$OUT/profile/log"
(cd "$ROOT" && WRAPCHECK_STORE_LOG=$OUT/profile/log "$WC" check --format json --progress off \
	--store "file://$OUT/profile/st?create_dir=1" --no-symmetry --no-por -D K=1 -D N=2 examples/peers/pipeline.wrap) >"$OUT/profile/out.json"

: >"$OUT/runs.tsv"
for lat in $LATS; do
	for n in $NS; do
		d=$OUT/N$n-L$lat
		rm -rf "$d"
		mkdir -p "$d/log"
		rc=0
		(cd "$ROOT" && WRAPCHECK_STORE_LOG=$d/log /usr/bin/time -f '%e %U %S' -o "$d/time" \
			"$WC" check --format json --progress off --store "file://$d/st?create_dir=1&latency=${lat}ms" \
			--workers-local "$n" ${PARTS[@]+"${PARTS[@]}"} "${SPEC[@]}") >"$d/out.json" || rc=$?
		read -r wall u s <"$d/time"
		st=ok
		[ $rc = 0 ] || st="rc=$rc"
		[ $st != ok ] || blank "$d/out.json" | cmp -s - "$OUT/check.blank" || st=differs-from-check
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$lat" "$wall" "$(awk -v a="$u" -v b="$s" 'BEGIN{printf "%.2f", a+b}')" "$st" "N$n-L$lat" |
			tee -a "$OUT/runs.tsv" >&2
		rm -rf "$d/st"
	done
done
echo "runs: $OUT" >&2
cd "$ROOT"
if [ -n "${RECORD:-}" ]; then
	go run ./bench/cluster -record bench/cluster/testdata/runs.tsv "$OUT"
else
	go run ./bench/cluster "$OUT"
fi
