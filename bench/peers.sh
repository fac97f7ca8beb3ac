#!/usr/bin/env bash
# bench/peers.sh: run the peer models (bench/peers/models) in SPIN,
# Rumur and wrapcheck (examples/peers/*.wrap), check that the state and
# transition counts agree, and print one table with the ratios of the
# targets in docs/performance.md.
#
#   bench/peers.sh            # full set (15-30 min on the 2-core machine)
#   bench/peers.sh --quick    # small models only
#
# Every model runs in ROUNDS interleaved rounds: a round runs each of the
# model's configurations once, SPIN's, Rumur's and wrapcheck's, one after
# the other, in the opposite order every other round, so that a drift of
# the machine falls on all of them alike. The table gives per
# configuration the median of its rounds (wall and CPU seconds, peak RSS)
# and per ratio the median of its per-round ratios: the ratio of two
# configurations' times in the same round (a pair), not of two bests,
# which flatter whichever tool had the luckier run.
#
# Environment: ROUNDS (default 3); RUMUR_ROUNDS (default 1: the rounds
# that run Rumur without symmetry, which takes minutes on the larger
# models; its ratio is then of round 1's pair); TIMEOUT per run in
# seconds (default 120: a run beyond it is reported as skipped and not
# run again); OUT (default: a fresh directory under ${TMPDIR:-/tmp})
# keeps the raw outputs, results.tsv (one line a run, its round last)
# and table.tsv (the table's figures, as bench/bar.sh compares them);
# PEERS (default bench/peers: the folder that holds models/).
#
# SPIN: spin -a; gcc -w -O2 -DMEMLIM=20000 -DSAFETY -DNOREDUCE (POR row: no
# -DNOREDUCE); ./pan -w<bits> -m<depth> (hash bits from the expected state
# count, depth limit above the model's deepest state). Rumur:
# rumur --threads T --symmetry-reduction off|heuristic --deadlock-detection
# off; gcc -O2 -mcx16 -pthread. wrapcheck: CGO_ENABLED=0 go build -trimpath
# -ldflags='-s -w' (as the README installs it), then `check` with
# --no-symmetry --no-por --workers 1|2 (full), the same with --workers 1
# --hash-compact (the "B/state compact" column and the "compact" line), or
# the defaults (symmetry and POR on, one worker per core). Wall time, CPU
# time (user + system) and peak RSS: /usr/bin/time.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PEERS=${PEERS:-$ROOT/bench/peers}
ROUNDS=${ROUNDS:-3}
RUMUR_ROUNDS=${RUMUR_ROUNDS:-1}
TIMEOUT=${TIMEOUT:-120}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-peers.XXXXXX")}
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
mkdir -p "$OUT"
RES=$OUT/results.tsv
: >"$RES"

need() { # need CMD PKG: install the Debian package if CMD is missing
	command -v "$1" >/dev/null 2>&1 && return
	echo "installing $2 (apt-get)" >&2
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq >&2 && $sudo apt-get install -y -qq "$2" >&2
}
need spin spin
need rumur rumur
need gcc gcc
[ -x /usr/bin/time ] || need time time

WC=$OUT/wrapcheck
# The build the README installs: static, no symbol table. Peak RSS counts
# the binary's mapped pages, and a cgo build adds libc's (1.3 MB).
(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$WC" ./cmd/wrapcheck)

{
	echo "date: $(date -u +%FT%TZ)"
	echo "uptime: $(uptime)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
	echo "spin: $(spin -V 2>&1 | head -1)"
	echo "rumur: $(rumur --version 2>&1 | head -1)"
	echo "gcc: $(gcc --version | head -1)"
	echo "go: $(go version)"
	echo "wrapcheck: $(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet -- checker machine || echo +dirty)"
	echo "rounds: $ROUNDS (Rumur without symmetry: $RUMUR_ROUNDS)"
} >"$OUT/versions.txt"
cat "$OUT/versions.txt" >&2

# timed DIR LOG CMD...: run CMD in DIR under timeout and /usr/bin/time;
# sets WALL (s), RSS (KiB) and CPU (user+sys s), returns 124 on timeout.
timed() {
	local dir=$1 log=$2
	shift 2
	local rc=0
	(cd "$dir" && /usr/bin/time -f '%e %M %U %S' -o "$log.time" timeout "$TIMEOUT" "$@") >"$log" 2>&1 || rc=$?
	local u sy
	read -r WALL RSS u sy < <(tail -1 "$log.time")
	CPU=$(awk -v a="$u" -v b="$sy" 'BEGIN{printf "%.2f", a+b}')
	return $rc
}

# record MODEL PARAMS TOOL CONFIG STATES EDGES WALL RSS STATUS (CPU and
# ROUND appended)
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" "$CPU" "$ROUND" >>"$RES"
	printf '%-9s %-10s %-6s %-12s %10s %10s %8s s %8s KiB %s cpu %s s round %s\n' "$@" "$CPU" "$ROUND" >&2
}

