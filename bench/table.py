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

results.tsv columns: model params tool config states edges wall_s rss_kib status.
Ratios are of the same run. Targets (docs/performance.md):
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

rows = OrderedDict()
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 9:
        continue
    model, params, tool, cfg, s, e, wall, rss, st = f[:9]
    cpu = float(f[9]) if len(f) > 9 and f[9] else None
    key = (model, params)
    rows.setdefault(key, {})[f"{tool}/{cfg}"] = dict(
        states=int(s) if s else None, edges=int(e) if e else None, cpu=cpu,
        wall=float(wall) if wall else None, rss=int(rss) if rss else None, status=st)


def get(r, k):
    x = r.get(k)
    return x if x and x["status"] == "ok" else None


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
    full = {k: r[k] for k in FULL if k in r and r[k]["states"] is not None and r[k]["status"] == "ok"}
    pairs = {(v["states"], v["edges"]) for v in full.values()}
    agree = "agree" if len(pairs) == 1 else "DISAGREE " + ", ".join(f"{k}={v['states']}/{v['edges']}" for k, v in full.items())
    if len(pairs) != 1:
        bad += 1
    sp, ru, w1, w2, wc = (get(r, k) for k in ("spin/dfs-noreduce", "rumur/t1-symoff", "wrapcheck/w1", "wrapcheck/w2", "wrapcheck/w1-compact"))
    red = get(r, "wrapcheck/reduced")
    peers_red = [(k, v) for k, v in r.items() if v["status"] == "ok" and (k == "spin/dfs-por" or k.startswith("rumur/") and "symheur" in k)]
    if not any("symheur" in k for k, _ in peers_red):
        peers_red = [(k, v) for k, v in peers_red]  # no symmetry peer: POR only
    bp = min(peers_red, key=lambda kv: kv[1]["wall"]) if peers_red else None
    states = next(iter(pairs))[0] if pairs else None
    sym_agree = ""
    rs, ws = get(r, "rumur/t1-symheur"), get(r, "wrapcheck/sym")
    if rs and ws:
        ok = rs["states"] == ws["states"] and rs["edges"] == ws["edges"]
        sym_agree = "; orbits agree" if ok else f"; orbits DIFFER rumur {rs['states']}/{rs['edges']} wc {ws['states']}/{ws['edges']}"
        bad += 0 if ok else 1
    row = dict(zip(COLUMNS, [
        model, params, fmt(states, "d"),
        fmt(sp and sp["wall"], ".2f"), fmt(ru and ru["wall"], ".2f"),
        fmt(w1 and w1["wall"], ".2f"), fmt(w1 and rate(w1) / 1e6, ".2f"),
        fmt(w1 and sp and rate(w1) / rate(sp), ".2f"),
        fmt(w1 and sp and crate(sp) and crate(w1) / crate(sp), ".2f"), fmt(w1 and ru and rate(w1) / rate(ru) / 5, ".2f"),
        fmt(w2 and w2["wall"], ".2f"), fmt(w1 and w2 and w1["wall"] / w2["wall"], ".2f"),
        fmt(w1 and bps(w1), ".0f"), fmt(sp and bps(sp), ".0f"), fmt(wc and bps(wc), ".1f"),
        fmt(red and red["wall"], ".2f"), fmt(red and red["states"], "d"),
        fmt(bp and bp[1]["wall"], ".2f"), bp[0] if bp else "-",
        fmt(red and bp and bp[1]["wall"] / max(red["wall"], 0.01), ".2f"),
        agree + sym_agree]))
    out.append(row)
    print(markdown(row))
print()
g = [(p, r["wrapcheck/w1"]) for (m, p), r in rows.items() if m == "pipeline" and p.endswith("N=1") and get(r, "wrapcheck/w1")]
if g:
    print("growth (pipeline N=1, wrapcheck w1, no reduction): " + "; ".join(
        f"{p}: {x['states']:,} states {rate(x)/1e6:.2f} M/s, {fmt(crate(x) and crate(x)/1e6, '.2f')} M/cpu-s" for p, x in g))
c = [(m, p, r["wrapcheck/w1"], r["wrapcheck/w1-compact"]) for (m, p), r in rows.items()
     if get(r, "wrapcheck/w1") and get(r, "wrapcheck/w1-compact")]
if c:
    print("compact (w1 --hash-compact vs w1): " + "; ".join(
        f"{m} {p}: {bps(y):.1f} vs {bps(x):.1f} B/state, {rate(y)/1e6:.2f} vs {rate(x)/1e6:.2f} M states/s" for m, p, x, y in c))
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
