// trace.js draws a counterexample as the playground shows it: the trace
// table (with the lasso's cycle) and the Mermaid sequence diagram. The
// playground (main.js) and the VS Code extension's trace panel
// (editors/vscode/panel/, bundled by the extension's build) both use it,
// on the violations of check's JSON report (docs/json-schema.json).

// show writes a value of a state or an answer.
export const show = (v) => (typeof v === "object" ? JSON.stringify(v) : String(v));

// verdictLine is the line over the trace: the spec, the verdict, the
// violation v (kind, name, position, message) and the search's figures.
export function verdictLine(rep, v) {
  let text = `${rep.spec}: ${rep.verdict}`;
  if (v) text += ` — ${v.kind}${v.name ? " " + v.name : ""} at ${v.position}${v.message ? ": " + v.message : ""}`;
  if (rep.reason) text += ` (${rep.reason})`;
  text += ` · ${rep.stats.states} states, ${rep.stats.transitions} transitions`;
  return text;
}

// traceTable returns the trace of the violation v as a table: per step
// the action, the agent answers and only the variables that changed; the
// lasso's cycle is shaded from loop_start on, and a last row says where it
// loops back. operands are the violated invariant's parts (the text
// report's lines); explore(i, state), when given, returns an element put
// in step i's last cell (the playground's explore button).
export function traceTable(v, operands, explore) {
  const table = document.createElement("table");
  table.className = "trace";
  table.id = "trace";
  table.innerHTML = "<thead><tr><th>step</th><th>action</th><th>agent answers</th><th>changed</th><th></th></tr></thead>";
  const body = document.createElement("tbody");
  let prev = null;
  v.trace.forEach((st, i) => {
    const tr = document.createElement("tr");
    if (v.loop_start !== null && v.loop_start !== undefined && i >= v.loop_start) tr.classList.add("cycle");
    if (v.loop_start === i) tr.classList.add("loopstart");
    const changed = Object.entries(st.state)
      .filter(([k, val]) => !prev || show(prev[k]) !== show(val))
      .map(([k, val]) => `${k} = ${show(val)}`);
    const asked = st.asked ? Object.entries(st.asked).map(([k, val]) => `${k} → ${show(val)}`).join(", ") : "";
    const cells = [String(i), st.action || "initial state", asked, changed.join("\n")];
    cells.forEach((c, j) => {
      const td = document.createElement("td");
      td.textContent = c;
      if (j === 2) td.className = "asked";
      if (j === 3) td.style.whiteSpace = "pre";
      tr.appendChild(td);
    });
    const td = document.createElement("td");
    const extra = explore && explore(i, st.state);
    if (extra) td.appendChild(extra);
    tr.appendChild(td);
    body.appendChild(tr);
    prev = st.state;
  });
  if (v.loop_start !== null && v.loop_start !== undefined) {
    const tr = document.createElement("tr");
    tr.className = "back";
    tr.innerHTML = `<td colspan="5"></td>`;
    tr.firstChild.textContent = `… and back to step ${v.loop_start}, forever`;
    body.appendChild(tr);
  }
  if (v.kind === "invariant") {
    const tr = document.createElement("tr");
    tr.className = "violated";
    tr.innerHTML = `<td colspan="5"></td>`;
    tr.firstChild.textContent = `invariant ${v.name} is false here` + (operands && operands.length ? ": " + operands.join(", ") : "");
    body.appendChild(tr);
  }
  table.appendChild(body);
  return table;
}

let mermaidCount = 0;

// renderMermaid draws the sequence diagram text into box, or shows the
// text when Mermaid cannot draw it.
export async function renderMermaid(box, text) {
  try {
    const { default: mermaid } = await import("mermaid");
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
    const { svg } = await mermaid.render("mermaid" + mermaidCount++, text);
    box.innerHTML = svg;
  } catch (err) {
    const pre = document.createElement("pre");
    pre.textContent = text;
    box.replaceChildren(pre);
  }
}
