#!/usr/bin/env bash
# bench/startup.sh: the start-up figures of docs/performance.md ("Start-up"):
# wall and CPU time of one-shot wrapcheck processes on the README example,
# for the default build (go build: dynamically linked when cgo is on) and
# the static one (CGO_ENABLED=0 go build -trimpath -ldflags='-s -w', as the
# GitHub Action installs it), the runs of the two builds interleaved.
#
#   bench/startup.sh            # 200 runs of each command and build
#   RUNS=50 bench/startup.sh
#
# Prints, per command and build: wall time min / p25 / median and the
# median CPU time (user+system, the steadier figure on a shared machine),
# then perf stat's task-clock and page faults when perf is installed, and
# the package-init total of GODEBUG=inittrace=1 (median of 21 runs).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-200}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-startup.XXXXXX")
SPEC=docs/testdata/readme/toctou.wrap
cd "$ROOT"
go build -o "$OUT/dynamic" ./cmd/wrapcheck
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$OUT/static" ./cmd/wrapcheck
ls -l "$OUT/dynamic" "$OUT/static" | awk '{print $5, "bytes", $NF}'

python3 - "$RUNS" "$OUT" "$SPEC" <<'PY'
import resource, statistics, subprocess, sys, time
runs, out, spec = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cmds = [("version", ["version"]), ("check", ["check", spec])]
builds = ["dynamic", "static"]
res = {(c, b): ([], []) for c, _ in cmds for b in builds}
for i in range(runs):
    for c, args in cmds:
        for b in (builds if i % 2 == 0 else builds[::-1]):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([f"{out}/{b}"] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            res[(c, b)][0].append(wall * 1e3)
            res[(c, b)][1].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
print(f"{'command':8} {'build':8} {'wall min':>9} {'p25':>7} {'median':>7} {'cpu median':>11}  (ms, {runs} runs each)")
for c, _ in cmds:
    for b in builds:
        w, cpu = res[(c, b)]
        w = sorted(w)
        print(f"{c:8} {b:8} {w[0]:9.2f} {w[len(w)//4]:7.2f} {statistics.median(w):7.2f} {statistics.median(cpu):11.2f}")
PY

if command -v perf >/dev/null; then
  for b in dynamic static; do
    for c in version "check $SPEC"; do
      # shellcheck disable=SC2086 # $c is the command's words
      { perf stat -r 50 -e task-clock,page-faults "$OUT/$b" $c 2>&1 >/dev/null || true; } |
        awk -v l="$b ${c%% *}" '/task-clock/ {t=$1} /page-faults/ {p=$1} END {printf "perf stat %-15s task-clock %s ms, %s page faults\n", l, t, p}'
    done
  done
fi
for b in dynamic static; do
  for _ in $(seq 21); do
    GODEBUG=inittrace=1 "$OUT/$b" version 2>&1 >/dev/null | awk '/^init / {s += $5; n++} END {print s, n}'
  done | sort -n | awk -v b="$b" '{t[NR] = $1; n = $2} END {printf "package init (%s): %d packages, median of %d runs %.2f ms\n", b, n, NR, t[int((NR + 1) / 2)]}'
done
rm -rf "$OUT"
