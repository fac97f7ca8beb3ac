// boot.js starts loading the checker before the page's bundle (app.js)
// is fetched and run: wrapcheck.wasm is fetched and compiled, streaming,
// while the rest of the page loads. WRAPCHECK.wasm is the promise of the
// compiled WebAssembly.Module, which app.js hands to its Web Worker.
// Under `wrapcheck ui` (WRAPCHECK.native) the native checker answers and
// nothing is loaded.
(function () {
  const w = globalThis.WRAPCHECK || (globalThis.WRAPCHECK = {});
  if (w.native || !globalThis.WebAssembly) return;
  const url = "wrapcheck.wasm";
  // compileStreaming needs the application/wasm type; a server that
  // sends another gets the plain compile
  w.wasm = WebAssembly.compileStreaming(fetch(url)).catch(() =>
    fetch(url)
      .then((r) => r.arrayBuffer())
      .then((b) => WebAssembly.compile(b)),
  );
  w.wasm.catch(() => {}); // app.js reports the failure
})();
