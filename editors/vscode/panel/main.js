// The trace panel's script, run in the webview: it draws the
// counterexample the extension posts (the language server's
// wrapcheck.trace: check's JSON report, the trace in wrap's notation, the
// sequence diagram, the invariant's operands, the watches) with the
// playground's own code (web/src/trace.js), which the extension's build
// (build.mjs) bundles into media/panel.js. Its watch box posts
// {watches: [EXPR...]} to the extension when the user adds or removes a
// watch; the extension answers with the trace again, the watches
// evaluated by the server (panel/host.js).
import { traceTable, renderMermaid, renderNotes, verdictLine, watchBox } from "../../../web/src/trace.js";

const $ = (id) => document.getElementById(id);
const vscode = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : null;
let current = null; // the last data drawn
let watches = []; // the watched expressions, in order

// render draws data, one wrapcheck.trace answer.
async function render(data) {
  current = data;
  watches = (data.watches || []).map((w) => w.expr);
  const rep = data.report;
  const vs = rep.violations || (rep.violation ? [rep.violation] : []);
  const v = vs.find((x) => x.name === data.name) || vs[0];
  $("verdict").className = rep.verdict;
  $("verdict").textContent = verdictLine(rep, v);
  $("traceBox").replaceChildren();
  $("mermaid").replaceChildren();
  if (!v) return;
  // the shape as the text report words it
  const steps = (n) => `${n} step${n === 1 ? "" : "s"}`;
  $("shape").textContent =
    v.loop_start !== null && v.loop_start !== undefined
      ? `a lasso: ${steps(v.loop_start - 1)}, then a cycle of ${steps(v.trace.length - v.loop_start)} repeated forever`
      : `${steps(v.trace.length - 1)} from the initial state`;
  drawTrace(v);
  renderNotes($("notes"), rep.notes);
  if (data.mermaid) await renderMermaid($("mermaid"), data.mermaid);
  document.body.dataset.rendered = String(Number(document.body.dataset.rendered || 0) + 1);
}

// drawTrace draws the trace table with a column per evaluated watch, and
// the watch box under it; note, when given, is a line under the watches.
function drawTrace(v, note) {
  const evaluated = current.watches || [];
  const shown = watches.map((expr) => evaluated.find((w) => w.expr === expr) || { expr });
  $("traceBox").replaceChildren(traceTable(v, current.trace_text, current.operands, null, shown), watchBox(shown, addWatch, removeWatch, note));
}

function violation() {
  const rep = current.report;
  const vs = rep.violations || (rep.violation ? [rep.violation] : []);
  return vs.find((x) => x.name === current.name) || vs[0];
}

// setWatches asks the extension for the trace with these watches.
function setWatches(list, note) {
  watches = list;
  drawTrace(violation(), note);
  if (vscode) vscode.postMessage({ watches: list });
}
function addWatch(expr) {
  if (!watches.includes(expr)) setWatches([...watches, expr], "evaluating…");
}
function removeWatch(expr) {
  setWatches(watches.filter((w) => w !== expr));
}

window.addEventListener("message", (e) => {
  if (e.data && e.data.report) render(e.data);
  else if (e.data && e.data.error && current) drawTrace(violation(), e.data.error);
});
if (vscode) vscode.postMessage({ ready: true });
