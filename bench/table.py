#!/usr/bin/env python3
"""Print the peers table of bench/peers.sh from its results.tsv.

  bench/table.py RESULTS.tsv VERSIONS.txt [--tsv OUT.tsv]
  bench/table.py --markdown bench/peers/latest.tsv

The first form prints the table (markdown) and, with --tsv, writes its
rows as a TSV of the columns in COLUMNS (the figures as the table shows
them, "-" where it shows "–"): bench/peers/latest.tsv is that file for
the run of docs/performance.md "Latest figures", and bench/bar.sh
compares a new run's file with it. The second form prints the markdown
table of such a TSV: the table of "Latest figures" is its output.

results.tsv columns: model params tool config states edges wall_s rss_kib
status cpu_s round, one line a run. A configuration's times and RSS are
the medians of its rounds; a ratio of two configurations is the median
over the rounds that ran both of the ratio of their times in that round. Targets (docs/performance.md):
  w1 states/s >= SPIN dfs-noreduce states/s and >= 5x Rumur t1 (TLC x10 proxy);
  w2 >= 1.7x w1; bytes/state (peak RSS / states) <= SPIN's; compact <= 16 B/state;
  reduced wall time < every peer's reduced wall time on symmetric models.
"""
import sys
from collections import OrderedDict

# COLUMNS are the columns of the TSV form of the table, one for each
# column of the markdown table except "reduced" and "best peer reduced",
# which are two each (seconds and states; seconds and configuration).
COLUMNS = ("model params states spin_s rumur_t1_s w1_s w1_rate w1_spin w1_spin_cpu w1_rumur5 w2_s w2_w1 "
           "bps_wc bps_spin bps_compact reduced_s reduced_states peer_reduced_s peer_reduced peer_wc counts").split()

