// Package lsp is the language server of wrapcheck (`wrapcheck lsp`): LSP
// 3.17 over a byte stream, for editors.
//
// # Protocol
//
// The server implements the base protocol itself (Content-Length framed
// JSON-RPC 2.0 messages; jsonrpc.go) and the requests it supports
// (protocol.go declares their types): the LSP libraries for Go either
// lag the specification or bring a dozen modules for a few hundred lines
// of framing. Documents are synchronised incrementally; positions are
// UTF-16 code units (the protocol's default), converted from the front
// end's 1-based line and rune column by [document].
//
// # Analysis
//
// Every version of a document is parsed ([syntax.Parse]), checked
// ([spec.Check]) and vetted ([spec.Vet]) at most once, after a debounce
// delay ([Options.Debounce]) for changes; its errors and warnings are
// published as diagnostics, with the "declared here" notes as related
// information and the "did you mean" hints as quick fixes. A document
// over 2 MiB is not analysed. The server resolves no name itself: the
// check records what each identifier declares or refers to, the scopes
// and the types ([spec.Info]), as far as it gets in a spec with errors,
// and an index (index.go) maps a position to the identifier there;
// hover, definition, references, rename, completion and symbols read
// it. While a line is half typed, completion uses the latest version
// that parsed.
//
// An analysis runs in a goroutine of its own under a budget per document
// and version ([Options.AnalysisTimeout], [Options.AnalysisMemory]: the
// growth of the Go heap while it runs): past it the document gets a
// warning that says so, keeps the features that need only its syntax,
// and the analysis is told to stop (through [spec.Options.Context]). A
// newer version of the document ends the analysis of the older one at
// once, and a request still waiting on it gets ContentModified (one the
// client cancels, $/cancelRequest, gets RequestCancelled). Requests
// are answered in goroutines of their own, each about the versions of the
// documents when it arrived, so a request that waits for the analysis of
// one document never holds up another; notifications are handled in
// order.
//
// # Refactoring and checks
//
// Rename is refused when the new name would collide with or capture
// another declaration, and the renamed text is resolved and checked again
// before the edit is returned. A code lens on every invariant and property
// runs that one check ([verify.Run] with Only) in the background, with
// $/progress when the client supports it, cancellable through
// window/workDoneProgress/cancel or $/cancelRequest of the
// workspace/executeCommand request that started it (whose reply came at
// once), and bounded to 5 minutes; a
// counterexample is published as a diagnostic on the check, one related
// location per step, until the next edit, and the command
// wrapcheck.showTrace returns it as a Markdown document.
//
// No input makes the server panic or stop: a malformed message gets an
// error response, and a failure inside a handler is reported as an
// internal error response.
package lsp
