// build.mjs builds the trace panel's files into media/: the playground's
// trace code (web/src/trace.js) and Mermaid, bundled by esbuild with
// panel/main.js into media/panel.js, and the playground's style sheet.
// npm test and vsce's prepublish run it: node build.mjs
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const media = join(here, "media");
mkdirSync(media, { recursive: true });
await esbuild.build({
  entryPoints: [join(here, "panel", "main.js")],
  bundle: true,
  minify: true,
  format: "iife",
  outfile: join(media, "panel.js"),
  absWorkingDir: here,
  // web/src/trace.js imports mermaid: from web/node_modules when web's
  // npm ci ran, else from the extension's own
  nodePaths: [join(here, "node_modules")],
  logLevel: "warning",
});
copyFileSync(join(here, "..", "..", "web", "src", "style.css"), join(media, "style.css"));
