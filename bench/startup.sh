#!/usr/bin/env bash
# bench/startup.sh: the start-up figures of docs/performance.md ("Start-up"):
# wall and CPU time of one-shot wrapcheck processes on the README example,
# for the default build (go build: dynamically linked when cgo is on) and
# the static one (CGO_ENABLED=0 go build -trimpath -ldflags='-s -w', as the
# GitHub Action installs it), and the static builds of other revisions
# (REVS), all interleaved.
#
#   bench/startup.sh                     # 200 runs of each command and build
#   RUNS=50 bench/startup.sh
#   REVS="main 6ce564b" bench/startup.sh # also the static builds of these revisions
#
# Prints, per command and build: wall time min / p25 / median and the
# median CPU time (user+system, the steadier figure on a shared machine),
# then perf stat's task-clock and page faults when perf is installed, and
# the package initialisers of GODEBUG=inittrace=1 `wrapcheck version`: the
# sum over packages of each package's minimum over 21 runs (the noise of a
# shared machine only adds), and that sum per module, largest first.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-200}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/wrapcheck-startup.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
SPEC=$ROOT/docs/testdata/readme/toctou.wrap
cd "$ROOT"
go build -o "$OUT/dynamic" ./cmd/wrapcheck
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$OUT/static" ./cmd/wrapcheck
builds=(dynamic static)
for rev in ${REVS:-}; do
  name=static@$(git rev-parse --short "$rev")
  mkdir "$OUT/src-$name"
  git archive "$rev" | tar -x -C "$OUT/src-$name"
  (cd "$OUT/src-$name" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$OUT/$name" ./cmd/wrapcheck)
  builds+=("$name")
done
for b in "${builds[@]}"; do
  printf '%s: %s bytes, %s packages\n' "$b" "$(stat -c %s "$OUT/$b")" \
    "$(GODEBUG=inittrace=1 "$OUT/$b" version 2>&1 >/dev/null | grep -c '^init ')"
done

python3 - "$RUNS" "$OUT" "$SPEC" "${builds[@]}" <<'PY'
import collections, os, resource, statistics, subprocess, sys, time
runs, out, spec, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
cmds = [("version", ["version"]), ("check", ["check", spec])]
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
print(f"{'command':8} {'build':16} {'wall min':>9} {'p25':>7} {'median':>7} {'cpu median':>11}  (ms, {runs} runs each)")
for c, _ in cmds:
    for b in builds:
        w, cpu = res[(c, b)]
        w = sorted(w)
        print(f"{c:8} {b:16} {w[0]:9.2f} {w[len(w)//4]:7.2f} {statistics.median(w):7.2f} {statistics.median(cpu):11.2f}")

def module(pkg):
    parts = pkg.split("/")
    if "." not in parts[0]:
        return "std"
    if parts[0] in ("github.com", "golang.org", "google.golang.org", "go.opentelemetry.io"):
        return "/".join(parts[:2])
    return parts[0]

for b in builds:
    mins = {}
    for _ in range(21):
        p = subprocess.run([f"{out}/{b}", "version"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env=dict(os.environ, GODEBUG="inittrace=1"), text=True)
        for line in p.stderr.splitlines():
            f = line.split()
            if len(f) > 4 and f[0] == "init":
                mins[f[1]] = min(mins.get(f[1], float("inf")), float(f[4]))
    per = collections.defaultdict(lambda: [0.0, 0])
    for pkg, t in mins.items():
        per[module(pkg)][0] += t
        per[module(pkg)][1] += 1
    top = sorted(per.items(), key=lambda kv: -kv[1][0])[:6]
    print(f"package init ({b}): {len(mins)} packages, {sum(mins.values()):.2f} ms; "
          + ", ".join(f"{m} {t:.2f} ({n})" for m, (t, n) in top))
PY

if command -v perf >/dev/null; then
  for b in "${builds[@]}"; do
    for c in version "check $SPEC"; do
      # shellcheck disable=SC2086 # $c is the command's words
      { perf stat -r 50 -e task-clock,page-faults "$OUT/$b" $c 2>&1 >/dev/null || true; } |
        awk -v l="$b ${c%% *}" '/task-clock/ {t=$1} /page-faults/ {p=$1} END {printf "perf stat %-22s task-clock %s ms, %s page faults\n", l, t, p}'
    done
  done
fi
