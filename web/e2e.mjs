// e2e.mjs drives the playground in headless Chromium (puppeteer-core), for
// web/e2e's Go test, which serves web/dist and passes:
//
//	node e2e.mjs URL SCREENSHOT_DIR [CHROMIUM [native]]
//
// With "native" the page is the one `wrapcheck ui` serves, opened on the
// TOCTOU example at the address with the token it prints, and only the
// native checker's part is run.
// It prints one JSON object of measurements and exits 1 on the first
// failed expectation, with its message on stderr.
import puppeteer from "puppeteer-core";

const [url, shots, chromium = "/usr/bin/chromium", mode = "wasm"] = process.argv.slice(2);
let page;
const fail = (msg) => {
  console.error("e2e: " + msg);
  process.exit(1);
};
const expect = (ok, msg) => ok || fail(msg);

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
});
const out = {};
try {
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()));
  const t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => !document.getElementById("check").disabled, { timeout: 30000 });
  out.ready_ms = Date.now() - t0;

  const check = async () => {
    await page.click("#check");
    await page.waitForFunction(() => document.getElementById("verdict").textContent !== "" && !document.getElementById("check").disabled, { timeout: 60000 });
  };
  const pick = async (path) => {
    const value = await page.evaluate((p) => [...document.querySelectorAll("#examples option")].find((o) => o.textContent === p)?.value, path);
    expect(value, `no example ${path} in the menu`);
    await page.select("#examples", value);
  };
  const rows = () => page.$$eval("#trace tbody tr", (trs) => trs.map((tr) => ({ cls: tr.className, cells: [...tr.cells].map((td) => td.textContent) })));

  if (mode === "native") {
    // wrapcheck ui: the spec it was given is in the editor, the native
    // checker answers, the explorer steps.
    await page.waitForFunction(() => document.querySelector(".cm-content")?.textContent.includes("ApprovalTOCTOU"), { timeout: 30000 });
    expect(!page.url().includes("token="), "the token is still in the address bar: " + page.url());
    // the server refuses a request without the cookie, and a POST that
    // is not application/json even with it
    const refused = await page.evaluate(async () => [
      (await fetch("api/spec", { credentials: "omit" })).status,
      (await fetch("api/run", { method: "POST", headers: { "Content-Type": "text/plain" }, body: '{"op":"fmt","source":"spec X"}' })).status,
    ]);
    expect(refused[0] === 403 && refused[1] === 415, "requests without the cookie and as text/plain answered " + refused);
    await check();
    const v = await page.$eval("#verdict", (e) => e.textContent);
    expect(v.includes("violated") && v.includes("ShippedWhatWasApproved"), "native TOCTOU verdict: " + v);
    const r = await rows();
    expect(r.length === 5 && r[2].cells[3] === "content = 1", "native TOCTOU trace: " + JSON.stringify(r));
    await page.click("#trace tbody tr:nth-child(2) button.explore");
    await page.waitForSelector("#explorer button.succ", { timeout: 30000 });
    out.native_explorer = await page.$$eval("#explorer button.succ", (bs) => bs.map((b) => b.textContent));
    expect(out.native_explorer.length === 2, "native explorer: " + JSON.stringify(out.native_explorer));
    out.native_status = await page.$eval("#status", (e) => e.textContent);
    await page.screenshot({ path: shots + "/native.png", fullPage: true });
    expect(errors.length === 0, "page errors: " + errors.join("; "));
    console.log(JSON.stringify(out));
    await browser.close();
    process.exit(0);
  }

  // Safety: the TOCTOU example (loaded first), a finite trace.
  await pick("approval/toctou.wrap");
  const t1 = Date.now();
  await check();
  out.toctou_check_ms = Date.now() - t1;
  out.first_result_ms = out.ready_ms + out.toctou_check_ms;
  out.toctou_status = await page.$eval("#status", (e) => e.textContent);
  let v = await page.$eval("#verdict", (e) => e.textContent);
  expect(v.includes("violated") && v.includes("ShippedWhatWasApproved"), "TOCTOU verdict: " + v);
  let r = await rows();
  expect(r.length === 5, `TOCTOU trace has ${r.length} rows, want 4 steps and the violated invariant`);
  expect(r[4].cls === "violated" && r[4].cells[0].includes("shipped == approved: false"), "TOCTOU's operands: " + JSON.stringify(r[4]));
  expect(r[1].cells[1] === "approver.approve" && r[1].cells[3] === "granted = true", "TOCTOU step 1: " + JSON.stringify(r[1]));
  expect(r[2].cells[3] === "content = 1", "TOCTOU step 2 shows only the changed variable: " + JSON.stringify(r[2]));
  expect(!r.some((x) => x.cls.includes("cycle")), "a finite trace has no cycle");
  await page.waitForSelector("#mermaid svg", { timeout: 30000 });
  await page.screenshot({ path: shots + "/toctou.png", fullPage: true });

  // The explorer: from step 1, every enabled action; step into editor.edit.
  await page.click("#trace tbody tr:nth-child(2) button.explore");
  await page.waitForSelector("#explorer button.succ", { timeout: 30000 });
  let succ = await page.$$eval("#explorer button.succ", (bs) => bs.map((b) => b.textContent));
  expect(succ.some((s) => s.startsWith("editor.edit")) && succ.some((s) => s.startsWith("releaser.release")), "explorer from step 1: " + JSON.stringify(succ));
  const edit = succ.findIndex((s) => s.startsWith("editor.edit"));
  await page.evaluate((i) => document.querySelectorAll("#explorer button.succ")[i].click(), edit);
  await page.waitForFunction(() => document.getElementById("explorerState")?.textContent.includes("content = 1"), { timeout: 30000 });
  out.explorer_steps = succ;

  // The state graph, laid out by Graphviz in the page.
  await page.click("#graph");
  await page.waitForSelector("#graphBox svg g.node", { timeout: 30000 });
  out.graph_nodes = await page.$$eval("#graphBox svg g.node", (ns) => ns.length);
  expect(out.graph_nodes === 24, `TOCTOU's graph has ${out.graph_nodes} nodes, want 24 (wrapcheck graph's count)`);
  await page.screenshot({ path: shots + "/graph.png", fullPage: true });

  // An agent's answers: the explorer lists each answer as its own step.
  await pick("pipeline/fail_open.wrap");
  await check();
  await page.click("#trace tbody tr:nth-child(1) button.explore");
  await page.waitForSelector("#explorer button.succ", { timeout: 30000 });
  succ = await page.$$eval("#explorer button.succ", (bs) => bs.map((b) => b.textContent));
  expect(succ.some((s) => s.includes("→")), "fail_open's explorer shows no agent answer: " + JSON.stringify(succ));
  out.agent_steps = succ.length;

  // Liveness: a lasso, its cycle marked.
  await pick("classic/traffic_light_weak.wrap");
  await check();
  v = await page.$eval("#verdict", (e) => e.textContent);
  expect(v.includes("violated") && v.includes("CarEventuallyDrives"), "traffic light verdict: " + v);
  r = await rows();
  expect(r.some((x) => x.cls.includes("loopstart")), "no row starts the cycle: " + JSON.stringify(r));
  expect(r[r.length - 1].cls === "back" && r[r.length - 1].cells[0].includes("back to step"), "no row loops back: " + JSON.stringify(r[r.length - 1]));
  await page.screenshot({ path: shots + "/lasso.png", fullPage: true });

  // A spec error, underlined at its position.
  await page.evaluate(() => {
    globalThis.wrapcheckSetSource("spec Bad\nvar x: 0..3 = 0\nprocess p {\n  action a when x < 3 { x = x + 1 }\n}\n");
  });
  await check();
  const diag = await page.$eval("#diagnostics", (e) => e.textContent);
  expect(diag.includes("spec.wrap:4:"), "the error has no position: " + diag);
  await page.waitForSelector(".cm-lintRange-error", { timeout: 10000 });

  // Cancel a long run, then check again in the fresh worker.
  await page.evaluate(() => {
    globalThis.wrapcheckSetSource("spec Long\nvar a: 0..2000 = 0\nvar b: 0..2000 = 0\nprocess p {\n  action incA when a < 2000 { a := a + 1 }\n  action incB when b < 2000 { b := b + 1 }\n}\n");
  });
  await page.$eval("#maxStates", (e) => (e.value = "100000000"));
  await page.$eval("#timeLimit", (e) => (e.value = "120"));
  await page.click("#check");
  await page.waitForFunction(() => !document.getElementById("cancel").disabled, { timeout: 10000 });
  await page.waitForFunction(() => /states, depth/.test(document.getElementById("status").textContent), { timeout: 10000 });
  const progress = await page.$eval("#status", (e) => e.textContent);
  const tc = Date.now();
  await page.click("#cancel");
  await page.waitForFunction(() => document.getElementById("verdict").textContent === "cancelled", { timeout: 10000 });
  out.cancel_ms = Date.now() - tc;
  out.progress_seen = progress;
  await page.waitForFunction(() => !document.getElementById("check").disabled, { timeout: 30000 });
  await pick("approval/toctou.wrap");
  await check();
  v = await page.$eval("#verdict", (e) => e.textContent);
  expect(v.includes("ShippedWhatWasApproved"), "after cancel: " + v);

  // The share link: the spec comes back from the URL fragment.
  await page.click("#share");
  const link = await page.$eval("#shareLink", (e) => e.value);
  expect(link.includes("#code="), "share link: " + link);
  const page2 = await browser.newPage();
  await page2.goto(link, { waitUntil: "load" });
  await page2.waitForFunction(() => document.querySelector(".cm-content")?.textContent.includes("ApprovalTOCTOU"), { timeout: 30000 });
  expect(errors.length === 0, "page errors: " + errors.join("; "));
} catch (err) {
  const status = page ? await page.$eval("#status", (e) => e.textContent).catch(() => "?") : "?";
  if (page) await page.screenshot({ path: shots + "/failure.png", fullPage: true }).catch(() => {});
  fail(`${err.message} (status: ${status})`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
