// build.mjs builds the playground into web/dist: the checker compiled to
// WebAssembly (go build, GOOS=js GOARCH=wasm), Go's wasm_exec.js, the page
// and its worker bundled by esbuild, and the lessons of
// docs/safety-vs-liveness.md. Run from anywhere, after `npm ci` in web/:
//
//	node web/build.mjs [--no-wasm]
//
// --no-wasm keeps the .wasm of an earlier build (the page alone changed).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const web = dirname(fileURLToPath(import.meta.url));
const root = dirname(web);
const dist = join(web, "dist");
mkdirSync(dist, { recursive: true });

if (!process.argv.includes("--no-wasm") || !existsSync(join(dist, "wrapcheck.wasm"))) {
  execFileSync("go", ["build", "-trimpath", "-ldflags=-s", "-o", join(dist, "wrapcheck.wasm"), "./web/wasm"], {
    cwd: root,
    env: { ...process.env, GOOS: "js", GOARCH: "wasm" },
    stdio: "inherit",
  });
}
const goroot = execFileSync("go", ["env", "GOROOT"], { cwd: root }).toString().trim();
copyFileSync(join(goroot, "lib", "wasm", "wasm_exec.js"), join(dist, "wasm_exec.js"));

await esbuild.build({
  entryPoints: { app: join(web, "src", "main.js"), worker: join(web, "src", "worker.js") },
  bundle: true,
  minify: true,
  format: "esm",
  splitting: true,
  outdir: dist,
  logLevel: "warning",
});
for (const f of ["index.html", "style.css", "config.js"]) copyFileSync(join(web, "src", f), join(dist, f));
writeFileSync(join(dist, "lessons.json"), JSON.stringify(lessons(readFileSync(join(root, "docs", "safety-vs-liveness.md"), "utf8"))));

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
