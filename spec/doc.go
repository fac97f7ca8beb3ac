// Package spec is the front end of wrapcheck: it resolves and type checks a
// parsed .wrap file and lowers it to the IR the engine runs ([Check]
// returns a *[Model]). Parsing and formatting live in package
// [github.com/wrapcheck/wrapcheck/spec/syntax].
//
// # Pipeline
//
//	source --syntax.Parse--> *syntax.File (AST) --Check(Options)--> *Model (IR)
//
// [ParseFile] runs both steps. Errors are collected in an [ErrorList],
// sorted by position, one per line, at most [syntax.MaxErrors]; each prints
// as file:line:col: msg. No input makes the front end panic.
//
// # IR invariants
//
// See ir.go: every name is a slot, constants are folded, fn calls are
// inlined, families are expanded, every Expr has a non-invalid Type.
package spec