# rounds MODEL PARAMS CONFIG...: runs the configurations in ROUNDS
# interleaved rounds, in the opposite order every other round, and
# records every run. A configuration is "TOOL NAME ROUNDS FN ARGS..." (one
# word, its fields separated by |): FN sets S E WALL RSS CPU ST; it runs
# in the first ROUNDS rounds only ("all": every round), and not again
# after a run that did not end ok.
rounds() {
	local model=$1 params=$2 c i n tool name only
	shift 2
	local cfgs=("$@") failed=" "
	n=${#cfgs[@]}
	for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
		for ((i = 0; i < n; i++)); do
			if ((ROUND % 2 == 1)); then c=${cfgs[i]}; else c=${cfgs[n - 1 - i]}; fi
			IFS='|' read -r -a f <<<"$c"
			tool=${f[0]} name=${f[1]} only=${f[2]}
			[ "$only" = all ] || ((ROUND <= only)) || continue
			case "$failed" in *" $tool/$name "*) continue ;; esac
			"${f[@]:3}"
			record "$model" "$params" "$tool" "$name" "$S" "$E" "$WALL" "$RSS" "$ST"
			[ "$ST" = ok ] || failed+="$tool/$name "
		done
	done
}

hashbits() { awk -v s="$1" 'BEGIN{w=int(log(s*1.5+1)/log(2)+0.999999); if(w<18)w=18; if(w>28)w=28; print w}'; }

