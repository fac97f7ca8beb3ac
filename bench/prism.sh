#!/usr/bin/env bash
# bench/prism.sh: wrapcheck prob against PRISM's explicit engine
# (-explicit) and its default engine (hybrid) on the peer models of
# bench/prism scaled by their constants past 10^5 states, end to end: one
# process per run, from reading the model to printing the value (model
# construction and solution), wall and CPU seconds and peak RSS by
# /usr/bin/time, and bytes per state (peak RSS over the states each tool
# reports). Prints one table with the medians and the ratios of
# docs/performance.md ("Probabilities against PRISM").
#
#   WRAPCHECK_PRISM=/path/to/prism bench/prism.sh
#   ROUNDS=1 MODELS=brp2560 bench/prism.sh   # one model, one round
#
# Every model runs in ROUNDS interleaved rounds: a round runs wrapcheck,
# PRISM -explicit and PRISM's default engine once each, in the opposite
# order every other round, so that a drift of the machine falls on all of
# them alike. A ratio is the median of the per-round ratios (PRISM's time
# over wrapcheck's in the same round), not a ratio of two bests.
#
# Environment: WRAPCHECK_PRISM (PRISM's launcher; default: prism on
# PATH; PRISM needs Java); ROUNDS (default 3); TIMEOUT per run in seconds
# (default 600: a run past it is reported as skipped and not run again);
# JAVAMAXMEM (default 8g: PRISM's -javamaxmem, the Java heap's limit;
# PRISM's peak RSS is the JVM's, heap and all); PRISM_FLAGS (default
# -maxiters 1000000: brp2560's chain needs more than PRISM's default of
# 10000 iterations, after which PRISM stops without a result); MODELS (default
# "brp2560 brp5120": a space-separated list of the names below); OUT (default: a fresh
# directory under ${TMPDIR:-/tmp}) keeps the scaled models, the raw
# outputs, results.tsv (one line a run) and table.tsv.
#
# The models (bench/prism/*.wrap and *.pm, their constants replaced):
#   brp2560  the bounded retransmission protocol, N = 2560 chunks, MAX = 2
#            retries as brp.wrap (a DTMC, about 1.1e5 states): P(the
#            sender reports a failure), brp.wrap's P1, PRISM's
#            P=? [ F s=5 & T ] (about 0.07: a value that interval
#            iteration's absolute width of 1e-6 resolves)
#   brp5120  the same with N = 5120 (about 2.2e5 states)
#   brp256   the same with N = 256 (about 1.1e4 states): a smoke run of
#            the script, not in the default set
#   coin     the consensus coin of N = 2 processes, K = 1600 (an MDP,
#            about 2e5 states): Pmin of both finishing with coin 0,
#            coin.wrap's AllZero. Not in the default set: its random walk
#            is slow to converge (value iteration contracts by about
#            1 - c/K^2 a sweep); wrapcheck's certified solver answers it
#            in about 5 CPU s, bounds 1.1e-7 wide, but PRISM -explicit
#            with this script's flags did not finish in 300 s (its Prob0
#            alone took 19,205 iterations and 137 s); see
#            docs/design/quantitative.md
#   coinsteps the same coin, K = 1600: the least expected number of
#            steps, coin.wrap's Steps (E_min, and wrapcheck's E_max
#            beside it), PRISM's R{"steps"}min=? [ F "finished" ] (about
#            3.07e7: interval iteration's width is relative for expected
#            costs). Not in the default set, for the reason of coin
#            (docs/design/quantitative.md, round 7)
# wrapcheck computes unbounded queries exactly up to 2000 undecided
# states and by interval iteration (sound bounds, --epsilon 1e-6) past
# them; PRISM's engines by value iteration to its default relative
# threshold (1e-6), which is not a bound. Both values are in the table.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
TIMEOUT=${TIMEOUT:-600}
JAVAMAXMEM=${JAVAMAXMEM:-8g}
PRISM_FLAGS=${PRISM_FLAGS:--maxiters 1000000}
MODELS=${MODELS:-brp2560 brp5120}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-prism.XXXXXX")}
PRISM=${WRAPCHECK_PRISM:-$(command -v prism || true)}
if [ -z "$PRISM" ]; then
	echo "prism.sh: set WRAPCHECK_PRISM to PRISM's launcher, or put prism on PATH" >&2
	exit 2
