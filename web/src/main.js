// The wrapcheck playground: an editor, the checker in a Web Worker (or,
// under `wrapcheck ui`, the native checker over HTTP), and the results: the
// verdict, the values of the probability queries (prob.js), the trace as a
// table, the lasso's cycle, the sequence diagram, the state graph and an
// explorer that steps through states by hand.
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { syntaxHighlighting, defaultHighlightStyle } from "@codemirror/language";
import { setDiagnostics, lintGutter } from "@codemirror/lint";
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from "lz-string";
import { wrapLanguage } from "./lang.js";
import { inline, traceTable, renderMermaid, renderNotes, verdictLine, watchBox } from "./trace.js";
import { probPanel } from "./prob.js";

const $ = (id) => document.getElementById(id);
globalThis.wrapcheckTimes = {}; // see main
const native = !!(globalThis.WRAPCHECK && globalThis.WRAPCHECK.native);
const specName = () => currentName || "spec.wrap";
let currentName = "";
let examples = [];
let lessons = [];
let lastCheck = null; // {response, source}
let watches = []; // the watched expressions, in the order added

// ---- the engine: a Web Worker running wrapcheck.wasm, or the native server

// The WebAssembly is fetched and compiled by boot.js, which runs before
// this bundle is loaded (WRAPCHECK.wasm, a promise of the compiled
// module); each worker instantiates that module, so a fresh worker after
// a cancel compiles nothing. The worker asks for the examples only when
// the page has none of its own (a build without them).
class WorkerEngine {
  constructor(onReady, wantExamples) {
    this.onReady = onReady;
    this.wantExamples = wantExamples;
    this.nextId = 1;
    this.pending = new Map();
    this.module = (globalThis.WRAPCHECK && globalThis.WRAPCHECK.wasm) || compileChecker();
    this.module.then(() => (globalThis.wrapcheckTimes.compiled ??= performance.now()), () => {});
    this.start();
  }
  start() {
    this.ready = false;
    this.queue = []; // requests sent before the wasm is loaded
    const worker = (this.worker = new Worker("worker.js"));
    this.module.then(
      (module) => worker.postMessage({ type: "module", module, examples: this.wantExamples }),
      (err) => setStatus("the checker did not load: " + err),
    );
    this.worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === "ready") {
        this.ready = true;
        // a lint queued with another request is dropped: that request
        // answers with the same diagnostics
        const others = this.queue.some((q) => !q.lint);
        for (const msg of this.queue) {
          if (others && msg.lint) {
            const p = this.pending.get(msg.id);
            this.pending.delete(msg.id);
            p.resolve(null);
          } else {
            this.worker.postMessage({ id: msg.id, request: msg.request });
          }
        }
        this.queue = [];
        this.wantExamples = false;
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
  run(request, onProgress, lint = false) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      if (this.ready) this.worker.postMessage({ id, request });
      else this.queue.push({ id, request, lint });
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

// compileChecker fetches and compiles wrapcheck.wasm, streaming where the
// server sends it as application/wasm (boot.js does the same).
function compileChecker() {
  return WebAssembly.compileStreaming(fetch("wrapcheck.wasm")).catch(() =>
    fetch("wrapcheck.wasm").then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b)),
  );
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
          // dispatch may run inside one), and the text is linted again
          // once the typing pauses
          if (u.docChanged) {
            setTimeout(() => view.dispatch(setDiagnostics(view.state, [])), 0);
            lintSoon();
          }
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

// ---- lint while typing: vet (parse, type check, vet's warnings) on the
// text once the typing pauses for lintDelay ms, as the language server
// does; the answer is shown only if the text is still the one linted.

const lintDelay = 300;
let lintTimer = 0;
function lintSoon() {
  clearTimeout(lintTimer);
  lintTimer = setTimeout(lint, lintDelay);
}
async function lint() {
  if (!engine) return;
  const src = source();
  let resp;
  try {
    resp = await engine.run({ op: "vet", name: specName(), source: src }, null, true);
  } catch (_) {
    return; // cancelled with the check it queued behind
  }
  if (!resp || source() !== src) return;
  markDiagnostics(resp.errors, resp.warnings);
  globalThis.wrapcheckTimes.lint ??= performance.now();
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
  if (engine.ready === false) setStatus(`${op}: waiting for the checker to load`);
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
  const resp = await run("check", { watches });
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
  if (v) renderTrace();
  renderNotes($("notes"), rep.notes);
  const panel = probPanel(resp.prob, resp.prob_error);
  if (panel) $("probBox").appendChild(panel);
  if (!globalThis.wrapcheckTimes.firstResult) globalThis.wrapcheckTimes.firstResult = performance.now();
  if (v && resp.mermaid) renderMermaid($("mermaid"), resp.mermaid);
}

// renderLesson shows a lesson: paragraphs split at blank lines, each with
// its inline Markdown.
function renderLesson(text) {
  const box = $("lesson");
  box.textContent = "";
  for (const para of (text || "").split(/\n\s*\n/)) {
    if (!para.trim()) continue;
    const p = document.createElement("p");
    inline(p, para.replace(/\s+/g, " ").trim());
    box.appendChild(p);
  }
}

function clearResults() {
  for (const id of ["verdict", "diagnostics", "probBox", "traceBox", "notes", "explorer", "mermaid", "graphBox"]) $(id).textContent = "";
  $("verdict").className = "";
  $("dot").hidden = true;
}

// renderTrace draws the last check's trace (trace.js) with an explore
// button per step and a column per watch, and the watch box under it;
// note, when given, is a line under the watches.
function renderTrace(note) {
  const resp = lastCheck.response;
  const slots = resp.trace_slots;
  const evaluated = resp.watches || [];
  const shown = watches.map((expr) => evaluated.find((w) => w.expr === expr) || { expr });
  const table = traceTable(resp.report.violation, resp.trace_text, resp.operands, (i) => {
    if (!slots || !slots[i]) return null;
    const b = document.createElement("button");
    b.textContent = "explore";
    b.className = "explore";
    b.onclick = () => startExplorer(slots[i], `step ${i}`);
    return b;
  }, shown);
  $("traceBox").replaceChildren(table, watchBox(shown, addWatch, removeWatch, note));
}

// ---- watches: expressions of the spec evaluated at every step of the
// trace by the checker (web/engine's op "watch", the code of check
// --watch); kept across checks (each check evaluates them on its trace)
// and in the share link.

async function addWatch(expr) {
  if (!watches.includes(expr)) watches.push(expr);
  await evalWatches();
  $("watchInput").focus();
}
function removeWatch(expr) {
  watches = watches.filter((w) => w !== expr);
  renderTrace();
}
// evalWatches evaluates the watches on the last check's trace, unless the
// spec changed since: its states may mean something else now.
async function evalWatches() {
  if (!lastCheck || lastCheck.source !== source()) {
    renderTrace("the spec changed since the check: check again to evaluate the watches");
    return;
  }
  const resp = await run("watch", { watches, trace: lastCheck.response.trace_slots });
  if (!resp) return renderTrace("cancelled");
  if (resp.errors && resp.errors.length) return renderTrace(resp.errors.map((e) => e.text).join("\n"));
  lastCheck.response.watches = resp.watches;
  renderTrace();
}

// ---- the explorer: from a state, every enabled action with its answers

let explorerPath = [];
async function startExplorer(slots, label) {
  explorerPath = [label];
  await exploreFrom(slots);
}
async function exploreFrom(slots) {
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
  cur.textContent = (ex.state_text || []).join("\n");
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
    const asked = s.text.asked && s.text.asked.length ? " [" + s.text.asked.join(", ") + "]" : "";
    b.textContent = `${s.action || "initial state"}${asked}: ${s.text.changed.join(", ") || "no change"}`;
    b.onclick = () => {
      explorerPath.push((s.action || "initial state") + asked);
      exploreFrom(s.slots);
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
  sel.querySelectorAll("optgroup").forEach((g) => g.remove());
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
  renderLesson(lesson || e.lesson);
  clearResults();
}

function share() {
  const url = new URL(location.href);
  url.hash = "code=" + compressToEncodedURIComponent(source());
  if (watches.length) url.hash += "&watches=" + compressToEncodedURIComponent(JSON.stringify(watches));
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
// sharedWatches are the watches of a share link (a JSON list of strings).
function sharedWatches() {
  const m = location.hash.match(/watches=([^&]*)/);
  try {
    const w = m && JSON.parse(decompressFromEncodedURIComponent(m[1]));
    return Array.isArray(w) ? w.filter((x) => typeof x === "string") : [];
  } catch (_) {
    return [];
  }
}

// ---- start
//
// The editor, the menu and the starting example are on the page before
// the checker is ready: the examples come with the page (examplesData,
// written into index.html by the build; under `wrapcheck ui`, from the
// server), the checker is compiled meanwhile (boot.js), and a request
// made before it is ready waits for it. wrapcheckTimes records, in
// performance.now() ms after navigation, when the editor showed text,
// when the wasm was compiled, when the checker was ready, when the first
// lint answered and when the first check's result was on the page (the
// end-to-end test reads them).


function pageExamples() {
  const el = document.getElementById("examplesData");
  if (!el) return null;
  try {
    return JSON.parse(el.textContent);
  } catch (_) {
    return null;
  }
}

function main() {
  const shared = sharedSource();
  watches = sharedWatches();
  const inlined = native ? null : pageExamples();
  const onReady = async (m) => {
    if (!engineReady || (m.examples && !examples.length)) {
      if (m.examples && !examples.length) {
        examples = m.examples;
        fillMenu();
      }
      if (native) {
        const s = await (await fetch("api/spec")).json();
        if (s.source && !shared) setSource(s.source, s.name);
      } else if (!source()) {
        loadExample("approval/toctou.wrap");
      }
    }
    engineReady = true;
    globalThis.wrapcheckTimes.ready = performance.now();
    setBusy(busy);
    if (!busy) setStatus(native ? "ready (native checker)" : `checker ready ${Math.round(globalThis.wrapcheckTimes.ready)} ms after the page opened`);
  };
  // the worker first: the checker loads while the page is drawn
  engine = native ? new NativeEngine(onReady) : new WorkerEngine(onReady, !inlined);
  // requests made before the wasm checker is ready wait for it
  if (!native) engineReady = true;
  makeEditor(shared || "");
  if (inlined) {
    examples = inlined;
    fillMenu();
    if (!shared) loadExample("approval/toctou.wrap");
  }
  if (source()) globalThis.wrapcheckTimes.editor = performance.now();
  setBusy(false);
  fetch("lessons.json")
    .then((r) => r.json())
    .then((l) => {
      lessons = l;
      if (examples.length) fillMenu();
    })
    .catch(() => {});
  globalThis.wrapcheckSetSource = setSource; // for scripts driving the page (the end-to-end test)
  $("check").onclick = runCheck;
  $("vet").onclick = runVet;
  $("fmt").onclick = runFmt;
  $("graph").onclick = runGraph;
  $("cancel").onclick = () => engine.cancel("cancelled");
  $("share").onclick = share;
  if (source()) lint();
}
main();
