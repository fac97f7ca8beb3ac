#!/usr/bin/env bash
# bench/compiled.sh: the compiled mode (`check --compile`) against the
# closure engine and SPIN's pan, one worker, no reductions, in
# interleaved rounds (SPIN, closures, compiled; the order rotates each
# round), on the peer models of issue 22's 1.5x target. Prints each run's
# wall and CPU (user+sys) seconds and, per model, the medians and the
# median of the per-round ratios SPIN/closures and SPIN/compiled (above 1:
# wrapcheck is faster), CPU and wall. It checks that the three agree on
# the state count.
#
#   bench/compiled.sh                      # pipeline K=3 N=2, mutex N=6, 5 rounds
#   ROUNDS=3 ONLY='mutex' bench/compiled.sh
#
# The first --compile of a model builds its binary (go build, tens of
# seconds; cached under the user cache directory), before the rounds.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-5}
ONLY=${ONLY:-.}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-compiled.XXXXXX")}
mkdir -p "$OUT"
command -v spin >/dev/null || { echo "bench/compiled.sh: spin not installed (apt-get install -y spin)" >&2; exit 2; }
WC=$OUT/wrapcheck
(cd "$ROOT" && go build -o "$WC" ./cmd/wrapcheck)
echo "wrapcheck $(cd "$ROOT" && git rev-parse --short HEAD), $(go version | cut -d' ' -f3), $(spin -V | head -1), uptime:$(uptime | sed 's/.*load/ load/')" >&2

# name | pml | spin -D | pan flags | wrap | -D
MODELS="pipeline K=3 N=2|pipeline.pml|-DK=3 -DN=2|-w21 -m10000|peers/pipeline.wrap|-D K=3 -D N=2
mutex N=6|mutex.pml|-DN=6|-w22 -m1055504|peers/mutex_sym.wrap|-D N=6"

# timed LOG CMD...: sets WALL and CPU from /usr/bin/time.
timed() {
	local log=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$log.time" "$@" >"$log" 2>&1
	read -r WALL u s < <(tail -1 "$log.time")
	CPU=$(awk -v a="$u" -v b="$s" 'BEGIN{printf "%.3f", a+b}')
}

median() { sort -g | awk '{a[NR]=$1} END{if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

while IFS='|' read -r name pml sdefs panflags wrap wdefs; do
	echo "$name" | grep -Eq "$ONLY" || continue
	tag=${name// /_}
	d=$OUT/$tag
	mkdir -p "$d"
	cp "$ROOT/bench/peers/models/$pml" "$d/"
	# shellcheck disable=SC2086
	(cd "$d" && spin $sdefs -a "$pml" >/dev/null && gcc -w -O2 -DMEMLIM=20000 -DSAFETY -DNOREDUCE -o pan pan.c)
	# shellcheck disable=SC2206
	wargs=(check --format json --workers 1 --no-symmetry --no-por $wdefs "$ROOT/examples/$wrap")
	"$WC" check --compile "${wargs[@]:1}" >"$d/build.json" 2>"$d/build.err" || true
	: >"$d/rows"
	for ((r = 0; r < ROUNDS; r++)); do
		for k in 0 1 2; do
			case $(((k + r) % 3)) in
			0) # shellcheck disable=SC2086
				(cd "$d" && timed "$d/spin.log" ./pan $panflags)
				read -r WALL u s < <(tail -1 "$d/spin.log.time")
				CPU=$(awk -v a="$u" -v b="$s" 'BEGIN{printf "%.3f", a+b}')
				S=$(sed -nE 's/^ *([0-9]+) states, stored.*/\1/p' "$d/spin.log" | head -1)
				echo "spin $r $WALL $CPU $S" >>"$d/rows" ;;
			1) timed "$d/wc.log" "$WC" "${wargs[@]}" || true
				S=$(grep -oE '"states": *[0-9]+' "$d/wc.log" | head -1 | grep -oE '[0-9]+$')
				echo "closures $r $WALL $CPU $S" >>"$d/rows" ;;
			2) timed "$d/nat.log" "$WC" check --compile "${wargs[@]:1}" || true
				S=$(grep -oE '"states": *[0-9]+' "$d/nat.log" | head -1 | grep -oE '[0-9]+$')
				echo "compiled $r $WALL $CPU $S" >>"$d/rows" ;;
			esac
		done
	done
	sed "s/^/$tag /" "$d/rows" >&2
	if [ "$(awk '{print $5}' "$d/rows" | sort -u | wc -l)" != 1 ]; then
		echo "$name: the state counts differ" >&2
		exit 1
	fi
	for f in 3 4; do
		what=$([ $f = 3 ] && echo wall || echo cpu)
		for e in spin closures compiled; do
			printf '%s %s median %s: %s s\n' "$name" "$e" "$what" "$(awk -v e=$e -v f=$f '$1==e{print $f}' "$d/rows" | median)"
		done
		for e in closures compiled; do
			printf '%s spin/%s %s (median of the rounds): %s\n' "$name" "$e" "$what" "$(awk -v e=$e -v f=$f '{v[$1" "$2]=$f} END{for (r=0; r<'"$ROUNDS"'; r++) printf "%.3f\n", v["spin "r]/v[e" "r]}' "$d/rows" | median)"
		done
	done
done <<<"$MODELS"
