#!/usr/bin/env bash
# bench/growth.sh: the growth series. Runs bench/growth/growth.wrap (M^4
# states, four transitions per state, one word of state at every M) at
# growing M with `wrapcheck check --workers 1 --no-symmetry --no-por`,
# with and without --hash-compact, checks the counts against the closed
# form, and prints a markdown table: states, wall, CPU (user+sys),
# states per second and per CPU-second, each relative to the smallest
# point of its mode, peak RSS and bytes per state.
#
#   bench/growth.sh                      # M = 18 32 56: 10^5 .. 10^7 states
#   MAX=100000000 MEMORY=18GiB bench/growth.sh   # up to 10^8 (M = 100)
#
# Environment: SIZES (default "18 32 56 100": the values of M, about
# 10^5, 10^6, 10^7 and 10^8 states; "18 24 32 42 56 75 100" steps by
# about 3x); MAX (default 10000000: the largest state count run); MODES
# (default "plain compact"); REPEAT (default 1: runs per point, the one
# with the least CPU time kept); TIMEOUT per run in seconds (default
# 600: a run beyond it is reported as skipped); MEMORY (default none:
# passed as --memory; a run that would go beyond it stops with exit 3
# and is reported as "memory"); OUT (default: a fresh directory under
# ${TMPDIR:-/tmp}) keeps the raw outputs and results.tsv; WC (default:
# go build of this checkout) the binary to run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZES=${SIZES:-18 32 56 100}
MAX=${MAX:-10000000}
MODES=${MODES:-plain compact}
REPEAT=${REPEAT:-1}
TIMEOUT=${TIMEOUT:-600}
MEMORY=${MEMORY:-}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-growth.XXXXXX")}
mkdir -p "$OUT"
RES=$OUT/results.tsv
: >"$RES"
[ -x /usr/bin/time ] || { echo "growth.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }

if [ -z "${WC:-}" ]; then
	WC=$OUT/wrapcheck
	(cd "$ROOT" && go build -o "$WC" ./cmd/wrapcheck)
fi

{
	echo "date: $(date -u +%FT%TZ)"
	echo "uptime: $(uptime)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
	echo "memory: $(free -g | awk '/^Mem:/{print $2 " GiB total, " $7 " GiB available"}')"
	echo "go: $(go version 2>/dev/null || echo none)"
	echo "wrapcheck: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet -- machine checker || echo +dirty)"
} >"$OUT/versions.txt"
cat "$OUT/versions.txt" >&2

# one M MODE: run one point; sets S E WALL CPU RSS ST.
one() {
	local m=$1 mode=$2 log=$OUT/M${1}_$2.json rc=0 u sy
	local args=(check --format json --workers 1 --no-symmetry --no-por -D "M=$m")
	[ "$mode" = compact ] && args+=(--hash-compact)
	[ -n "$MEMORY" ] && args+=(--memory "$MEMORY")
	(cd "$ROOT" && /usr/bin/time -f '%e %M %U %S' -o "$log.time" timeout "$TIMEOUT" "$WC" "${args[@]}" bench/growth/growth.wrap) >"$log" 2>"$log.err" || rc=$?
	read -r WALL RSS u sy < <(tail -1 "$log.time")
	CPU=$(awk -v a="$u" -v b="$sy" 'BEGIN{printf "%.2f", a+b}')
	S=$(sed -nE 's/.*"states": ([0-9]+).*/\1/p' "$log" | head -1)
	E=$(sed -nE 's/.*"transitions": ([0-9]+).*/\1/p' "$log" | head -1)
	case $rc in
	0) ST=ok ;;
	124) ST="skipped>${TIMEOUT}s" ;;
	3) ST=$(grep -q memory "$log" && echo memory || echo incomplete) ;;
	*) ST="rc=$rc" ;;
	esac
	local want=$((m * m * m * m))
	if [ "$ST" = ok ] && { [ "$S" != "$want" ] || [ "$E" != "$((4 * want))" ]; }; then
		ST="count!=closed-form($want)"
	fi
}

for m in $SIZES; do
	[ $((m * m * m * m)) -le "$MAX" ] || continue
	for mode in $MODES; do
		bc="" bS="" bE="" bW="" bR="" bST=""
		for ((i = 0; i < REPEAT; i++)); do
			one "$m" "$mode"
			if [ -z "$bc" ] || awk -v a="$CPU" -v b="$bc" 'BEGIN{exit !(a<b)}'; then
				bc=$CPU bS=$S bE=$E bW=$WALL bR=$RSS bST=$ST
			fi
			[ "$ST" = ok ] || break
		done
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$mode" "$bS" "$bE" "$bW" "$bc" "$bR" "$bST" | tee -a "$RES" >&2
	done
done

echo "results: $RES" >&2
# The table: one row per point, the ratios against the smallest point of
# the same mode that finished.
awk -F'\t' '
function fmt(n,   s, r) { s = sprintf("%d", n); r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } return s r }
BEGIN {
	print "| mode | M | states | transitions | wall s | CPU s | states/s | states/CPU-s | ÷ first | peak RSS MiB | B/state | status |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
}
{
	m = $1; mode = $2; s = $3; e = $4; w = $5; c = $6; r = $7; st = $8
	if (st != "ok") { printf "| %s | %s | %s | | %s | %s | | | | %.0f | | %s |\n", mode, m, fmt(s), w, c, r / 1024, st; next }
	sps = (w > 0) ? s / w : 0; spc = (c > 0) ? s / c : 0
	if (!(mode in first)) first[mode] = spc
	printf "| %s | %s | %s | %s | %.2f | %.2f | %s | %s | %.2f | %.0f | %.1f | ok |\n", mode, m, fmt(s), fmt(e), w, c, fmt(sps), fmt(spc), spc / first[mode], r / 1024, r * 1024 / s
}' "$RES"
