// The Web Worker that runs the checker (wrapcheck.wasm), so that the page
// stays responsive during a search. Messages in: first {type: "module",
// module, examples} (the compiled WebAssembly.Module; examples: whether
// the page wants the examples' list), then {id, request}; out: {type:
// "ready", examples, loadMs}, {type: "progress", id, progress}, {type:
// "done", id, response}. The page cancels a search by terminating the
// worker and starting a new one, with the same module.
const t0 = performance.now();
importScripts("wasm_exec.js");
let wantExamples = false;
self.wrapcheckProgress = (id, p) => postMessage({ type: "progress", id, progress: JSON.parse(p) });
self.wrapcheckDone = (id, r) => postMessage({ type: "done", id, response: JSON.parse(r) });
self.wrapcheckReady = () =>
  postMessage({ type: "ready", examples: wantExamples ? JSON.parse(self.wrapcheckExamples()) : undefined, loadMs: performance.now() - t0 });
self.onmessage = (e) => {
  const m = e.data;
  if (m.type !== "module") return self.wrapcheckRun(m.id, JSON.stringify(m.request));
  wantExamples = !!m.examples;
  const go = new self.Go();
  WebAssembly.instantiate(m.module, go.importObject)
    .then((instance) => go.run(instance))
    .catch((err) => postMessage({ type: "fatal", message: String(err) }));
};