fi
[ -x /usr/bin/time ] || {
	echo "prism.sh: needs /usr/bin/time (apt-get install time)" >&2
	exit 2
}
mkdir -p "$OUT"
RES=$OUT/results.tsv
: >"$RES"

WC=$OUT/wrapcheck
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$WC" ./cmd/wrapcheck)

{
	echo "date: $(date -u +%FT%TZ)"
	echo "uptime: $(uptime)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
	echo "prism: $("$PRISM" -version 2>&1 | head -1), -javamaxmem $JAVAMAXMEM $PRISM_FLAGS"
	echo "java: $(java -version 2>&1 | head -1)"
	echo "go: $(go version)"
	echo "wrapcheck: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet -- quant machine || echo +dirty)"
	echo "rounds: $ROUNDS"
} >"$OUT/versions.txt"
cat "$OUT/versions.txt" >&2

# model NAME: sets WRAP (file), DEFS (wrapcheck's -D flags), QUERY
# (--only), PM (the scaled .pm, written to OUT), PROP (PRISM's property).
model() {
	case $1 in
	brp256 | brp2560 | brp5120)
		local n=${1#brp}
		WRAP=$ROOT/bench/prism/brp.wrap DEFS="-D N=$n" QUERY=P1 PROP='P=? [ F s=5 & T ]'
		PM=$OUT/$1.pm
		sed -e "s/^const int N = .*;/const int N = $n;/" "$ROOT/bench/prism/brp.pm" >"$PM"
		;;
	coin)
		WRAP=$ROOT/bench/prism/coin.wrap DEFS="-D K=1600" QUERY=AllZero PROP='Pmin=? [ F "finished" & coin0=0 & coin1=0 ]'
		PM=$OUT/coin.pm
		sed -e 's/^const int K = .*;/const int K = 1600;/' "$ROOT/bench/prism/coin.pm" >"$PM"
		;;
	coinsteps)
		WRAP=$ROOT/bench/prism/coin.wrap DEFS="-D K=1600" QUERY=Steps PROP='R{"steps"}min=? [ F "finished" ]'
		PM=$OUT/coinsteps.pm
		sed -e 's/^const int K = .*;/const int K = 1600;/' "$ROOT/bench/prism/coin.pm" >"$PM"
		;;
	*)
		echo "prism.sh: no model $1 (brp256, brp2560, brp5120, coin, coinsteps)" >&2
		exit 2
		;;
	esac
	grep -q "const int" "$PM"
}

# timed LOG CMD...: runs CMD under timeout and /usr/bin/time; sets WALL
# (s), RSS (KiB), CPU (user+sys s) and ST (ok, or why not).
timed() {
	local log=$1 rc=0 u sy
	shift
	/usr/bin/time -f '%e %M %U %S' -o "$log.time" timeout "$TIMEOUT" "$@" >"$log" 2>&1 || rc=$?
	read -r WALL RSS u sy < <(tail -1 "$log.time")
	CPU=$(awk -v a="$u" -v b="$sy" 'BEGIN{printf "%.2f", a+b}')
	case $rc in
	0 | 1) ST=ok ;; # prob exits 1 when a bound is broken: not here, but a value
	124) ST="skipped>${TIMEOUT}s" ;;
	*) ST="rc=$rc" ;;
	esac
}

run_wrapcheck() {
	local log=$OUT/$NAME.wrapcheck.$ROUND.log
	# shellcheck disable=SC2086
	timed "$log" "$WC" prob $DEFS --only "$QUERY" "$WRAP"
	STATES=$(sed -n 's/^states: \([0-9]*\),.*/\1/p' "$log")
	VALUE=$(grep -m1 "^$QUERY: " "$log" | sed 's/ (interval iteration)$//; s/^.*) in \[/[/; s/^.*) = //' || true)
}

