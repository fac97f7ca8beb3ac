// A thin client of `wrapcheck guard` (docs/guard.md), with no dependencies:
// plain JavaScript that node runs as it is; guard.d.ts types it for
// TypeScript.
//
//   import { Guard } from "./guard.mjs";
//   const g = Guard.http("http://127.0.0.1:8377", token); // or Guard.unix(path, token), Guard.stdio([...])
//   await g.open("run-1");
//   const d = await g.step("run-1", "wrapper.verify", { asked: { verifier: "pass" } });
//   if (!d.allowed) { /* do not take the step: d.reason, d.trace */ }
//
// Fail-closed: a decision the client cannot get is a block, never an allow.
// Every step carries a request id, and a step whose answer was lost is asked
// again with the same id, which the guard answers without taking it twice.

import http from "node:http";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

export class Decision {
  constructor(raw) {
    this.raw = raw && typeof raw === "object" ? raw : {};
    this.allowed = this.raw.decision === "allow";
    this.reason = this.raw.reason ?? "";
    this.kind = this.raw.kind ?? "";
    this.property = this.raw.property ?? "";
    this.step = this.raw.step ?? 0;
    this.allowedNext = this.raw.allowed ?? [];
    this.ended = this.raw.ended ?? "";
    this.trace = this.raw.trace ?? [];
  }

  static blocked(reason) {
    return new Decision({ decision: "block", kind: "client", reason });
  }
}

export class Guard {
  constructor(send, retries = 3) {
    this.send = send;
    this.retries = retries;
    this.child = null;
  }

  /** A guard serving HTTP on a loopback address (wrapcheck guard --listen). */
  static http(url, token, timeoutMs = 10000) {
    const u = new URL(url);
    return new Guard(httpSender({ host: u.hostname, port: Number(u.port || 80) }, u.host, token, timeoutMs));
  }

  /** A guard serving HTTP on a Unix socket (wrapcheck guard --listen unix:PATH). */
  static unix(path, token, timeoutMs = 10000) {
    return new Guard(httpSender({ socketPath: path }, "localhost", token, timeoutMs));
  }

  /** A guard run as a child process that reads requests on its standard input. */
  static stdio(argv) {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    const lines = createInterface({ input: child.stdout });
    const waiting = [];
    lines.on("line", (line) => waiting.shift()?.resolve(line));
    const fail = () => { while (waiting.length) waiting.shift().reject(new Error("the guard process ended")); };
    child.on("exit", fail);
    let queue = Promise.resolve();
    const send = (body) => {
      const answer = queue.then(() => new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(JSON.stringify(body) + "\n");
      }));
      queue = answer.catch(() => {});
      return answer.then((line) => JSON.parse(line));
    };
    const g = new Guard(send, 0);
    g.child = child;
    return g;
  }

  /** Sends one request and returns its Decision; any failure is a block. */
  async request(body) {
    let last = "no answer";
    for (let i = 0; i <= this.retries; i++) {
      try {
        return new Decision(await this.send(body));
      } catch (e) {
        last = String(e?.message ?? e);
      }
    }
    return Decision.blocked(`no decision from the guard (${last}): blocked`);
  }

  open(run, initialState) {
    const body = { op: "open", run };
    if (initialState !== undefined) body.event = { action: null, state: initialState };
    return this.request(body);
  }

  /** Asks whether the run may take action (with the agents' answers it got). */
  step(run, action, { asked, state, id, traceparent } = {}) {
    const event = { action };
    if (asked) event.asked = asked;
    if (state) event.state = state;
    const body = { run, id: id ?? randomUUID(), event };
    if (traceparent) body.traceparent = traceparent; // the decision's span becomes its child
    return this.request(body);
  }

  close(run) {
    return this.request({ op: "close", run });
  }

  async shutdown() {
    this.send.agent?.destroy();
    if (this.child) {
      this.child.stdin.end();
      await new Promise((resolve) => this.child.on("close", resolve));
    }
  }
}

// httpSender sends each request on a kept-alive connection of its own
// agent (at most 8 open); shutdown destroys them. A request on a connection
// the guard closed fails, and request's retries connect afresh.
function httpSender(target, host, token, timeoutMs) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const send = (body) => new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = http.request({
      ...target,
      agent,
      method: "POST",
      path: "/v1/decide",
      headers: {
        Host: host,
        "Content-Type": "application/json",
        "Content-Length": data.length,
        "X-Wrapcheck-Token": token,
      },
      timeout: timeoutMs,
    }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch (e) {
          reject(e);
        }
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(data);
  });
  send.agent = agent;
  return send;
}
