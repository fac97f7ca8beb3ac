// Package mcp is the Model Context Protocol server of wrapcheck
// (`wrapcheck mcp`), for AI agents, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// Tools: check (the same search and the same JSON as `wrapcheck check
// --format json`, plus the text report and the vet warnings; progress
// notifications when the client sends a progress token; cancellation and
// a time limit end the search with the verdict incomplete), explain (the
// same search, then the explanation of `wrapcheck explain`), prob (the
// probability and expected-cost queries, the JSON of `wrapcheck prob
// --format json`, under the same time limit and memory budget), vet, fmt, ltl
// (the Büchi automaton of a formula), replay (a recorded run against the
// spec, as `wrapcheck replay`) and examples (list and fetch the
// bundled examples). Every input is validated against the tool's schema
// by the SDK, and every failure (a spec error, a bad path) comes back as
// a tool error the agent can read, never as a crash.
//
// Every tool call ends by its timeout_seconds (or the server's default):
// its work runs under a context that ends then, and the call answers then
// even if the work has not returned. A path is read only when it resolves,
// symbolic links and all, to a regular file under the client's roots (MCP
// roots, asked for in the call) or, without roots, under the working
// directory; devices and FIFOs are refused without being opened.
//
// Resources: wrapcheck://docs/agents.md (how to model a wrapper),
// wrapcheck://docs/language.md, wrapcheck://docs/patterns.md and
// wrapcheck://examples/DIR/NAME.wrap.
package mcp
