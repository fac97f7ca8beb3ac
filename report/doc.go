// Package report renders a [verdict.Result]: for people (text, coloured
// on a terminal, long values folded), for programs (JSON, the versioned
// output contract, with its schema in docs/json-schema.json), for CI
// (SARIF 2.1.0, JUnit XML, GitHub Actions annotations) and as pictures
// of the trace (a Mermaid sequenceDiagram, a DOT digraph). It also
// renders an explored [StateGraph] as DOT or JSON, and the probabilities
// of a [quant.Result] as text, JSON and SARIF ([QuantText], [QuantJSON],
// [QuantSARIF]). Renderers only: every
// format prints the same Result, never a second code path through the
// engine.
package report