# spin_one PML DEFS CFLAGS RTFLAGS
spin_one() {
	local pml=$1 defs=$2 cflags=$3 rt=$4 d
	d=$OUT/spin_${1%.pml}_${2// /_}_${3// /_}
	mkdir -p "$d"
	if [ ! -x "$d/pan" ]; then
		cp "$PEERS/models/$pml" "$d/"
		(cd "$d" && spin $defs -a "$pml" >/dev/null && gcc -w -O2 -DMEMLIM=20000 $cflags -o pan pan.c)
	fi
	ST=ok
	local log=$d/out.$ROUND.log
	timed "$d" "$log" ./pan $rt || ST=$([ $? = 124 ] && echo "skipped>${TIMEOUT}s" || echo "rc!=0")
	S=$(sed -nE 's/^ *([0-9]+) states, stored.*/\1/p' "$log" | head -1)
	E=$(sed -nE 's/^ *([0-9]+) transitions \(= stored\+matched\).*/\1/p' "$log" | head -1)
	[ -n "$E" ] && E=$((E - 1))
	grep -q "errors: 0" "$log" || { [ "$ST" = ok ] && ST=error; }
	grep -q "max search depth too small" "$log" && ST=depth-limit
	return 0
}

# rumur_one MODEL.m CONSTS(name=value ...) THREADS SYM
rumur_one() {
	local m=$1 consts=$2 threads=$3 sym=$4 d kv
	d=$OUT/rumur_${1%.m}_${2// /_}_t${3}_$4
	mkdir -p "$d"
	if [ ! -x "$d/v" ]; then
		cp "$PEERS/models/$m" "$d/model.m"
		for kv in $consts; do
			sed -i -E "0,/^(\s*${kv%%=*}\s*:\s*)[^;]*;/s//\1${kv#*=};/" "$d/model.m"
		done
		(cd "$d" && rumur -q --threads "$threads" --symmetry-reduction "$sym" --deadlock-detection off -o v.c model.m &&
			gcc -O2 -mcx16 -pthread -o v v.c)
	fi
	ST=ok
	local log=$d/out.$ROUND.log
	timed "$d" "$log" ./v || ST=$([ $? = 124 ] && echo "skipped>${TIMEOUT}s" || echo "rc!=0")
	S=$(sed -nE 's/^[^0-9]*([0-9]+) states, ([0-9]+) rules fired.*/\1/p' "$log" | tail -1)
	E=$(sed -nE 's/^[^0-9]*([0-9]+) states, ([0-9]+) rules fired.*/\2/p' "$log" | tail -1)
	grep -q "No error found" "$log" || { [ "$ST" = ok ] && ST=error; }
	return 0
}

# wc_one FILE DEFS FLAGS...
wc_one() {
	local f=$1 defs=$2 d
	shift 2
	d=$OUT/wc_$(basename "$f" .wrap)_${defs// /_}_$(echo "$*" | tr -d ' -')
	mkdir -p "$d"
	local dargs=() kv
	for kv in $defs; do dargs+=(-D "$kv"); done
	ST=ok
	local log=$d/out.$ROUND.log
	timed "$ROOT" "$log" "$WC" check --format json "${dargs[@]}" "$@" "examples/$f" ||
		ST=$([ $? = 124 ] && echo "skipped>${TIMEOUT}s" || echo "rc!=0")
	S=$(sed -nE 's/.*"states": ([0-9]+).*/\1/p' "$log" | head -1)
	E=$(sed -nE 's/.*"transitions": ([0-9]+).*/\1/p' "$log" | head -1)
	grep -q '"verdict": "holds"' "$log" || { [ "$ST" = ok ] && ST=error; }
	return 0
}

# model NAME PARAMS PML PMLDEFS SPINRT M MCONSTS WRAP WRAPDEFS WRAPSYM STATES RUMUR(yes/no) SYM(yes/no)
model() {
	local name=$1 params=$2 pml=$3 pdefs=$4 rt=$5 m=$6 mc=$7 wrap=$8 wdefs=$9 wsym=${10} states=${11} rum=${12} sym=${13}
	local w cfgs=()
	w=$(hashbits "$states")
	cfgs+=("spin|dfs-noreduce|all|spin_one|$pml|$pdefs|-DSAFETY -DNOREDUCE|-w$w $rt")
	cfgs+=("spin|dfs-por|all|spin_one|$pml|$pdefs|-DSAFETY|-w$w $rt")
	if [ "$rum" = yes ]; then
		cfgs+=("rumur|t1-symoff|$RUMUR_ROUNDS|rumur_one|$m|$mc|1|off")
		cfgs+=("rumur|t2-symoff|$RUMUR_ROUNDS|rumur_one|$m|$mc|2|off")
	fi
	if [ "$sym" = yes ]; then
		cfgs+=("rumur|t1-symheur|all|rumur_one|$m|$mc|1|heuristic")
		cfgs+=("rumur|t2-symheur|all|rumur_one|$m|$mc|2|heuristic")
	fi
	cfgs+=("wrapcheck|w1|all|wc_one|$wrap|$wdefs|--no-symmetry|--no-por|--workers|1")
	cfgs+=("wrapcheck|w2|all|wc_one|$wrap|$wdefs|--no-symmetry|--no-por|--workers|2")
	cfgs+=("wrapcheck|w1-compact|all|wc_one|$wrap|$wdefs|--no-symmetry|--no-por|--workers|1|--hash-compact")
	if [ "$sym" = yes ]; then
		cfgs+=("wrapcheck|sym|1|wc_one|$wsym|$wdefs|--no-por")
	fi
	cfgs+=("wrapcheck|reduced|all|wc_one|$wsym|$wdefs")
	rounds "$name" "$params" "${cfgs[@]}"
}

echo "results: $RES" >&2
#     name      params      pml            pml defs                spin rt     murphi        consts                      wrap (full)          defines                   wrap (reduced)       states    rumur sym
model pipeline "K=3 N=2" pipeline.pml "-DK=3 -DN=2" "-m10000" pipeline.m "K=3 N=2 BUG=false" peers/pipeline.wrap "K=3 N=2" peers/pipeline.wrap 970299 yes yes
model mutex "N=5" mutex.pml "-DN=5" "-m52216" mutex.m "N=5" peers/mutex.wrap "N=5" peers/mutex_sym.wrap 104432 yes yes
model toctou "D=3 M=10" toctou.pml "-DD=3 -DM=10 -DFIXED" "-m10000" toctou.m "D=3 M=10 FIXED=true" peers/toctou.wrap "D=3 M=10 FIXED=1" peers/toctou.wrap 681472 yes yes
model philo "N=14" philo.pml "-DN=14" "-m229486 -E" philo.m "N=14" peers/philo.wrap "N=14 DEADLOCK_OK=1" peers/philo.wrap 228486 yes no
if [ "$QUICK" = 0 ]; then
	model mutex "N=6" mutex.pml "-DN=6" "-m1055504" mutex.m "N=6" peers/mutex_sym.wrap "N=6" peers/mutex_sym.wrap 2111008 yes yes
	model pipeline "K=6 N=1" pipeline.pml "-DK=6 -DN=1" "-m10000" pipeline.m "K=6 N=1 BUG=false" peers/pipeline.wrap "K=6 N=1" peers/pipeline.wrap 11390625 no yes
	model pipeline "K=2 N=4" pipeline.pml "-DK=2 -DN=4" "-m10000" pipeline.m "K=2 N=4 BUG=false" peers/pipeline.wrap "K=2 N=4" peers/pipeline.wrap 13155129 no yes
	for k in 4 5; do # growth series with K=6 N=1 above: 5*10^4, 7.6*10^5, 1.1*10^7 states
		rounds pipeline "K=$k N=1" "wrapcheck|w1|all|wc_one|peers/pipeline.wrap|K=$k N=1|--no-symmetry|--no-por|--workers|1"
	done
fi

uptime >>"$OUT/versions.txt"
python3 "$ROOT/bench/table.py" "$RES" "$OUT/versions.txt" --tsv "$OUT/table.tsv"
