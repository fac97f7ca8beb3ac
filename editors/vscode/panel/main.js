// The trace panel's script, run in the webview: it draws the
// counterexample the extension posts (the language server's
// wrapcheck.trace: check's JSON report, the trace in wrap's notation, the
// sequence diagram, the invariant's operands) with the playground's own code (web/src/trace.js),
// which the extension's build (build.mjs) bundles into media/panel.js.
import { traceTable, renderMermaid, renderNotes, verdictLine } from "../../../web/src/trace.js";

const $ = (id) => document.getElementById(id);

// render draws data, one wrapcheck.trace answer.
async function render(data) {
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
  $("traceBox").appendChild(traceTable(v, data.trace_text, data.operands));
  renderNotes($("notes"), rep.notes);
  if (data.mermaid) await renderMermaid($("mermaid"), data.mermaid);
  document.body.dataset.rendered = String(Number(document.body.dataset.rendered || 0) + 1);
}

window.addEventListener("message", (e) => {
  if (e.data && e.data.report) render(e.data);
});
if (typeof acquireVsCodeApi === "function") acquireVsCodeApi().postMessage({ ready: true });