run_prism() { # ENGINE (-explicit or "" for the default)
	local log=$OUT/$NAME.prism$1.$ROUND.log
	echo "$PROP" >"$OUT/$NAME.props"
	# shellcheck disable=SC2086
	timed "$log" "$PRISM" "$PM" "$OUT/$NAME.props" $1 -javamaxmem "$JAVAMAXMEM" $PRISM_FLAGS
	STATES=$(sed -n 's/^States: *\([0-9]*\).*/\1/p' "$log" | head -1)
	VALUE=$(sed -n 's/^Result: \([^ ]*\).*/\1/p' "$log" | head -1)
	grep -q '^Result: ' "$log" || [ "$ST" != ok ] || ST=noresult
}

# record TOOL: one line of results.tsv.
record() {
	local bps=-
	[ -n "${STATES:-}" ] && [ "$ST" = ok ] && bps=$(awk -v r="$RSS" -v s="$STATES" 'BEGIN{printf "%.0f", r*1024/s}')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$NAME" "$1" "$ROUND" "${STATES:--}" "$WALL" "$CPU" "$RSS" "$bps" "$ST" "${VALUE:--}" >>"$RES"
	printf '%-8s %-15s round %s: %8s states %8s s wall %8s s cpu %9s KiB %6s B/state %s %s\n' "$NAME" "$1" "$ROUND" "${STATES:--}" "$WALL" "$CPU" "$RSS" "$bps" "$ST" "${VALUE:--}" >&2
}

for NAME in $MODELS; do
	model "$NAME"
	cfgs=(wrapcheck prism-explicit prism-default)
	failed=" "
	for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
		for ((i = 0; i < 3; i++)); do
			if ((ROUND % 2 == 1)); then c=${cfgs[i]}; else c=${cfgs[2 - i]}; fi
			case "$failed" in *" $c "*) continue ;; esac
			STATES= VALUE=
			case $c in
			wrapcheck) run_wrapcheck ;;
			prism-explicit) run_prism -explicit ;;
			prism-default) run_prism "" ;;
			esac
			record "$c"
			[ "$ST" = ok ] || failed+="$c "
		done
	done
done

# The table: per model and tool the medians of its rounds, and the
# medians of the per-round ratios PRISM / wrapcheck (wall time; > 1:
# wrapcheck is faster).
awk -F'\t' '
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n == 0 ? "-" : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
}
$9 == "ok" {
	k = $1 SUBSEP $2
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	wall[k] = wall[k] " " $5; cpu[k] = cpu[k] " " $6; rss[k] = rss[k] " " $7; bps[k] = bps[k] " " $8
	states[k] = $4; value[k] = $10
	w[$1, $2, $3] = $5
	models[$1] = 1
}
END {
	printf "%-8s %-15s %9s %9s %9s %10s %9s  %s\n", "model", "tool", "states", "wall s", "cpu s", "RSS KiB", "B/state", "value"
	for (i = 1; i <= n; i++) {
		split(order[i], p, SUBSEP)
		printf "%-8s %-15s %9s %9s %9s %10s %9s  %s\n", p[1], p[2], states[order[i]], median(wall[order[i]]), median(cpu[order[i]]), median(rss[order[i]]), median(bps[order[i]]), value[order[i]]
	}
	print ""
	printf "%-8s %-28s %s\n", "model", "ratio (median of rounds)", "wall PRISM / wall wrapcheck"
	for (m in models) for (t = 0; t < 2; t++) {
		tool = t ? "prism-default" : "prism-explicit"; s = ""
		for (r = 1; r <= '"$ROUNDS"'; r++) if (w[m, tool, r] != "" && w[m, "wrapcheck", r] > 0) s = s " " w[m, tool, r] / w[m, "wrapcheck", r]
		if (s != "") printf "%-8s %-28s %.2f\n", m, tool " / wrapcheck", median(s)
	}
}' "$RES" | tee "$OUT/table.tsv"
echo "raw outputs, results.tsv and table.tsv in $OUT" >&2
