#!/usr/bin/env bash
# bench/var.sh: where the wall time of repeated runs of one binary goes,
# to tell a variance of ours from one of the machine. Each run prints its
# wall time, CPU time (user, system), CPUs utilized (CPU / wall), the
# machine's steal time during the run (a KVM guest's vCPUs waiting for
# the host), context switches, page faults and garbage collections.
# A slow run with the same CPU time but fewer CPUs utilized lost its
# time to scheduling (the other workers' cores, steal); one with more CPU
# time at the same faults and collections ran slower per instruction
# (cache and memory: the last-level cache is shared with the host's
# other guests).
#
#   bench/var.sh BIN [RUNS]    # default: pipeline K=6 N=1, two workers
#   ARGS='-D N=6 examples/peers/mutex_sym.wrap' bench/var.sh BIN 5
set -euo pipefail

[ $# -ge 1 ] || {
	echo "usage: bench/var.sh BIN [RUNS]" >&2
	exit 2
}
BIN=$1
RUNS=${2:-5}
WORKERS=${WORKERS:-2}
ARGS=${ARGS:--D K=6 -D N=1 examples/peers/pipeline.wrap}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-var.XXXXXX")
steal() { awk '/^cpu /{print $9}' /proc/stat; }
hz=$(getconf CLK_TCK)
printf 'run\twall\tuser\tsys\tcpus\tsteal_s\tctxsw\tfaults\tgc\n'
for ((i = 1; i <= RUNS; i++)); do
	s0=$(steal)
	# shellcheck disable=SC2086
	(cd "$ROOT" && GODEBUG=gctrace=1 /usr/bin/time -f '%e %U %S %c %w %R %F' -o "$OUT/time" \
		"$BIN" check --format json --no-symmetry --no-por --workers "$WORKERS" $ARGS) >"$OUT/out" 2>"$OUT/err" || true
	s1=$(steal)
	read -r w u sy ci cv minf majf <"$OUT/time"
	gc=$(grep -c '^gc ' "$OUT/err" || true)
	awk -v i="$i" -v w="$w" -v u="$u" -v sy="$sy" -v st=$(((s1 - s0))) -v hz="$hz" \
		-v cs=$((ci + cv)) -v f=$((minf + majf)) -v gc="$gc" \
		'BEGIN{printf "%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%d\t%d\n", i, w, u, sy, (u+sy)/w, st/hz, cs, f, gc}'
done