HEADER = ("| model | params | states | SPIN s | Rumur t1 s | wc w1 s | wc w1 states/s | w1÷SPIN | w1÷SPIN cpu | w1÷(5·Rumur t1) | wc w2 s | w2÷w1 | B/state wc | B/state SPIN | B/state compact | reduced: wc s (states) | best peer reduced s | peer÷wc | counts |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def markdown(row):
    """markdown returns the markdown line of one TSV row (a dict of COLUMNS)."""
    def d(k):
        return "–" if row[k] == "-" else row[k]
    states = d("states") if row["states"] == "-" else f"{int(row['states']):,}"
    rate = d("w1_rate") + ("" if row["w1_rate"] == "-" else " M")
    red = d("reduced_s") + ("" if row["reduced_states"] == "-" else f" ({int(row['reduced_states']):,})")
    peer = d("peer_reduced_s") + ("" if row["peer_reduced"] == "-" else f" ({row['peer_reduced']})")
    cells = [row["model"], row["params"], states, d("spin_s"), d("rumur_t1_s"), d("w1_s"), rate,
             d("w1_spin"), d("w1_spin_cpu"), d("w1_rumur5"), d("w2_s"), d("w2_w1"),
             d("bps_wc"), d("bps_spin"), d("bps_compact"), red, peer, d("peer_wc"), row["counts"]]
    return "| " + " | ".join(cells) + " |"


def read_tsv(path):
    """read_tsv returns the rows of a TSV of COLUMNS (with its header line)."""
    lines = [l.rstrip("\n") for l in open(path) if l.strip() and not l.startswith("#")]
    head = lines[0].split("\t")
    if head != COLUMNS:
        sys.exit(f"{path}: header {head}, want {COLUMNS}")
    return [dict(zip(COLUMNS, l.split("\t"))) for l in lines[1:]]


if len(sys.argv) == 3 and sys.argv[1] == "--markdown":
    print(HEADER)
    for row in read_tsv(sys.argv[2]):
        print(markdown(row))
    sys.exit(0)

# rows[(model, params)][tool/config] is the list of that configuration's
# runs: dicts of states, edges, cpu, wall, rss, status and round.
rows = OrderedDict()
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 9:
        continue
    model, params, tool, cfg, s, e, wall, rss, st = f[:9]
    cpu = float(f[9]) if len(f) > 9 and f[9] else None
    rnd = int(f[10]) if len(f) > 10 and f[10] else 1
    key = (model, params)
    rows.setdefault(key, {}).setdefault(f"{tool}/{cfg}", []).append(dict(
        states=int(s) if s else None, edges=int(e) if e else None, cpu=cpu,
        wall=float(wall) if wall else None, rss=int(rss) if rss else None, status=st, round=rnd))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return None if n == 0 else xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def get(r, k):
    """get returns configuration k's ok runs summed up: the states and
    edges of its first run, the medians of wall, CPU and RSS, and its runs
    by round (None when no run ended ok)."""
    runs = [x for x in r.get(k, []) if x["status"] == "ok"]
    if not runs:
        return None
    cpus = [x["cpu"] for x in runs if x["cpu"] is not None]
    return dict(states=runs[0]["states"], edges=runs[0]["edges"], status="ok",
                wall=median([x["wall"] for x in runs]), cpu=median(cpus) if cpus else None,
                rss=median([x["rss"] for x in runs]), byround={x["round"]: x for x in runs})


def paired(a, b, f):
    """paired returns the median over the rounds that both a and b ran ok
    of f(a's run, b's run), or None."""
    if not a or not b:
        return None
    return median([f(a["byround"][n], b["byround"][n]) for n in a["byround"] if n in b["byround"]])


def per(x, y, k):
    """per returns x[k] over y[k], each at least the timer's 0.01 s."""
    if x[k] is None or y[k] is None:
        return None
    return max(x[k], 0.01) / max(y[k], 0.01)


def rate(x):
    return x["states"] / max(x["wall"], 0.01)


def crate(x):
    return x["states"] / max(x["cpu"], 0.01) if x and x.get("cpu") else None


def bps(x):
    return x["rss"] * 1024 / x["states"]


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


FULL = ["spin/dfs-noreduce", "spin/dfs-por", "rumur/t1-symoff", "rumur/t2-symoff",
        "wrapcheck/w1", "wrapcheck/w2", "wrapcheck/w1-compact"]
print()
print(HEADER)
bad = 0
out = []
for (model, params), r in rows.items():
    full = {k: x for k in FULL for x in r.get(k, []) if x["states"] is not None and x["status"] == "ok"}
    pairs = {(x["states"], x["edges"]) for k in FULL for x in r.get(k, []) if x["states"] is not None and x["status"] == "ok"}
    agree = "agree" if len(pairs) == 1 else "DISAGREE " + ", ".join(f"{k}={v['states']}/{v['edges']}" for k, v in full.items())
    if len(pairs) != 1:
        bad += 1
    sp, ru, w1, w2, wc = (get(r, k) for k in ("spin/dfs-noreduce", "rumur/t1-symoff", "wrapcheck/w1", "wrapcheck/w2", "wrapcheck/w1-compact"))
    red = get(r, "wrapcheck/reduced")
    # The reduced peers: SPIN with partial-order reduction and Rumur with
    # heuristic symmetry; a round's best is the fastest of them in it.
    peers_red = {k: get(r, k) for k in r if k == "spin/dfs-por" or k.startswith("rumur/") and "symheur" in k}
    peers_red = {k: v for k, v in peers_red.items() if v}
    bp = min(peers_red.items(), key=lambda kv: kv[1]["wall"]) if peers_red else None
    peer_wc = None
    if red and peers_red:
        ratios = [min(max(v["byround"][n]["wall"], 0.01) for v in peers_red.values() if n in v["byround"]) / max(x["wall"], 0.01)
                  for n, x in red["byround"].items() if any(n in v["byround"] for v in peers_red.values())]
        peer_wc = median(ratios)
    states = next(iter(pairs))[0] if pairs else None
    sym_agree = ""
    rs, ws = get(r, "rumur/t1-symheur"), get(r, "wrapcheck/sym")
    if rs and ws:
        ok = {(x["states"], x["edges"]) for k in ("rumur/t1-symheur", "rumur/t2-symheur", "wrapcheck/sym") for x in r.get(k, []) if x["status"] == "ok"}
        sym_agree = "; orbits agree" if len(ok) == 1 else f"; orbits DIFFER {sorted(ok)}"
        bad += 0 if len(ok) == 1 else 1
    w1spin = paired(sp, w1, lambda a, b: per(a, b, "wall"))
    row = dict(zip(COLUMNS, [
        model, params, fmt(states, "d"),
        fmt(sp and sp["wall"], ".2f"), fmt(ru and ru["wall"], ".2f"),
        fmt(w1 and w1["wall"], ".2f"), fmt(w1 and rate(w1) / 1e6, ".2f"),
        fmt(w1spin, ".2f"),
        fmt(paired(sp, w1, lambda a, b: per(a, b, "cpu")), ".2f"),
        fmt(paired(ru, w1, lambda a, b: per(a, b, "wall") / 5), ".2f"),
        fmt(w2 and w2["wall"], ".2f"), fmt(paired(w1, w2, lambda a, b: per(a, b, "wall")), ".2f"),
        fmt(w1 and bps(w1), ".0f"), fmt(sp and bps(sp), ".0f"), fmt(wc and bps(wc), ".1f"),
        fmt(red and red["wall"], ".2f"), fmt(red and red["states"], "d"),
        fmt(bp and bp[1]["wall"], ".2f"), bp[0] if bp else "-",
        fmt(peer_wc, ".2f"),
        agree + sym_agree]))
    out.append(row)
    print(markdown(row))
print()
g = [(p, get(r, "wrapcheck/w1")) for (m, p), r in rows.items() if m == "pipeline" and p.endswith("N=1") and get(r, "wrapcheck/w1")]
if g:
    print("growth (pipeline N=1, wrapcheck w1, no reduction): " + "; ".join(
        f"{p}: {x['states']:,} states {rate(x)/1e6:.2f} M/s, {fmt(crate(x) and crate(x)/1e6, '.2f')} M/cpu-s" for p, x in g))
c = [(m, p, get(r, "wrapcheck/w1"), get(r, "wrapcheck/w1-compact")) for (m, p), r in rows.items()
     if get(r, "wrapcheck/w1") and get(r, "wrapcheck/w1-compact")]
if c:
    print("compact (w1 --hash-compact vs w1): " + "; ".join(
        f"{m} {p}: {bps(y):.1f} vs {bps(x):.1f} B/state, {rate(y)/1e6:.2f} vs {rate(x)/1e6:.2f} M states/s" for m, p, x, y in c))
print("times: medians over the rounds; ratios: medians of the per-round ratios (pairs of runs of one round).")
print("ratios ≥ 1 meet the throughput targets (cpu: states per CPU-second, steadier under load); w2÷w1 target 1.7; B/state = peak RSS / states (whole process).")
print(f"count checks: {'all agree' if bad == 0 else f'{bad} disagreement(s)'}")
for line in open(sys.argv[2]):
    print("  " + line.rstrip())
if len(sys.argv) == 5 and sys.argv[3] == "--tsv":
    with open(sys.argv[4], "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for row in out:
            f.write("\t".join(row[k] for k in COLUMNS) + "\n")
sys.exit(1 if bad else 0)
