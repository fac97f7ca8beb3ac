#!/usr/bin/env python3
"""Per-state CPU of one worker over a file:// store against the local search.

  bench/perstate.py ROUNDS WRAPCHECK [WRAPCHECK2 ...]

Issue 41's target for the partitioned search (docs/distributed.md, "One
worker against the local search"). Each round runs, for each binary in
turn, four commands one after the other on examples/peers/pipeline.wrap
with --no-symmetry --no-por: one worker over a fresh file:// store and
`check --workers 1`, each at K=3 N=2 (970,299 states) and at K=2 N=3
(363,609 states). A process's CPU is its user + system time from wait4.
The per-state CPU of a mode is its K=3 N=2 run's CPU minus its K=2 N=3
run's (so that start-up, parsing and compiling cancel); the round's
ratio is the worker's over the local search's. Printed per binary: the
median ratio and every round's, the median ratio of the whole processes
(K=3 N=2), and the median CPU differences in seconds. Run from the
repository's root. The stores go under a temporary directory, removed
at the end (not between runs: a removal's work in the file system would
fall on the next run).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

MODEL = os.path.join("examples", "peers", "pipeline.wrap")


def run(args):
    """The CPU seconds (user + system) of the finished process of args."""
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(args)}: exit {code}\n{err}")
    return ru.ru_utime + ru.ru_stime


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds, bins = int(sys.argv[1]), sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix="perstate-")
    res = {b: [] for b in bins}
    n = 0
    try:
        for _ in range(rounds):
            for b in bins:
                c = {}
                for k, nn in (("3", "2"), ("2", "3")):
                    n += 1
                    base = [b, "check", "--format", "json", "--progress", "off", "--no-symmetry", "--no-por",
                            "-D", "K=" + k, "-D", "N=" + nn, MODEL]
                    store = "file://" + os.path.join(tmp, str(n), "st") + "?create_dir=1"
                    c["w" + k] = run(base[:8] + ["--store", store] + base[8:])
                    c["l" + k] = run(base[:8] + ["--workers", "1"] + base[8:])
                w, l = c["w3"] - c["w2"], c["l3"] - c["l2"]
                res[b].append((w / l, c["w3"] / c["l3"], w, l))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for b in bins:
        d = res[b]
        print(f"{b}: per-state CPU worker/local {statistics.median(x[0] for x in d):.3f} "
              f"[{' '.join(f'{x[0]:.2f}' for x in d)}]; whole processes {statistics.median(x[1] for x in d):.3f}; "
              f"per-state CPU s worker {statistics.median(x[2] for x in d):.3f} local {statistics.median(x[3] for x in d):.3f}")


if __name__ == "__main__":
    main()
