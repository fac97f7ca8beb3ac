// trace.js draws a counterexample as the playground shows it: the verdict
// line, the trace table (with the lasso's cycle), the report's notes and
// the Mermaid sequence diagram. The playground (main.js) and the VS Code
// extension's trace panel (editors/vscode/panel/, bundled by the
// extension's build) both use it, on check's JSON report
// (docs/json-schema.json) and the trace in wrap's notation (web/engine's
// trace_text; the language server's wrapcheck.trace sends the same).

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
// the action, the agent answers and only the variables that changed, in
// wrap's notation as the text report prints them (text: trace_text, one
// {asked, changed} per step); the lasso's cycle is shaded from loop_start
// on, and a last row says where it loops back. operands are the violated
// invariant's parts (the text report's lines); explore(i), when given,
// returns an element put in step i's last cell (the playground's explore
// button), or null. watches, when given, are watch columns ({expr,
// values}: web/engine's Watch, values[i] the value at step i in wrap's
// notation): one column each, after changed, headed by its expression;
// a watch without values (refused) has none.
export function traceTable(v, text, operands, explore, watches) {
  const table = document.createElement("table");
  table.className = "trace";
  table.id = "trace";
  const cols = (watches || []).filter((w) => w.values && w.values.length === v.trace.length);
  const head = document.createElement("tr");
  for (const [label, cls] of [["step"], ["action"], ["agent answers"], ["changed"], ...cols.map((w) => [w.expr, "watch"]), [""]]) {
    const th = document.createElement("th");
    th.textContent = label;
    if (cls) th.className = cls;
    head.appendChild(th);
  }
  table.createTHead().appendChild(head);
  const width = 5 + cols.length;
  const body = document.createElement("tbody");
  const lasso = v.loop_start !== null && v.loop_start !== undefined;
  v.trace.forEach((st, i) => {
    const tr = document.createElement("tr");
    if (lasso && i >= v.loop_start) tr.classList.add("cycle");
    if (v.loop_start === i) tr.classList.add("loopstart");
    const t = (text && text[i]) || { asked: [], changed: [] };
    const cells = [String(i), st.action || "initial state", (t.asked || []).join(", "), (t.changed || []).join("\n")];
    cells.forEach((c, j) => {
      const td = document.createElement("td");
      td.textContent = c;
      if (j === 2) td.className = "asked";
      if (j === 3) td.className = "changed";
      tr.appendChild(td);
    });
    for (const w of cols) {
      const td = document.createElement("td");
      td.textContent = w.values[i];
      td.className = w.values[i].startsWith("error: ") ? "watch watcherror" : "watch";
      tr.appendChild(td);
    }
    const td = document.createElement("td");
    td.className = "act";
    const extra = explore && explore(i);
    if (extra) td.appendChild(extra);
    tr.appendChild(td);
    body.appendChild(tr);
  });
  if (lasso) {
    const tr = document.createElement("tr");
    tr.className = "back";
    tr.innerHTML = `<td colspan="${width}"></td>`;
    tr.firstChild.textContent = `… and back to step ${v.loop_start}, forever`;
    body.appendChild(tr);
  }
  if (v.kind === "invariant") {
    const tr = document.createElement("tr");
    tr.className = "violated";
    tr.innerHTML = `<td colspan="${width}"></td>`;
    tr.firstChild.textContent = `invariant ${v.name} is false here` + (operands && operands.length ? ": " + operands.join(", ") : "");
    body.appendChild(tr);
  }
  table.appendChild(body);
  return table;
}

// watchBox returns the box under a trace where the user watches
// expressions: an input whose expression Add (or Enter) passes to
// onAdd(expr), and the list of watches ({expr, error}: web/engine's
// Watch, or {expr} alone when not evaluated yet), each with a remove
// button that calls onRemove(expr) and, for one the checker refused, its
// error as file:line:col: msg. note, when given, is a line under the list.
export function watchBox(watches, onAdd, onRemove, note) {
  const box = document.createElement("div");
  box.className = "watchbox";
  box.id = "watchBox";
  const form = document.createElement("form");
  const input = document.createElement("input");
  input.id = "watchInput";
  input.placeholder = "watch an expression at every step, e.g. x + 1";
  input.setAttribute("aria-label", "watch expression");
  const add = document.createElement("button");
  add.type = "submit";
  add.textContent = "Watch";
  form.append(input, " ", add);
  form.onsubmit = (e) => {
    e.preventDefault();
    const expr = input.value.trim();
    if (expr) onAdd(expr);
  };
  box.appendChild(form);
  const ul = document.createElement("ul");
  ul.id = "watchList";
  for (const w of watches) {
    const li = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = w.expr;
    const rm = document.createElement("button");
    rm.className = "unwatch";
    rm.title = "remove this watch";
    rm.textContent = "×";
    rm.onclick = () => onRemove(w.expr);
    li.append(code, " ", rm);
    if (w.error) {
      li.classList.add("error");
      const err = document.createElement("div");
      err.className = "watcherror";
      err.textContent = w.error.text;
      li.appendChild(err);
    }
    ul.appendChild(li);
  }
  box.appendChild(ul);
  if (note) {
    const p = document.createElement("p");
    p.className = "watchnote";
    p.textContent = note;
    box.appendChild(p);
  }
  return box;
}

// renderNotes lists the report's notes in ul (what a lasso's cycle
// starves and which fairness would exclude it), `code` set as code.
export function renderNotes(ul, notes) {
  ul.textContent = "";
  for (const n of notes || []) {
    const li = document.createElement("li");
    li.append("note: ");
    inline(li, n);
    ul.appendChild(li);
  }
}

// inline appends text to el with the Markdown of a sentence set:
// **strong**, *emphasis* and `code`; everything else stays text.
export function inline(el, text) {
  const re = /\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|`([^`]+)`/g;
  let at = 0;
  for (let m; (m = re.exec(text)); ) {
    el.append(text.slice(at, m.index));
    const tag = m[1] !== undefined ? "strong" : m[2] !== undefined ? "em" : "code";
    const span = document.createElement(tag);
    span.textContent = m[1] ?? m[2] ?? m[3];
    el.appendChild(span);
    at = re.lastIndex;
  }
  el.append(text.slice(at));
}

let mermaidCount = 0;

// renderMermaid draws the sequence diagram text into box, or shows the
// text when Mermaid cannot draw it.
export async function renderMermaid(box, text) {
  try {
    const { default: mermaid } = await import("mermaid");
    // drawn at its own size (no shrinking to the column: a wide diagram
    // scrolls), its text the size of the page's
    const fontSize = parseFloat(getComputedStyle(document.body).fontSize) || 14;
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", sequence: { useMaxWidth: false, actorFontSize: fontSize, messageFontSize: fontSize, noteFontSize: fontSize } });
    const { svg } = await mermaid.render("mermaid" + mermaidCount++, text);
    box.innerHTML = svg;
  } catch (err) {
    const pre = document.createElement("pre");
    pre.textContent = text;
    box.replaceChildren(pre);
  }
}
