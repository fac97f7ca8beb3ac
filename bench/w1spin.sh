#!/usr/bin/env bash
# bench/w1spin.sh: issue 41's "one worker ≥ 2× SPIN" on the seven peer
# models of bench/peers.sh, each as one farm-bench call of interleaved
# pairs (A: SPIN's pan, B: wrapcheck check --workers 1), so that the
# machine's drift falls on both: the ratio printed, A/B wall, is SPIN's
# time over ours (w1÷SPIN in speed). SPIN is built as peers.sh builds it
# (spin -a; gcc -w -O2 -DMEMLIM=20000 -DSAFETY -DNOREDUCE; pan -w<bits>
# -m<depth>, the hash bits from the state count), wrapcheck as the README
# installs it (CGO_ENABLED=0 go build -trimpath -ldflags='-s -w') and run
# with --no-symmetry --no-por --workers 1 on the model peers.sh runs.
#
#   bench/w1spin.sh                 # every model; PAIRS=N for each
#   MODELS="mutex5 pipe32" bench/w1spin.sh
#
# Environment: WC (default: this checkout, built), PAIRS (default: 21 for
# the runs under a second, 11 up to three seconds, 5 above), OUT (default:
# a fresh directory under ${TMPDIR:-/tmp}) for the pans. Needs spin, gcc
# and farm-bench.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-w1spin.XXXXXX")}
MODELS=${MODELS:-"pipe32 mutex5 toctou philo mutex6 pipe61 pipe24"}
for c in spin gcc farm-bench; do
	command -v "$c" >/dev/null || { echo "w1spin: $c is missing" >&2; exit 2; }
done
if [ -z "${WC:-}" ]; then
	WC=$OUT/wrapcheck
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$WC" ./cmd/wrapcheck)
fi
hashbits() { awk -v s="$1" 'BEGIN{w=int(log(s*1.5+1)/log(2)+0.999999); if(w<18)w=18; if(w>28)w=28; print w}'; }

# name | pml | spin defines | states | pan flags | wrap | wrapcheck defines | pairs
table() {
	cat <<'EOF'
pipe32|pipeline.pml|-DK=3 -DN=2|970299|-m10000|peers/pipeline.wrap|-D K=3 -D N=2|11
mutex5|mutex.pml|-DN=5|104432|-m52216|peers/mutex.wrap|-D N=5|21
toctou|toctou.pml|-DD=3 -DM=10 -DFIXED|681472|-m10000|peers/toctou.wrap|-D D=3 -D M=10 -D FIXED=1|11
philo|philo.pml|-DN=14|228486|-m229486 -E|peers/philo.wrap|-D N=14 -D DEADLOCK_OK=1|21
mutex6|mutex.pml|-DN=6|2111008|-m1055504|peers/mutex_sym.wrap|-D N=6|11
pipe61|pipeline.pml|-DK=6 -DN=1|11390625|-m10000|peers/pipeline.wrap|-D K=6 -D N=1|5
pipe24|pipeline.pml|-DK=2 -DN=4|13155129|-m10000|peers/pipeline.wrap|-D K=2 -D N=4|5
EOF
}

echo "wrapcheck: $("$WC" version) at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "an unknown commit")"
echo "spin: $(spin -V)"
table | while IFS='|' read -r name pml sdefs states rt wrap wdefs pairs; do
	case " $MODELS " in *" $name "*) ;; *) continue ;; esac
	d=$OUT/$name
	mkdir -p "$d"
	cp "$ROOT/bench/peers/models/$pml" "$d/"
	# shellcheck disable=SC2086 # the defines are words
	(cd "$d" && spin $sdefs -a "$pml" >/dev/null && gcc -w -O2 -DMEMLIM=20000 -DSAFETY -DNOREDUCE -o pan pan.c)
	echo "== $name: SPIN -w$(hashbits "$states") $rt against wrapcheck $wdefs $wrap (${PAIRS:-$pairs} pairs)"
	# shellcheck disable=SC2086
	(cd "$d" && farm-bench -n "${PAIRS:-$pairs}" --timeout 3000 \
		--vs "$WC check --format json --progress off --no-symmetry --no-por --workers 1 $wdefs $ROOT/examples/$wrap" \
		-- ./pan -w"$(hashbits "$states")" $rt | grep -E "^(A|B) wall|^A/B (wall|cpu)")
done
