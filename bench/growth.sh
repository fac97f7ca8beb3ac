#!/usr/bin/env bash
# bench/growth.sh: the growth series. Runs bench/growth/growth.wrap (M^4
# states, four transitions per state, one word of state at every M) at
# growing M with `wrapcheck check --workers 1 --no-symmetry --no-por`,
# with and without --hash-compact, checks the counts against the closed
# form, and prints a markdown table: states, wall, CPU (user+sys),
# states per second and per CPU-second, CPU nanoseconds per state net of
# start-up and its ratio to the smallest point, peak RSS, bytes per state.
#
#   bench/growth.sh                                # M = 18 32 56: 10^5 .. 10^7 states
#   MAX=100000000 MEMORY=16GiB TIMEOUT=1800 bench/growth.sh   # up to 10^8 (M = 100)
#   SIZES=178 MAX=2000000000 MODES=compact MEMORY=20GiB TIMEOUT=3600 bench/growth.sh  # 10^9
#
# Environment: SIZES (default "18 32 56 100": the values of M, about
# 10^5, 10^6, 10^7 and 10^8 states; "18 24 32 42 56 75 100" steps by
# about 3x); MAX (default 10000000: the largest state count run); MODES
# (default "plain compact"; "spin": SPIN on growth.pml, breadth-first
# with a bit-state table of 2^min(35, log2(64 states)) bits, its stored
# states printed as it counts them: a bit-state search may miss some);
# REPEAT (default 1: rounds over all points,
# interleaved; per point the run with the least CPU time is kept);
# TIMEOUT per run in seconds (default 600: a run beyond it is reported as
# skipped); MEMORY (default none: passed as --memory; a run that would go
# beyond it stops with exit 3 and is reported as "memory"); OUT (default:
# a fresh directory under ${TMPDIR:-/tmp}) keeps the raw outputs and
# results.tsv; WC (default: this checkout built as the README installs it,
# CGO_ENABLED=0 go build -trimpath -ldflags='-s -w') the binary to run.
#
# CPU time is perf stat's task-clock when perf runs here (millisecond
# resolution), else /usr/bin/time's user + system (10 ms). Each round
# also runs M = 1 (one state): its CPU time, the least over the rounds,
# is the start-up (process, parse, compile, the store's first
# allocation) that "net ns/state" subtracts before dividing by the states.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)

# table FILE...: the markdown table of results: per point the run with
# the least CPU time (a point with no finished run shows its last
# status); the ratios are against the smallest finished point of the
# same mode.
table() {
	awk -F'\t' '
function fmt(n,   s, r) { s = sprintf("%.0f", n); r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } return s r }
{
	k = $2 SUBSEP $1
	if (!(k in st)) { order[++n] = k; runs[k] = 0 }
	runs[k]++
	if ($8 ~ /^ok/ && (st[k] !~ /^ok/ || $6 < c[k])) { s[k] = $3; e[k] = $4; w[k] = $5; c[k] = $6; r[k] = $7; st[k] = $8 }
	else if (st[k] !~ /^ok/) { s[k] = $3; w[k] = $5; c[k] = $6; r[k] = $7; st[k] = $8 }
}
END {
	print "| mode | M | states | transitions | runs | wall s | CPU s | states/s | states/CPU-s | net ns/state | ÷ first | peak RSS MiB | B/state | status |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, kk, SUBSEP); mode = kk[1]; m = kk[2]
		if (m == 1) { base[mode] = (st[k] ~ /^ok/) ? c[k] : 0; printf "| %s | 1 (start-up) | 1 | | %d | %.2f | %.3f | | | | | %.0f | | %s |\n", mode, runs[k], w[k], c[k], r[k] / 1024, st[k]; continue }
		if (st[k] !~ /^ok/) { printf "| %s | %s | %s | | %d | %s | %s | | | | | %.0f | | %s |\n", mode, m, fmt(s[k]), runs[k], w[k], c[k], r[k] / 1024, st[k]; continue }
		sps = (w[k] > 0) ? s[k] / w[k] : 0; spc = (c[k] > 0) ? s[k] / c[k] : 0
		net = (c[k] - base[mode]) * 1e9 / s[k]
		if (!(mode in first)) first[mode] = net
		printf "| %s | %s | %s | %s | %d | %.2f | %.3f | %s | %s | %.0f | %.2f | %.0f | %.1f | %s |\n", mode, m, fmt(s[k]), fmt(e[k]), runs[k], w[k], c[k], fmt(sps), fmt(spc), net, net / first[mode], r[k] / 1024, r[k] * 1024 / s[k], st[k]
	}
}' "$@"
}

