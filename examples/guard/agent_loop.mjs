// An agent loop that routes every tool call through `wrapcheck guard`: the
// JavaScript/TypeScript twin of agent_loop.py (see docs/guard.md).
//
//   wrapcheck guard --listen unix:/tmp/guard.sock --token-file tok examples/approval/toctou_fixed_revoke.wrap &
//   node examples/guard/agent_loop.mjs --unix /tmp/guard.sock --token-file tok
//   node examples/guard/agent_loop.mjs --stdio wrapcheck examples/approval/toctou_fixed_revoke.wrap

import { readFileSync } from "node:fs";
import { Guard } from "../../clients/typescript/guard.mjs";

const document = { content: 0, approved: null, shipped: null };
const tools = {
  "approver.approve": () => { document.approved = document.content; },
  "editor.edit": () => { document.content += 1; },
  "releaser.release": () => { document.shipped = document.content; },
};
// What the model proposes: it edits after the approval and tries to ship.
const plan = ["approver.approve", "editor.edit", "releaser.release", "approver.approve", "releaser.release"];

function arg(name) {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv.slice(i + 1);
}

async function main() {
  let guard;
  if (arg("--stdio")) {
    const [bin, spec] = arg("--stdio");
    guard = Guard.stdio([bin, "guard", spec]);
  } else {
    const token = readFileSync(arg("--token-file")[0], "utf8").trim();
    guard = arg("--unix") ? Guard.unix(arg("--unix")[0], token) : Guard.http(arg("--url")[0], token);
  }
  const run = "doc-42";
  const opened = await guard.open(run);
  if (!opened.allowed) {
    console.log("cannot open the run:", opened.reason);
    return 1;
  }
  for (const call of plan) {
    const d = await guard.step(run, call);
    if (!d.allowed) {
      console.log(`blocked ${call}: ${d.reason} (allowed: ${d.allowedNext.join(", ")})`);
      continue; // the model is told; the tool does not run
    }
    tools[call]();
    console.log(`ran ${call}` + (d.ended ? ` (run ${d.ended})` : ""));
  }
  console.log(`shipped version ${document.shipped}, approved ${document.approved}`);
  await guard.shutdown();
  return 0;
}

process.exitCode = await main();
