// build.mjs builds the playground into web/dist: the checker compiled to
// WebAssembly (go build, GOOS=js GOARCH=wasm), Go's wasm_exec.js, the page
// and its worker bundled by esbuild, and the lessons of
// docs/safety-vs-liveness.md. Run from anywhere, after `npm ci` in web/:
//
//	node web/build.mjs [--no-wasm | --page] [--out DIR]
//
// --no-wasm keeps the .wasm of an earlier build (the page alone changed);
// --page builds the page alone, without the .wasm and wasm_exec.js (what
// `wrapcheck ui` serves, with the native checker behind it: web/page);
// --out builds into DIR instead of web/dist.
//
// esbuild names the chunks it splits off by a hash of their content, so a
// build whose code changed writes new names. The build lists the files
// esbuild wrote in DIR/.build-outputs.json and, after each build, removes
// those of the previous list that it did not write again: the files it
// made, never others. A DIR without the list (built before it was kept)
// loses the files named as esbuild names its chunks (NAME-HASH.js).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const outFlag = process.argv.indexOf("--out");
const dist = outFlag > 0 ? resolve(process.argv[outFlag + 1]) : join(web, "dist");
mkdirSync(dist, { recursive: true });

const pageOnly = process.argv.includes("--page");
if (pageOnly) {
  // the page alone
} else if (!process.argv.includes("--no-wasm") || !existsSync(join(dist, "wrapcheck.wasm"))) {
  execFileSync("go", ["build", "-trimpath", "-ldflags=-s", "-o", join(dist, "wrapcheck.wasm"), "./web/wasm"], {
    cwd: root,
    env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
    stdio: "inherit",
  });
}
if (!pageOnly) {
  const goroot = execFileSync("go", ["env", "GOROOT"], { cwd: root }).toString().trim();
  copyFileSync(join(goroot, "lib", "wasm", "wasm_exec.js"), join(dist, "wasm_exec.js"));
}

const built = await esbuild.build({
  entryPoints: { app: join(web, "src", "main.js"), worker: join(web, "src", "worker.js") },
  bundle: true,
  minify: true,
  format: "esm",
  splitting: true,
  outdir: dist,
  // paths in the output are relative to web/, whatever DIR is: the same
  // sources give the same files (web/page's test compares them)
  absWorkingDir: web,
  metafile: true,
  logLevel: "warning",
});
removeStale(Object.keys(built.metafile.outputs).map((f) => resolve(web, f)));
for (const f of ["style.css", "config.js", "boot.js"]) copyFileSync(join(web, "src", f), join(dist, f));
// The static page carries the examples (the engine's list, asked of the
// wasm just built, kept in examples.json for a --no-wasm build), so that
// its editor and menu are there before the checker is ready; the page of
// `wrapcheck ui` (--page) asks its server for them.
let html = readFileSync(join(web, "src", "index.html"), "utf8");
if (!pageOnly) {
  const ex = await examplesOf(dist);
  if (ex) {
    const data = JSON.stringify(ex).replace(/</g, "\\u003c");
    html = html.replace(/<!-- examples:[^>]*-->/, () => `<script type="application/json" id="examplesData">${data}</script>`);
  }
}
writeFileSync(join(dist, "index.html"), html);
writeFileSync(join(dist, "lessons.json"), JSON.stringify(lessons(readFileSync(join(root, "docs", "safety-vs-liveness.md"), "utf8"))));

// examplesOf returns the examples of the checker in dir (wrapcheck.wasm,
// run under Node.js as web/node-run.mjs runs it) and writes them to
// dir/examples.json; when that wasm does not run, those of an earlier
// build's examples.json, or null.
async function examplesOf(dir) {
  const file = join(dir, "examples.json");
  try {
    createRequire(import.meta.url)(join(dir, "wasm_exec.js"));
    const go = new globalThis.Go();
    const { instance } = await WebAssembly.instantiate(readFileSync(join(dir, "wrapcheck.wasm")), go.importObject);
    const ex = await new Promise((done) => {
      globalThis.wrapcheckReady = () => done(JSON.parse(globalThis.wrapcheckExamples()));
      go.run(instance);
    });
    writeFileSync(file, JSON.stringify(ex));
    return ex;
  } catch (err) {
    try {
      return JSON.parse(readFileSync(file, "utf8"));
    } catch (_) {
      console.warn(`build.mjs: no examples in the page (${err.message})`);
      return null;
    }
  }
}

// removeStale removes the files of the previous build's list (or, with
// no list, those named as esbuild names its chunks) that this build did
// not write, then records what it wrote.
function removeStale(outputs) {
  const list = join(dist, ".build-outputs.json");
  const now = new Set(outputs.map((f) => basename(f)));
  for (const f of outputs) if (dirname(f) !== dist) throw new Error(`esbuild wrote ${f}, outside ${dist}`);
  let before;
  try {
    before = JSON.parse(readFileSync(list, "utf8"));
  } catch (err) {
    if (err.code !== "ENOENT") throw err;
    before = readdirSync(dist).filter((f) => /^[A-Za-z0-9_.-]+-[A-Z0-9]{8}\.js$/.test(f));
  }
  for (const f of before) {
    // a name of the list, in dist itself, and a file: nothing else goes
    if (typeof f !== "string" || f !== basename(f) || f === "." || f === ".." || now.has(f)) continue;
    const st = lstatSync(join(dist, f), { throwIfNoEntry: false });
    if (st && (st.isFile() || st.isSymbolicLink())) rmSync(join(dist, f));
  }
  writeFileSync(list, JSON.stringify([...now].sort(), null, 1) + "\n");
}

// lessons turns each "## " section of the safety-vs-liveness guide that
// links an example into a menu entry: its title, its first paragraph (the
// lesson) and the example it runs.
function lessons(md) {
  const out = [];
  for (const sec of md.split(/^## /m).slice(1)) {
    const title = sec.slice(0, sec.indexOf("\n")).trim();
    const link = sec.match(/\.\.\/examples\/([a-z_]+\/[a-z_]+\.wrap)/);
    if (!link) continue;
    const paras = sec.slice(sec.indexOf("\n")).split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p && !p.startsWith("```") && !p.startsWith("#"));
    const lesson = (paras[0] || "").replace(/\[([^\]]+)\]\([^)]+\)/g, "$1").replace(/\s+/g, " ");
    out.push({ title, path: link[1], lesson });
  }
  return out;
}
