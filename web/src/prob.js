// prob.js draws the probabilities of a spec with answer rates as the
// playground shows them after Check: one row per `probability` and
// `expected` query with its least and greatest value over the unrated
// choices (an exact fraction and its decimal, or the bounds of interval
// iteration), the range over the confidence intervals of the counts
// `k of n`, and its bound, kept, broken or not decided. The data is
// web/engine's `prob`: report.QuantJSON's object, the JSON of
// `wrapcheck prob --format json`.

// decimal prints x with 6 places, rounded down (dir < 0), up (dir > 0)
// or to nearest (0), as the text report prints the ends of a range.
function decimal(x, dir = 0) {
  const f = dir < 0 ? Math.floor : dir > 0 ? Math.ceil : Math.round;
  return (f(x * 1e6) / 1e6).toFixed(6);
}

// valueText prints one value: `1/16 (0.062500)`, `1`, `[lo, hi]` from
// interval iteration (`[lo, infinity]` for an expected cost whose upper
// bound was not certified: the JSON has no upper), `infinity` for an
// expected cost that is.
export function valueText(v, dir = 0) {
  if (!v) return "";
  if (v.infinite) return "infinity";
  if (v.lower !== undefined) return `[${v.lower}, ${v.upper ?? "infinity"}]`;
  if (v.exact !== undefined && v.exact !== "") return v.exact.includes("/") ? `${v.exact} (${decimal(v.float)})` : v.exact;
  return decimal(v.float, dir);
}

// level prints a confidence level "19/20" as a percentage.
function level(l) {
  const [n, d] = String(l).split("/").map(Number);
  return `${Math.round((d ? n / d : n) * 10000) / 100}%`;
}

// rangeText prints the range over the counts: [lo, hi] at 95%.
export function rangeText(box) {
  if (!box) return "";
  const end = (v, dir) => {
    if (!v) return "?";
    if (v.infinite) return "infinity";
    if (v.lower !== undefined) return String(dir < 0 ? v.lower : (v.upper ?? "infinity"));
    return v.exact !== undefined && !v.exact.includes("/") ? v.exact : decimal(v.float, dir);
  };
  return `[${end(box.min, -1)}, ${end(box.max, 1)}] at ${level(box.level)}`;
}

// boundText is the bound and its verdict, with the class of the row.
function boundText(b) {
  if (!b) return ["", "value"];
  if (b.violated) return [`${b.op} ${b.value}: violated`, "violated"];
  if (b.unknown) return [`${b.op} ${b.value}: not decided`, "unknown"];
  return [`${b.op} ${b.value}: holds`, "holds"];
}

// probPanel returns the panel of prob (null when the spec has no
// queries): a line with the verdict of the bounds, then the table; error,
// when the values could not be computed, is said instead.
export function probPanel(prob, error) {
  if (!prob && !error) return null;
  const box = document.createElement("div");
  box.id = "probPanel";
  const h = document.createElement("h3");
  h.textContent = "Probabilities";
  box.appendChild(h);
  const line = document.createElement("p");
  line.id = "probVerdict";
  box.appendChild(line);
  if (!prob) {
    line.className = "unknown";
    line.textContent = error;
    return box;
  }
  const words = { holds: "every bound holds", violated: "a bound can be broken", unknown: "a bound is not decided by the counts" };
  line.className = prob.verdict;
  line.textContent = `${words[prob.verdict] || prob.verdict} · ${prob.stats.states} states, ${prob.stats.choices} choices`;
  const table = document.createElement("table");
  table.className = "trace prob";
  table.id = "prob";
  table.innerHTML = "<thead><tr><th>query</th><th>of</th><th>min</th><th>max</th><th>over the counts</th><th>bound</th></tr></thead>";
  const body = document.createElement("tbody");
  const row = (name, formula, min, max, range, bound) => {
    const tr = document.createElement("tr");
    const [btext, cls] = boundText(bound);
    tr.className = cls;
    for (const c of [name, formula, min, max, range, btext]) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  };
  for (const q of prob.queries || []) {
    const f = `P(${q.formula}${q.steps !== null && q.steps !== undefined ? " within " + q.steps : ""})`;
    row(q.name, f, valueText(q.min), valueText(q.max), rangeText(q.box), q.bound);
  }
  for (const e of prob.expectations || []) {
    row(e.name, `E(${e.formula})`, valueText(e.min), valueText(e.max), rangeText(e.box), e.bound);
  }
  table.appendChild(body);
  box.appendChild(table);
  return box;
}