[ -z "${TABLE:-}" ] || { table $TABLE; exit; }

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
PERF=()
perf stat -x, -o /dev/null -e task-clock true >/dev/null 2>&1 && PERF=(perf stat -x, -e task-clock -o)

if [ -z "${WC:-}" ]; then
	WC=$OUT/wrapcheck
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$WC" ./cmd/wrapcheck)
fi

{
	echo "date: $(date -u +%FT%TZ)"
	echo "uptime: $(uptime)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
	echo "memory: $(free -g | awk '/^Mem:/{print $2 " GiB total, " $7 " GiB available"}')"
	echo "cpu time: $([ ${#PERF[@]} -gt 0 ] && echo 'perf task-clock' || echo '/usr/bin/time user+sys')"
	echo "go: $(go version 2>/dev/null || echo none)"
	echo "wrapcheck: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet -- machine checker || echo +dirty)"
} >"$OUT/versions.txt"
cat "$OUT/versions.txt" >&2

# spin M LOG: SPIN's point; sets S E WALL CPU RSS ST.
spin_point() {
	local m=$1 log=$2 rc=0 u sy d=$OUT/spin-M$1 bits=10
	command -v spin >/dev/null && command -v gcc >/dev/null || { S= E= WALL= CPU= RSS=0 ST=no-spin; return; }
	while [ $bits -lt 35 ] && [ $((1 << bits)) -lt $((64 * m * m * m * m)) ]; do bits=$((bits + 1)); done
	mkdir -p "$d"
	(cd "$d" && spin -DM="$m" -a "$ROOT/bench/growth/growth.pml" >/dev/null &&
		gcc -w -O2 -DMEMLIM=20000 -DSAFETY -DNOREDUCE -DBFS -DBITSTATE -o pan pan.c)
	(cd "$d" && /usr/bin/time -f '%e %M %U %S' -o "$log.time" timeout "$TIMEOUT" ./pan -w$bits) >"$log" 2>"$log.err" || rc=$?
	read -r WALL RSS u sy < <(tail -1 "$log.time")
	CPU=$(awk -v a="$u" -v b="$sy" 'BEGIN{printf "%.3f", a+b}')
	S=$(awk '/states, stored/{print $1; exit}' "$log")
	E=$(awk '/transitions \(= stored\+matched\)/{print $1; exit}' "$log")
	E=${E:-$(awk '/ transitions /{print $1; exit}' "$log")}
	case $rc in 0) ST=ok ;; 124) ST="skipped>${TIMEOUT}s" ;; *) ST="rc=$rc" ;; esac
	[ "$ST" != ok ] || [ "$S" = $((m * m * m * m)) ] || ST="ok: missed $((m * m * m * m - S))"
}

# one M MODE: run one point; sets S E WALL CPU RSS ST.
one() {
	local m=$1 mode=$2 log=$OUT/M${1}_$2.json rc=0 u sy
	if [ "$mode" = spin ]; then
		spin_point "$m" "$OUT/M${m}_spin.txt"
		return
	fi
	local args=(check --format json --workers 1 --no-symmetry --no-por -D "M=$m")
	[ "$mode" = compact ] && args+=(--hash-compact)
	[ -n "$MEMORY" ] && args+=(--memory "$MEMORY")
	local perf=()
	[ ${#PERF[@]} -gt 0 ] && perf=("${PERF[@]}" "$log.perf")
	(cd "$ROOT" && /usr/bin/time -f '%e %M %U %S' -o "$log.time" timeout "$TIMEOUT" "${perf[@]}" "$WC" "${args[@]}" bench/growth/growth.wrap) >"$log" 2>"$log.err" || rc=$?
	read -r WALL RSS u sy < <(tail -1 "$log.time")
	CPU=$(awk -v a="$u" -v b="$sy" 'BEGIN{printf "%.3f", a+b}')
	if [ ${#perf[@]} -gt 0 ] && grep -q task-clock "$log.perf"; then
		CPU=$(awk -F, '/task-clock/{printf "%.3f", $1 / 1000}' "$log.perf")
	fi
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

# REPEAT rounds over every point, so that a change of the machine's load
# spreads over all points rather than falling on one.
for ((i = 1; i <= REPEAT; i++)); do
	for m in 1 $SIZES; do
		[ $((m * m * m * m)) -le "$MAX" ] || continue
		for mode in $MODES; do
			one "$m" "$mode"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$mode" "$S" "$E" "$WALL" "$CPU" "$RSS" "$ST" "$i" | tee -a "$RES" >&2
		done
	done
done

echo "results: $RES" >&2
table "$RES"
