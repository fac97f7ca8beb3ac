// The wrapcheck playground: an editor, the checker in a Web Worker (or,
// under `wrapcheck ui`, the native checker over HTTP), and the results: the
// verdict, the trace as a table, the lasso's cycle, the sequence diagram,
// the state graph and an explorer that steps through states by hand.
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from "lz-string";
import { wrapLanguage } from "./lang.js";
import { show, traceTable, renderMermaid, verdictLine } from "./trace.js";

const $ = (id) => document.getElementById(id);
const native = !!(globalThis.WRAPCHECK && globalThis.WRAPCHECK.native);
const specName = () => currentName || "spec.wrap";
let currentName = "";
let examples = [];
let lessons = [];
let lastCheck = null; // {response, source}

// ---- the engine: a Web Worker running wrapcheck.wasm, or the native server

class WorkerEngine {
  constructor(onReady) {
    this.onReady = onReady;
    this.nextId = 1;
    this.pending = new Map();
    this.start();
  }
  start() {
    this.ready = false;
    this.queue = []; // requests sent before the wasm is loaded
    this.worker = new Worker("worker.js");
    this.worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === "ready") {
        this.ready = true;
        for (const msg of this.queue) this.worker.postMessage(msg);
        this.queue = [];
        this.onReady(m);
      } else if (m.type === "progress") {
        const p = this.pending.get(m.id);
        if (p && p.onProgress) p.onProgress(m.progress);
      } else if (m.type === "done") {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (p) p.resolve(m.response);
      } else if (m.type === "fatal") {
        setStatus("the checker did not load: " + m.message);
      }
    };
    // A worker that dies (out of memory) fails its requests and is replaced.
    this.worker.onerror = (e) => {
      e.preventDefault();
      if (this.ready) this.cancel("the checker stopped: " + (e.message || "out of memory?"));
    };
  }
  run(request, onProgress) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      if (this.ready) this.worker.postMessage({ id, request });
      else this.queue.push({ id, request });
    });
  }
  // cancel stops every running request: the worker is terminated (a Go
  // search cannot be interrupted from outside) and a fresh one started.
  cancel(why) {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new Error(why));
    this.pending.clear();
    this.start();
  }
}

class NativeEngine {
  constructor(onReady) {
    this.controllers = new Set();
    // the visit with ?token= set the server's cookie: take the token out
    // of the address bar (and of the history and of shared links)
    const u = new URL(location.href);
    if (u.searchParams.has("token")) {
      u.searchParams.delete("token");
      window.history.replaceState(null, "", u);
    }
    fetch("api/examples")
      .then((r) => r.json())
      .then((ex) => onReady({ examples: ex, loadMs: 0 }));
  }
  async run(request) {
    const c = new AbortController();
    this.controllers.add(c);
    try {
      // application/json: the server refuses the types a page of another
      // site may POST without asking (text/plain, forms)
      const r = await fetch("api/run", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request), signal: c.signal });
      if (!r.ok) throw new Error((await r.text()).trim() || `the server answered ${r.status}`);
      return await r.json();
    } finally {
      this.controllers.delete(c);
    }
  }
  cancel() {
    for (const c of this.controllers) c.abort();
  }
}

// ---- the editor

