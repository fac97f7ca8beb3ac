// The static playground: the checker runs in the page (WebAssembly).
// `wrapcheck ui` serves its own config.js, which sets native to true.
globalThis.WRAPCHECK = { native: false };
