// The Web Worker that runs the checker (wrapcheck.wasm), so that the page
// stays responsive during a search. Messages in: {id, request}; out:
// {type: "ready", examples, loadMs}, {type: "progress", id, progress},
// {type: "done", id, response}. The page cancels a search by terminating
// the worker and starting a new one.
const t0 = performance.now();
importScripts("wasm_exec.js");
self.wrapcheckProgress = (id, p) => postMessage({ type: "progress", id, progress: JSON.parse(p) });
self.wrapcheckDone = (id, r) => postMessage({ type: "done", id, response: JSON.parse(r) });
self.wrapcheckReady = () =>
  postMessage({ type: "ready", examples: JSON.parse(self.wrapcheckExamples()), loadMs: performance.now() - t0 });
self.onmessage = (e) => self.wrapcheckRun(e.data.id, JSON.stringify(e.data.request));
const go = new self.Go();
WebAssembly.instantiateStreaming(fetch("wrapcheck.wasm"), go.importObject)
  .then(({ instance }) => go.run(instance))
  .catch((err) => postMessage({ type: "fatal", message: String(err) }));