let view;
function makeEditor(doc) {
  view = new EditorView({
    parent: $("editor"),
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightActiveLine(),
        history(),
        keymap.of([...defaultKeymap, ...historyKeymap, { key: "Mod-Enter", run: () => (runCheck(), true) }]),
        wrapLanguage,
        syntaxHighlighting(defaultHighlightStyle),
        lintGutter(),
        EditorView.updateListener.of((u) => {
          // stale marks go once the text changes (after this update: no
          // dispatch may run inside one)
          if (u.docChanged) setTimeout(() => view.dispatch(setDiagnostics(view.state, [])), 0);
        }),
      ],
    }),
  });
}
const source = () => view.state.doc.toString();
function setSource(text, name) {
  currentName = name || "";
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

// markDiagnostics underlines errors and warnings at their positions (the
// word that starts there) and lists them.
function markDiagnostics(errors, warnings) {
  const doc = view.state.doc;
  const marks = [];
  const list = $("diagnostics");
  list.textContent = "";
  const add = (d, severity) => {
    const li = document.createElement("li");
    li.className = severity;
    li.textContent = d.text;
    list.appendChild(li);
    if (!d.line || d.line > doc.lines) return;
    const line = doc.line(d.line);
    const from = Math.min(line.from + Math.max(d.col - 1, 0), line.to);
    const rest = doc.sliceString(from, line.to);
    const word = rest.match(/^[A-Za-z0-9_]+|^\S/);
    const to = Math.min(from + (word ? word[0].length : 1), doc.length);
    marks.push({ from, to: Math.max(to, from + (from < doc.length ? 1 : 0)), severity, message: d.msg });
  };
  (errors || []).forEach((d) => add(d, "error"));
  (warnings || []).forEach((d) => add(d, "warning"));
  view.dispatch(setDiagnostics(view.state, marks));
}

// ---- running

let engine;
let busy = false;
function setStatus(s) {
  $("status").textContent = s;
}
function setBusy(b) {
  busy = b;
  for (const id of ["check", "vet", "fmt", "graph"]) $(id).disabled = b || !engineReady;
  $("cancel").disabled = !b;
}
let engineReady = false;

function limits() {
  return { max_states: Number($("maxStates").value) || 0, timeout_ms: (Number($("timeLimit").value) || 20) * 1000 };
}

// run sends one request; a hard limit a little past the request's time
// limit cancels it even if the checker never looks at the clock.
async function run(op, extra = {}) {
  const request = { op, name: specName(), source: source(), ...limits(), ...extra };
  setBusy(true);
  const t0 = performance.now();
  const hard = setTimeout(() => engine.cancel("stopped: past the time limit"), request.timeout_ms + 3000);
  try {
    const resp = await engine.run(request, (p) => setStatus(`${op}: ${p.states} states, depth ${p.depth}, ${(p.elapsed_ms / 1000).toFixed(1)} s`));
    setStatus(`${op}: done in ${Math.round(performance.now() - t0)} ms`);
    return resp;
  } catch (err) {
    setStatus(String(err.message || err));
    return null;
  } finally {
    clearTimeout(hard);
    setBusy(false);
  }
}

async function runCheck() {
  clearResults();
  const src = source();
  const resp = await run("check");
  if (!resp) {
    $("verdict").className = "unknown";
    $("verdict").textContent = "cancelled";
    return;
  }
  markDiagnostics(resp.errors, resp.warnings);
  if (resp.errors && resp.errors.length) {
    $("verdict").className = "violated";
    $("verdict").textContent = "the spec is rejected";
    return;
  }
  lastCheck = { response: resp, source: src };
  const rep = resp.report;
  const v = rep.violation;
  $("verdict").className = rep.verdict;
  $("verdict").dataset.verdict = rep.verdict;
  $("verdict").textContent = verdictLine(rep, v);
  if (v) {
    renderTrace(v, resp.trace_slots, resp.operands);
    if (resp.mermaid) renderMermaid($("mermaid"), resp.mermaid);
  }
}

function clearResults() {
  for (const id of ["verdict", "diagnostics", "traceBox", "explorer", "mermaid", "graphBox"]) $(id).textContent = "";
  $("verdict").className = "";
  $("dot").hidden = true;
}

// renderTrace draws the trace (trace.js) with an explore button per step.
function renderTrace(v, slots, operands) {
  $("traceBox").appendChild(
    traceTable(v, operands, (i, state) => {
      if (!slots || !slots[i]) return null;
      const b = document.createElement("button");
      b.textContent = "explore";
      b.className = "explore";
      b.onclick = () => startExplorer(slots[i], state, `step ${i}`);
      return b;
    }),
  );
}

// ---- the explorer: from a state, every enabled action with its answers

let explorerPath = [];
async function startExplorer(slots, state, label) {
  explorerPath = [label];
  await exploreFrom(slots, state);
}
async function exploreFrom(slots, state) {
  if (lastCheck && lastCheck.source !== source()) {
    setStatus("the spec changed since the check: check again to explore");
    return;
  }
  const resp = await run("explore", { slots });
  const box = $("explorer");
  box.textContent = "";
  if (!resp || (resp.errors && resp.errors.length)) {
    box.textContent = resp ? resp.errors.map((e) => e.text).join("\n") : "cancelled";
    return;
  }
  const ex = resp.explore;
  const h = document.createElement("h3");
  h.textContent = "explorer: " + explorerPath.join(" → ");
  box.appendChild(h);
  const cur = document.createElement("pre");
  cur.id = "explorerState";
  cur.textContent = Object.entries(state).map(([k, v]) => `${k} = ${show(v)}`).join("\n");
  box.appendChild(cur);
  if (ex.error) {
    const p = document.createElement("p");
    p.textContent = ex.error;
    box.appendChild(p);
  }
  if (!ex.next.length) box.appendChild(document.createTextNode("no action is enabled here"));
  ex.next.forEach((s) => {
    const b = document.createElement("button");
    b.className = "succ";
    const asked = s.asked ? " [" + Object.entries(s.asked).map(([k, v]) => `${k} → ${show(v)}`).join(", ") + "]" : "";
    const changed = Object.entries(s.state).filter(([k, v]) => show(state[k]) !== show(v)).map(([k, v]) => `${k} = ${show(v)}`);
    b.textContent = `${s.action || "initial state"}${asked}: ${changed.join(", ") || "no change"}`;
    b.onclick = () => {
      explorerPath.push(s.action + asked);
      exploreFrom(s.slots, s.state);
    };
    box.appendChild(b);
  });
}

// ---- the other operations

async function runVet() {
  clearResults();
  const resp = await run("vet");
  if (!resp) return;
  markDiagnostics(resp.errors, resp.warnings);
  $("verdict").textContent = resp.errors ? "the spec is rejected" : `vet: ${(resp.warnings || []).length} warnings`;
}
async function runFmt() {
  const resp = await run("fmt");
  if (!resp) return;
  if (resp.errors) return markDiagnostics(resp.errors, []);
  if (resp.formatted !== source()) setSource(resp.formatted, currentName);
}
async function runGraph() {
  clearResults();
  const resp = await run("graph");
  if (!resp) return;
  if (resp.errors) return markDiagnostics(resp.errors, resp.warnings);
  $("verdict").textContent = resp.truncated ? "state graph (truncated: too many states to draw)" : "state graph (the counterexample in red)";
  $("dot").textContent = resp.dot;
  try {
    // Graphviz compiled to WebAssembly, loaded on the first graph.
    const { Graphviz } = await import("@hpcc-js/wasm-graphviz");
    const gv = await Graphviz.load();
    $("graphBox").innerHTML = gv.dot(resp.dot);
  } catch (err) {
    $("dot").hidden = false; // no layout: show the DOT text
  }
}

// ---- examples, lessons, sharing

function fillMenu() {
  const sel = $("examples");
  const group = (label) => {
    const g = document.createElement("optgroup");
    g.label = label;
    sel.appendChild(g);
    return g;
  };
  if (lessons.length) {
    const g = group("lessons: safety versus liveness");
    lessons.forEach((l, i) => g.appendChild(new Option(l.title, "lesson:" + i)));
  }
  const g = group("examples");
  examples.forEach((e, i) => g.appendChild(new Option(e.path, "example:" + i)));
  sel.onchange = () => {
    const [kind, i] = sel.value.split(":");
    if (kind === "lesson") loadExample(lessons[i].path, lessons[i].title + ". " + lessons[i].lesson);
    if (kind === "example") loadExample(examples[i].path);
  };
}
function loadExample(path, lesson) {
  const e = examples.find((x) => x.path === path);
  if (!e) return;
  setSource(e.source, path.split("/").pop());
  $("lesson").textContent = lesson || e.lesson;
  clearResults();
}

function share() {
  const url = new URL(location.href);
  url.hash = "code=" + compressToEncodedURIComponent(source());
  window.history.replaceState(null, "", url);
  $("shareLink").hidden = false;
  $("shareLink").value = url.href;
  $("shareLink").select();
  if (navigator.clipboard) navigator.clipboard.writeText(url.href).catch(() => {});
}
function sharedSource() {
  const m = location.hash.match(/code=([^&]*)/);
  return m ? decompressFromEncodedURIComponent(m[1]) : null;
}

// ---- start

async function main() {
  makeEditor(sharedSource() || "");
  try {
    lessons = await (await fetch("lessons.json")).json();
  } catch (_) {
    lessons = [];
  }
  const t0 = performance.now();
  const onReady = async (m) => {
    if (!engineReady) {
      examples = m.examples || [];
      fillMenu();
      if (native) {
        const s = await (await fetch("api/spec")).json();
        if (s.source && !sharedSource()) setSource(s.source, s.name);
      } else if (!source()) {
        loadExample("approval/toctou.wrap");
      }
      globalThis.wrapcheckLoadMs = performance.now() - t0;
    }
    engineReady = true;
    setBusy(busy);
    if (!busy) setStatus(native ? "ready (native checker)" : `ready (checker loaded in ${Math.round(performance.now() - t0)} ms)`);
  };
  engine = native ? new NativeEngine(onReady) : new WorkerEngine(onReady);
  globalThis.wrapcheckSetSource = setSource; // for scripts driving the page (the end-to-end test)
  $("check").onclick = runCheck;
  $("vet").onclick = runVet;
  $("fmt").onclick = runFmt;
  $("graph").onclick = runGraph;
  $("cancel").onclick = () => engine.cancel("cancelled");
  $("share").onclick = share;
}
main();
