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
// as file:line:col: msg. No input makes the front end panic. [Vet] reports
// likely mistakes (unused declarations, agents never asked, assumptions no
// answer satisfies, terminal conditions that never hold).
//
// With [Options.Info] set, Check also records what it resolved, as
// go/types does in its Info: what each identifier declares or refers to,
// the scopes, the type of each expression ([Info]). Tools read names
// there (the language server resolves none itself); [TypeString] is the
// one printer of types.
//
// # Checking
//
// Check works in three passes over the declarations: collect (declare
// every global name, every enum member and every process local), resolve
// (constants, with -D overrides applied before any bound is computed;
// types; fn and agent signatures; recursion; the state layout) and lower
// (start values, init, actions once per family instance, invariants,
// properties, terminal, fairness, read and write sets). An expression that
// fails to check gets the invalid type and causes no further errors.
//
// Rules beyond the obvious ones of the language reference:
//   - A `let` binding may be reassigned (docs/language.md: "assignment to a
//     state variable or a let"); constants, enum members, family indices,
//     quantified and chosen variables and parameters may not.
//   - A `let` of an integer value has the unbounded int type.
//   - An fn sees its parameters, constants and (being inlined) global state
//     variables; an fn that reads state may not be called where state is
//     invisible: in constant expressions and agent assumptions (the
//     blindness rule).
//   - A constant stored into a range it does not fit is an error, unless
//     it depends on a family index (the guard may make it unreachable).
//   - A set or record literal takes its type from its context (assignment
//     target, parameter, other operand); `x in {a, b}` lowers to
//     `x == a or x == b`.
//   - Integers mix freely with ranges, also as array elements and record
//     fields; sets need identical element types.
//
// # IR invariants
//
// See ir.go: every name is a slot, constants are folded, fn calls are
// inlined (OpLet binds the non-constant arguments in fresh frame slots),
// families are expanded (the index is a constant in each instance; the
// copies of a family local are consecutive, so P[e].x is an OpIndex over
// them), and every Expr has a non-invalid Type. Frame slots (let, choose,
// quantified variables, inlined parameters) are never reused within a
// unit, so no two bindings alias.
//
// # Depth
//
// Every pass over a tree recurses, and a Go stack overflow is a fatal
// error that no recover catches, so each tree the front end builds has a
// bounded height (measured as the parser does: a + b + c has height 2):
//   - Expressions as parsed: at most [syntax.MaxExprHeight] levels. The
//     parser's own recursion is bounded more tightly (nesting of prefix and
//     right-associative operators, brackets, blocks and else-if chains), and
//     a longer left-associative or postfix chain is refused at the operator
//     that passes the limit. So the passes over the AST (resolve, check,
//     lower, exprString, walkExpr, needsContext, syntax.Format) recurse at
//     most that deep.
//   - Types and statements: their nesting goes through the parser's bounded
//     recursion (brackets, blocks, else-if chains), so resolveType,
//     typeString, identical, flatten, valueString and the statement passes
//     (block, stmtsRW, the engine's statement compiler) are bounded by it.
//   - Inlined fn calls: an inlined body is checked on top of its call, so
//     the checker counts the nesting of its expr calls across inlining and
//     refuses more than syntax.MaxExprHeight+1 with a position. The IR that
//     one expr call builds is at most a few levels (a range guard around
//     `in`, a quantifier's set guard, an OpLet), so the IR height is a small
//     multiple of the limit.
//   - Lists that become trees: `x in {e1, ..., en}` and several `terminal`
//     declarations are joined by disjunction (expr.go) as balanced trees of
//     `or`, of height about log2(n). Nothing else joins a list into a
//     chain; -D only changes a constant's value.
//   - Passes over the IR (wellTyped, readExpr, locate, neverTrue, frameEval,
//     the engine's compiler, folding and quantifier unrolling (bounded in
//     nodes), LTL conversion, whose quantifier expansion is n-ary, report
//     printing) recurse at most the IR height.
package spec
