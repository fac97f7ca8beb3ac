// node-run.mjs runs the checker's WebAssembly build under Node.js, for the
// test that compares its answers with the native engine's:
//
//	node node-run.mjs WASM_EXEC_JS CHECKER_WASM < requests.json > responses.json
//
// requests.json is a JSON array of engine requests; the answer is the JSON
// array of the responses, in the same order.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const [wasmExec, wasmFile] = process.argv.slice(2);
createRequire(import.meta.url)(wasmExec); // defines globalThis.Go
const requests = JSON.parse(readFileSync(0, "utf8"));
const responses = new Array(requests.length);
let next = 0;
const send = () => {
  if (next === requests.length) {
    process.stdout.write(JSON.stringify(responses), () => process.exit(0));
    return;
  }
  globalThis.wrapcheckRun(next, JSON.stringify(requests[next]));
};
globalThis.wrapcheckProgress = () => {};
globalThis.wrapcheckDone = (id, text) => {
  responses[id] = JSON.parse(text);
  next++;
  setTimeout(send, 0);
};
globalThis.wrapcheckReady = () => setTimeout(send, 0);
const go = new globalThis.Go();
const { instance } = await WebAssembly.instantiate(readFileSync(wasmFile), go.importObject);
go.run(instance);
