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
// a record whose value is longer than the trace table is wide
const WIDE = `spec Wide
type Shade = {a_rather_long_shade_name, another_rather_long_shade_name}
type Palette = record { first_colour_of_the_palette: Shade, second_colour_of_the_palette: Shade, third_colour_of_the_palette: Shade, fourth_colour_of_the_palette: Shade, fifth_colour_of_the_palette: Shade }
var palette: Palette
var n: 0..1 = 0
process p {
  action a when n < 1 { n := 1 }
}
invariant Never: n == 0
`;
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
  await page.goto(url, { waitUntil: "load" });

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
    // a watch, evaluated by the native engine
    await page.type("#watchInput", "content * 2");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#trace th.watch", { timeout: 30000 });
    out.native_watch = await page.$$eval("#trace tbody tr", (trs) => trs.filter((tr) => tr.cells.length > 1).map((tr) => tr.cells[4].textContent));
    expect(out.native_watch.join() === "0,0,2,2", "native watch column: " + JSON.stringify(out.native_watch));
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

  // At the load event the page is usable: the editor holds the TOCTOU
  // example, Check is enabled, no "loading" message (the checker loads
  // behind it).
  const atLoad = await page.evaluate(() => ({
    editor: document.querySelector(".cm-content")?.textContent || "",
    lines: document.querySelectorAll(".cm-line").length,
    status: document.getElementById("status").textContent,
    body: document.body.innerText,
    checkEnabled: !document.getElementById("check").disabled,
  }));
  await page.screenshot({ path: shots + "/load.png" });
  expect(atLoad.editor.includes("spec ApprovalTOCTOU") && atLoad.lines > 20, "at load the editor is empty: " + JSON.stringify(atLoad.editor.slice(0, 80)));
  expect(!/loading/i.test(atLoad.body), "at load the page says it is loading: " + JSON.stringify(atLoad.status));
  expect(atLoad.checkEnabled, "at load Check is disabled");

  // Safety: the TOCTOU example, a finite trace, checked at once: the
  // first counterexample's time after navigation (performance.now() in
  // the page, when the verdict is on it).
  await check();
  out.times_ms = await page.evaluate(() => Object.fromEntries(Object.entries(globalThis.wrapcheckTimes).map(([k, v]) => [k, Math.round(v)])));
  out.first_result_ms = out.times_ms.firstResult;
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
  // the diagram's text is at least the size of the page's (drawn size:
  // the font size times the SVG's scale)
  const fonts = await page.$eval("#mermaid svg", (svg) => {
    const vb = svg.viewBox.baseVal;
    const scale = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
    const sizes = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim()).map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    return { body: parseFloat(getComputedStyle(document.body).fontSize), min: Math.min(...sizes), n: sizes.length };
  });
  out.diagram_font_px = Math.round(fonts.min * 10) / 10;
  expect(fonts.n > 0 && fonts.min >= fonts.body, `the diagram's text is ${fonts.min.toFixed(1)} px, the page's ${fonts.body} px`);
  await page.screenshot({ path: shots + "/toctou.png", fullPage: true });

  // Watches: an expression typed under the trace becomes a column with
  // its value at every step; a bad one shows its error in the box and no
  // column; both stay across a new check; removed, the column goes.
  const watchCols = () =>
    page.evaluate(() => {
      const t = document.getElementById("trace");
      const heads = [...t.tHead.rows[0].cells].map((th) => th.textContent);
      return [...t.tHead.rows[0].cells]
        .map((th, j) => (th.classList.contains("watch") ? { expr: heads[j], cells: [...t.tBodies[0].rows].filter((tr) => tr.cells.length > 1).map((tr) => tr.cells[j].textContent) } : null))
        .filter(Boolean);
    });
  const watchList = () => page.$$eval("#watchList li", (lis) => lis.map((li) => ({ expr: li.querySelector("code").textContent, error: li.querySelector(".watcherror")?.textContent || "" })));
  const watch = async (expr, n) => {
    await page.click("#watchInput");
    await page.keyboard.type(expr);
    await page.keyboard.press("Enter");
    await page.waitForFunction((n) => document.querySelectorAll("#watchList li").length === n && !document.getElementById("check").disabled, { timeout: 30000 }, n);
  };
  await watch("content + 1", 1);
  let cols = await watchCols();
  expect(JSON.stringify(cols) === JSON.stringify([{ expr: "content + 1", cells: ["1", "1", "2", "2"] }]), "the watch column of content + 1: " + JSON.stringify(cols));
  await watch("contnet * 2", 2);
  let wl = await watchList();
  expect(wl[1].error === "watch:2:1: undefined: contnet (did you mean content?)" && wl[0].error === "", "the bad watch's error: " + JSON.stringify(wl));
  expect((await watchCols()).length === 1, "a refused watch has a column");
  await page.screenshot({ path: shots + "/watch.png", fullPage: true });
  await check();
  cols = await watchCols();
  wl = await watchList();
  expect(cols.length === 1 && cols[0].cells.join() === "1,1,2,2" && wl.length === 2 && wl[1].error.includes("undefined: contnet"), "the watches after a new check: " + JSON.stringify({ cols, wl }));
  r = await rows();
  expect(r[4].cls === "violated" && r[4].cells.length === 1 && r[2].cells[3] === "content = 1" && r[2].cells[4] === "2", "the trace with a watch column: " + JSON.stringify(r));
  for (let n = 1; n >= 0; n--) {
    await page.click("#watchList li:last-child button.unwatch");
    await page.waitForFunction((n) => document.querySelectorAll("#watchList li").length === n, { timeout: 10000 }, n);
  }
  expect((await watchCols()).length === 0, "a removed watch keeps its column");
  out.watch_columns = "content + 1: 1,1,2,2";

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

  // Probabilities: a spec with answer rates shows each query's values
  // (the exact fraction and its decimal, the range over the counts'
  // intervals) and its bound, as `wrapcheck prob` prints them; the
  // check's own verdict stays above it.
  await pick("pipeline/rates.wrap");
  await check();
  await page.waitForSelector("#prob tbody tr", { timeout: 30000 });
  const prob = await page.$$eval("#prob tbody tr", (trs) => trs.map((tr) => [tr.className, ...[...tr.cells].map((td) => td.textContent)].join(" | ")));
  const probLine = await page.$eval("#probVerdict", (e) => e.className + ": " + e.textContent);
  const want = [
    "value | Caveat | P(eventually rel == caveat) | 1/16 (0.062500) | 1 | [0.000024, 1] at 95% | ",
    "violated | CleanCaveat | P(eventually (rel == caveat and draft == clean)) |  | 1 | [0, 1] at 95% | <= 1/20: violated",
    "value | Stop | P(eventually phase == stopped) | 0 | 0 | [0, 0.121872] at 95% | ",
    "value | FabricationReleased | P(eventually (rel == clean_release and draft == fabricated)) |  | 15/16 (0.937500) | [0, 0.999976] at 95% | ",
    "value | Calls | E(calls until (phase == done or phase == stopped)) | 5/4 (1.250000) | 2 | [1.006309, 2.388507] at 95% | ",
  ];
  expect(JSON.stringify(prob) === JSON.stringify(want), "the probabilities panel:\n" + prob.join("\n") + "\nwant:\n" + want.join("\n"));
  expect(probLine === "violated: a bound can be broken · 29 states, 34 choices", "the probabilities' verdict: " + probLine);
  v = await page.$eval("#verdict", (e) => e.textContent);
  expect(v.startsWith("PipelineRates: holds"), "rates.wrap's check verdict: " + v);
  out.prob_rows = prob.length;
  await page.screenshot({ path: shots + "/prob.png", fullPage: true });
  // a bound kept, a query within k steps
  await page.evaluate(() =>
    globalThis.wrapcheckSetSource(
      "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\naction throw when d == 0 { d := ask roll() }\nterminal d > 0\nprobability Six: max eventually d == 6 within 1 bound <= 1/6\n",
    ),
  );
  await check();
  await page.waitForSelector("#prob tbody tr", { timeout: 30000 });
  const die = await page.$$eval("#prob tbody tr", (trs) => trs.map((tr) => [tr.className, ...[...tr.cells].map((td) => td.textContent)].join(" | ")));
  expect(JSON.stringify(die) === JSON.stringify(["holds | Six | P(eventually d == 6 within 1) |  | 1/6 (0.166667) |  | <= 1/6: holds"]), "the die's panel: " + JSON.stringify(die));
  expect((await page.$eval("#probVerdict", (e) => e.className)) === "holds", "the die's bound is not shown kept");
  // a spec without queries has no panel
  await pick("approval/toctou.wrap");
  await check();
  expect((await page.$("#probPanel")) === null, "toctou shows a probabilities panel");

  // An agent's answers: the explorer lists each answer as its own step.
  await pick("pipeline/fail_open.wrap");
  await check();
  await page.click("#trace tbody tr:nth-child(1) button.explore");
  await page.waitForSelector("#explorer button.succ", { timeout: 30000 });
  succ = await page.$$eval("#explorer button.succ", (bs) => bs.map((b) => b.textContent));
  expect(succ.some((s) => s.includes("→")), "fail_open's explorer shows no agent answer: " + JSON.stringify(succ));
  out.agent_steps = succ.length;

  // Liveness: the lesson's lasso, its cycle marked, its values in wrap's
  // notation, the fairness note under it; the lesson's Markdown drawn.
  const lesson = await page.evaluate(() => [...document.querySelectorAll("#examples option")].find((o) => o.textContent === "Liveness: a lasso")?.value);
  expect(lesson, "no lesson 'Liveness: a lasso' in the menu");
  await page.select("#examples", lesson);
  const box = await page.$eval("#lesson", (e) => ({ text: e.textContent, strong: [...e.querySelectorAll("strong")].map((s) => s.textContent) }));
  expect(!box.text.includes("**") && box.strong.includes("forever"), "the lesson's Markdown is not drawn: " + JSON.stringify(box));
  await check();
  v = await page.$eval("#verdict", (e) => e.textContent);
  expect(v.includes("violated") && v.includes("EveryRunEnds"), "rerender_forever verdict: " + v);
  r = await rows();
  expect(r.some((x) => x.cls.includes("loopstart")), "no row starts the cycle: " + JSON.stringify(r));
  expect(r[r.length - 1].cls === "back" && r[r.length - 1].cells[0].includes("back to step"), "no row loops back: " + JSON.stringify(r[r.length - 1]));
  expect(r[0].cells[3].split("\n").includes("rel = [unreleased, unreleased]") && !r.some((x) => x.cells.join().includes('"')), "the trace is not in wrap's notation: " + JSON.stringify(r[0]));
  expect(r[1].cells[2] === "planner → {}", "step 1's answer: " + JSON.stringify(r[1]));
  const notes = await page.$eval("#notes", (e) => ({ text: e.textContent, code: [...e.querySelectorAll("code")].map((c) => c.textContent) }));
  expect(notes.text.includes("note: the cycle starves human: it is enabled in the cycle but never steps; fairness strong human would exclude this cycle") && notes.code.includes("fairness strong human"), "no fairness note under the lasso: " + JSON.stringify(notes));
  await page.screenshot({ path: shots + "/lasso.png", fullPage: true });

  // A long value wraps in its cell: the explore buttons stay in the
  // 1400-px window, and the page does not scroll sideways.
  await page.evaluate((src) => globalThis.wrapcheckSetSource(src), WIDE);
  await check();
  const layout = await page.evaluate(() => ({
    width: window.innerWidth,
    scroll: document.documentElement.scrollWidth,
    right: document.getElementById("right").getBoundingClientRect().right,
    buttons: [...document.querySelectorAll("#trace button.explore")].map((b) => b.getBoundingClientRect().right),
    value: document.querySelector("#trace tbody tr td.changed")?.textContent || "",
  }));
  expect(layout.value.includes("fifth_colour_of_the_palette: a_rather_long_shade_name"), "the long value is not in the table: " + layout.value);
  expect(layout.buttons.length === 2 && layout.buttons.every((x) => x <= layout.width && x <= layout.right + 1), "explore buttons off the window: " + JSON.stringify(layout));
  expect(layout.scroll <= layout.width, "the page scrolls sideways: " + JSON.stringify(layout));
  await page.screenshot({ path: shots + "/wide.png", fullPage: true });

  // Lint while typing: an error is underlined and listed as soon as the
  // typing pauses, without Check.
  await page.evaluate(() => globalThis.wrapcheckSetSource("spec Typing\nvar x: 0..3 = 0\nprocess p {\n  action a when x < 3 { x := x + 1 }\n}\n"));
  const before = await page.$eval("#verdict", (e) => e.textContent); // the last check's, Wide's
  await page.click(".cm-content");
  await page.keyboard.down("Control");
  await page.keyboard.press("End");
  await page.keyboard.up("Control");
  const tl = await page.evaluate(() => performance.now());
  await page.keyboard.type("invariant Small: x <= y\n", { delay: 20 });
  const typed = await page.evaluate(() => performance.now());
  await page.waitForSelector(".cm-lintRange-error", { timeout: 10000 });
  const lint = await page.evaluate(() => ({ t: performance.now(), diag: document.getElementById("diagnostics").textContent, verdict: document.getElementById("verdict").textContent }));
  out.lint_after_typing_ms = Math.round(lint.t - typed);
  out.typing_ms = Math.round(typed - tl);
  expect(lint.diag.includes("spec.wrap:6:") && lint.diag.includes("undefined: y") && lint.verdict === before, "the lint error while typing: " + JSON.stringify(lint));

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

  // The share link: the spec and the watches come back from the URL
  // fragment.
  await watch("shipped", 1);
  await page.click("#share");
  const link = await page.$eval("#shareLink", (e) => e.value);
  expect(link.includes("#code=") && link.includes("&watches="), "share link: " + link);
  const page2 = await browser.newPage();
  await page2.goto(link, { waitUntil: "load" });
  await page2.waitForFunction(() => document.querySelector(".cm-content")?.textContent.includes("ApprovalTOCTOU"), { timeout: 30000 });
  await page2.click("#check");
  await page2.waitForSelector("#trace th.watch", { timeout: 60000 });
  const shared = await page2.$eval("#trace th.watch", (th) => th.textContent);
  expect(shared === "shipped", "the shared link's watch: " + shared);
  expect(errors.length === 0, "page errors: " + errors.join("; "));
} catch (err) {
  const status = page ? await page.$eval("#status", (e) => e.textContent).catch(() => "?") : "?";
  if (page) await page.screenshot({ path: shots + "/failure.png", fullPage: true }).catch(() => {});
  fail(`${err.message} (status: ${status})`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
