// panel.mjs tests the trace panel end to end outside VS Code, for
// editors' Go test (TestVSCode/panel):
//
//	node test/panel.mjs WRAPCHECK CHROMIUM FILE:CHECK...
//
// For each FILE:CHECK it starts `WRAPCHECK lsp`, opens FILE, runs the check
// lens's command (wrapcheck.check), reads the lens's new title and the
// counterexample (wrapcheck.trace, as the extension asks it), then opens
// the panel's page (panel/html.js, with the media/ that build.mjs built,
// under the same Content-Security-Policy) in headless Chromium, posts the
// counterexample to it as the extension does, and reads what the page
// shows. Then it types two watches into the panel's watch box, one good
// and one bad, passes each message the panel posts to the extension's
// handler (panel/host.js) between the page and the same server, and reads
// the watch columns and the box. It prints one JSON array, one object per
// check; errors of the page (a CSP violation included) are in each
// object's "errors".
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";

const require = createRequire(import.meta.url);
const { panelHTML } = require("../panel/html.js");
const { panelMessage } = require("../panel/host.js");
const here = dirname(dirname(fileURLToPath(import.meta.url)));
const [wrapcheck, chromium, ...checks] = process.argv.slice(2);

// server is a minimal LSP client over the server's stdio.
function server() {
  const proc = spawn(wrapcheck, ["lsp"], { stdio: ["pipe", "pipe", "inherit"] });
  let buf = Buffer.alloc(0);
  let next = 1;
  const pending = new Map();
  const notes = [];
  const waiters = [];
  proc.stdout.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.slice(0, end).toString())[1]);
      if (buf.length < end + 4 + len) return;
      const msg = JSON.parse(buf.slice(end + 4, end + 4 + len).toString());
      buf = buf.slice(end + 4 + len);
      if (msg.id !== undefined && !msg.method) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        msg.error ? p.reject(new Error(msg.error.message)) : p.resolve(msg.result);
      } else {
        notes.push(msg);
        waiters.splice(0).forEach((w) => w());
      }
    }
  });
  const send = (msg) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...msg }));
    proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    proc.stdin.write(body);
  };
  return {
    request(method, params) {
      const id = next++;
      send({ id, method, params });
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    notify: (method, params) => send({ method, params }),
    // note waits for the first message of method, after those taken
    async note(method) {
      const deadline = Date.now() + 60000;
      for (;;) {
        const i = notes.findIndex((m) => m.method === method);
        if (i >= 0) return notes.splice(0, i + 1)[i].params;
        if (Date.now() > deadline) throw new Error("no " + method);
        await new Promise((r) => {
          waiters.push(r);
          setTimeout(r, 1000);
        });
      }
    },
    close: () => proc.kill(),
  };
}

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
});
const results = [];
try {
  for (const arg of checks) {
    const [file, name] = arg.split(":");
    const uri = pathToFileURL(resolve(file)).href;
    const lsp = server();
    await lsp.request("initialize", { processId: null, capabilities: {} });
    lsp.notify("initialized", {});
    lsp.notify("textDocument/didOpen", { textDocument: { uri, languageId: "wrap", version: 1, text: readFileSync(file, "utf8") } });
    await lsp.note("textDocument/publishDiagnostics");
    await lsp.request("workspace/executeCommand", { command: "wrapcheck.check", arguments: [uri, name] });
    const message = await lsp.note("window/showMessage");
    const lenses = await lsp.request("textDocument/codeLens", { textDocument: { uri } });
    const data = await lsp.request("workspace/executeCommand", { command: "wrapcheck.trace", arguments: [uri, name] });

    const dir = mkdtempSync(join(tmpdir(), "wrapcheck-panel-"));
    const media = join(here, "media");
    const html = panelHTML({
      script: pathToFileURL(join(media, "panel.js")).href,
      style: pathToFileURL(join(media, "style.css")).href,
      cspSource: "file:",
      nonce: "bm9uY2U=",
    });
    writeFileSync(join(dir, "panel.html"), html);
    const page = await browser.newPage();
    // the webview's API: what the panel posts to the extension
    await page.evaluateOnNewDocument(() => {
      window.posted = [];
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.posted.push(m) });
    });
    await page.setViewport({ width: 900, height: 900 });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(pathToFileURL(join(dir, "panel.html")).href, { waitUntil: "load" });
    await page.evaluate((d) => window.postMessage(d, "*"), data);
    await page.waitForFunction(() => document.body.dataset.rendered === "1", { timeout: 60000 });
    const shown = await page.evaluate(() => ({
      verdict: document.getElementById("verdict").textContent,
      shape: document.getElementById("shape").textContent,
      rows: [...document.querySelectorAll("#trace tbody tr")].map((tr) => ({
        class: tr.className,
        cells: [...tr.querySelectorAll("td")].map((td) => td.textContent),
      })),
      notes: [...document.querySelectorAll("#notes li")].map((li) => li.textContent),
      diagram: !!document.querySelector("#mermaid svg"),
      diagramText: (document.querySelector("#mermaid svg") || { textContent: "" }).textContent,
    }));
    // the watch box: each watch typed is a message to the extension,
    // whose handler asks the server and posts the trace back
    const host = {
      uri,
      name,
      request: (u, n, w) => lsp.request("workspace/executeCommand", { command: "wrapcheck.trace", arguments: [u, n, w] }),
      post: (d) => page.evaluate((d) => window.postMessage(d, "*"), d),
      save: (w) => (saved = w),
    };
    let saved = null;
    const messages = [];
    for (const [i, expr] of ["draft + 1", "drfat"].entries()) {
      await page.click("#watchInput");
      await page.keyboard.type(expr);
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => window.posted.some((m) => m.watches), { timeout: 10000 });
      const m = await page.evaluate(() => window.posted.splice(0).find((m) => m.watches));
      messages.push(m);
      await panelMessage(m, host);
      await page.waitForFunction((n) => document.body.dataset.rendered === String(n), { timeout: 60000 }, i + 2);
    }
    const watch = await page.evaluate(() => {
      const t = document.getElementById("trace");
      const head = [...t.tHead.rows[0].cells];
      const j = head.findIndex((th) => th.classList.contains("watch"));
      return {
        heads: head.filter((th) => th.classList.contains("watch")).map((th) => th.textContent),
        column: j < 0 ? [] : [...t.tBodies[0].rows].filter((tr) => tr.cells.length > 1).map((tr) => tr.cells[j].textContent),
        list: [...document.querySelectorAll("#watchList li")].map((li) => li.querySelector("code").textContent + " " + (li.querySelector(".watcherror")?.textContent || "")),
      };
    });
    lsp.close();
    await page.close();
    results.push({ check: arg, message, lens: lenses.map((l) => l.command.title), ...shown, errors, watch: { messages, saved, ...watch } });
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(results, null, 1));
