package syntax

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// This file holds the participle grammar of declarations and statements.
// Its structs are private and are lowered to the AST of ast.go by
// parse.go; expressions and types are parsed by exprParser (expr.go).
// Positions come from captured tokens (lexer.Token fields) rather than
// Pos fields: participle fills a Pos field for every attempted
// alternative, a captured token only for the one that matches.
//
// This grammar is the reference, but Parse builds it only for an input
// with a syntax error: descent.go parses the same language by hand, and
// a change here must be made there too (the tests of descent_test.go
// compare the two).

type gFile struct {
	Name  lexer.Token `parser:"'spec' @Ident"`
	Decls []*gDecl    `parser:"( @@ ';'* )*"`
}

type gDecl struct {
	Const     *gConstDecl     `parser:"  @@"`
	Type      *gTypeDecl      `parser:"| @@"`
	Var       *gVarDecl       `parser:"| @@"`
	Fn        *gFnDecl        `parser:"| @@"`
	Agent     *gAgentDecl     `parser:"| @@"`
	Process   *gProcessDecl   `parser:"| @@"`
	Action    *gActionDecl    `parser:"| @@"`
	Init      *gInitDecl      `parser:"| @@"`
	Invariant *gInvariantDecl `parser:"| @@"`
	Property  *gPropertyDecl  `parser:"| @@"`
	Fairness  *gFairnessDecl  `parser:"| @@"`
	Terminal  *gTerminalDecl  `parser:"| @@"`
	// The quantitative extension (quant.go).
	Rate        *gRateDecl        `parser:"| @@"`
	Probability *gProbabilityDecl `parser:"| @@"`
	Cost        *gCostDecl        `parser:"| @@"`
	Expected    *gExpectedDecl    `parser:"| @@"`
}

type gConstDecl struct {
	Kw    lexer.Token `parser:"@'const'"`
	Name  lexer.Token `parser:"@Ident '='"`
	Value *gExpr      `parser:"@@"`
}

type gTypeDecl struct {
	Kw   lexer.Token `parser:"@'type'"`
	Name lexer.Token `parser:"@Ident '='"`
	Type *gType      `parser:"@@"`
}

type gVarDecl struct {
	Kw   lexer.Token `parser:"@'var'"`
	Name lexer.Token `parser:"@Ident ':'"`
	Type *gType      `parser:"@@"`
	Init *gExpr      `parser:"( '=' @@ )?"`
}

type gParam struct {
	Name lexer.Token `parser:"@Ident ':'"`
	Type *gType      `parser:"@@"`
}

type gFnDecl struct {
	Kw     lexer.Token `parser:"@'fn'"`
	Name   lexer.Token `parser:"@Ident"`
	Params []*gParam   `parser:"'(' ( @@ ( ',' @@ )* )? ')' ':'"`
	Result *gType      `parser:"@@ '='"`
	Body   *gExpr      `parser:"@@"`
}

type gAgentDecl struct {
	Kw     lexer.Token `parser:"@'agent'"`
	Name   lexer.Token `parser:"@Ident"`
	Lparen lexer.Token `parser:"@'('"`
	Params []*gParam   `parser:"( @@ ( ',' @@ )* )? ')' ':'"`
	Result *gType      `parser:"@@"`
	Assume *gExpr      `parser:"( 'assume' @@ )?"`
}

type gProcessDecl struct {
	Kw      lexer.Token       `parser:"@'process'"`
	Name    lexer.Token       `parser:"@Ident"`
	Index   *gParam           `parser:"( '[' @@ ']' )? '{' ';'*"`
	Members []*gProcessMember `parser:"( @@ ';'* )*"`
	End     lexer.Token       `parser:"@'}'"`
}

type gProcessMember struct {
	Var    *gVarDecl    `parser:"  @@"`
	Action *gActionDecl `parser:"| @@"`
}

// gActionDecl is an action. Actions have their own namespace, so a
// keyword is a valid action name (the example of docs/language.md has an action
// called release).
type gActionDecl struct {
	Kw    lexer.Token `parser:"@'action'"`
	Name  lexer.Token `parser:"@( Ident | Keyword )"`
	Guard *gExpr      `parser:"( 'when' @@ )?"`
	Body  *gBlock     `parser:"@@"`
}

type gInitDecl struct {
	Kw   lexer.Token `parser:"@'init'"`
	Body *gBlock     `parser:"@@"`
}

type gInvariantDecl struct {
	Kw   lexer.Token `parser:"@'invariant'"`
	Name lexer.Token `parser:"@Ident ':'"`
	Expr *gExpr      `parser:"@@"`
}

type gPropertyDecl struct {
	Kw      lexer.Token `parser:"@'property'"`
	Name    lexer.Token `parser:"@Ident ':'"`
	Formula *gExpr      `parser:"@@"`
}

type gFairnessDecl struct {
	Kw      lexer.Token  `parser:"@'fairness'"`
	Kind    string       `parser:"@( 'weak' | 'strong' )"`
	Process lexer.Token  `parser:"@Ident"`
	Action  *lexer.Token `parser:"( '.' @( Ident | Keyword ) )?"`
}

type gTerminalDecl struct {
	Kw   lexer.Token `parser:"@'terminal'"`
	Expr *gExpr      `parser:"@@"`
}

// ---------------------------------------------------------------------------
// Statements

type gBlock struct {
	Lbrace lexer.Token `parser:"@'{' ';'*"`
	Stmts  []*gStmt    `parser:"( @@ ';'* )*"`
	End    lexer.Token `parser:"@'}'"`
}

type gStmt struct {
	For    *gForStmt    `parser:"  @@"`
	Assign *gAssignStmt `parser:"| @@"`
	Let    *gLetStmt    `parser:"| @@"`
	If     *gIfStmt     `parser:"| @@"`
	Choose *gChooseStmt `parser:"| @@"`
	Match  *gMatchStmt  `parser:"| @@"`
	Assert *gAssertStmt `parser:"| @@"`
	Skip   *lexer.Token `parser:"| @'skip'"`
	Block  *gBlock      `parser:"| @@"`
}

type gLetStmt struct {
	Kw    lexer.Token `parser:"@'let'"`
	Name  lexer.Token `parser:"@Ident '='"`
	Value *gExpr      `parser:"@@"`
}

// gAssignStmt is an assignment, or (an extension) a send (!) or a
// receive (?) on a channel.
type gAssignStmt struct {
	Target *gTarget `parser:"@@"`
	Op     string   `parser:"@( ':=' | '!' | '?' )"`
	Value  *gExpr   `parser:"@@"`
}

var assignOps = map[string]AssignOp{":=": Assign, "!": Send, "?": Recv}

type gChooseStmt struct {
	Kw     lexer.Token `parser:"@'choose'"`
	Var    lexer.Token `parser:"@Ident 'in'"`
	Domain *gType      `parser:"@@"`
	Where  *gExpr      `parser:"( 'where' @@ )?"`
	Body   *gBlock     `parser:"@@"`
}

// gForStmt is an extension; for is not reserved (see ForStmt).
type gForStmt struct {
	Kw     gForKw      `parser:"@@"`
	Var    lexer.Token `parser:"@Ident 'in'"`
	Domain *gType      `parser:"@@"`
	Body   *gBlock     `parser:"@@"`
}

// gForKw is the name for where a name follows it: the start of a for
// statement. Elsewhere for is a name (for := 1), which the grammar could
// not tell apart without looking two tokens ahead.
type gForKw struct{ Tok lexer.Token }

// Parse implements participle.Parseable.
func (k *gForKw) Parse(lex *lexer.PeekingLexer) error {
	t := *lex.Peek()
	if t.Type != tokIdent || t.Value != "for" {
		return participle.NextMatch
	}
	cp := lex.MakeCheckpoint()
	lex.Next()
	if lex.Peek().Type != tokIdent {
		lex.LoadCheckpoint(cp)
		return participle.NextMatch
	}
	k.Tok = t
	return nil
}

type gIfStmt struct {
	Kw     lexer.Token `parser:"@'if'"`
	Cond   *gExpr      `parser:"@@"`
	Then   *gBlock     `parser:"@@"`
	ElseIf *gIfStmt    `parser:"( 'else' ( @@"`
	Else   *gBlock     `parser:"| @@ ) )?"`
}

type gMatchStmt struct {
	Kw    lexer.Token   `parser:"@'match'"`
	X     *gExpr        `parser:"@@ '{' ';'*"`
	Cases []*gMatchCase `parser:"( @@ ';'* )*"`
	End   lexer.Token   `parser:"@'}'"`
}

type gMatchCase struct {
	Else   *lexer.Token `parser:"( @'else'"`
	Values []*gExpr     `parser:"| @@ ( ',' @@ )* ) '=>'"`
	Body   *gStmt       `parser:"@@"`
}

type gAssertStmt struct {
	Kw   lexer.Token `parser:"@'assert'"`
	Cond *gExpr      `parser:"@@"`
	Msg  lexer.Token `parser:"@String?"`
}

// newParser builds the participle parser. It is called once.
func newParser() *participle.Parser[gFile] {
	return participle.MustBuild[gFile](
		participle.Lexer(lexDef{}),
		participle.UseLookahead(0),
	)
}

// grammarEBNF returns the grammar in EBNF, as docs/grammar.ebnf holds it:
// the participle grammar, then the productions of expressions and types
// that exprParser implements.
func grammarEBNF() string {
	return grammarHeader + grammar().String() + "\n\n" + exprHeader + exprEBNF
}

const grammarHeader = `(* The grammar of .wrap files, generated from spec/syntax/grammar.go and
   spec/syntax/expr.go by WRAPCHECK_UPDATE=1 go test ./spec/syntax/ ; do
   not edit.

   Tokens: <ident> = [A-Za-z_][A-Za-z0-9_]* that is not a keyword;
   <keyword> = a reserved word (docs/language.md); <int> = [0-9]+; <string> =
   a double-quoted string with Go escapes (assert messages only). Comments
   (// and /* */) and white space, newlines included, separate tokens.
   "then", "assume", "union", "minus", "intersect", "subset", "mod",
   "for", "sum", "min" and "max" are not reserved: they are names wherever
   no clause or operator can be (mod is an operator only before an
   operand, for starts a statement only before a name: gForKw, and sum,
   min and max start an aggregate only before a name and "in"). An
   action name may be a keyword (actions have their own namespace). *)

`

const exprHeader = `(* Expressions and types (gExpr, gTarget, gType above) are parsed by
   precedence climbing; their grammar is below. Precedence, lowest first:
     leadsto                          binary, right associative
     implies                          binary, right associative
     or                               binary, left associative
     and                              binary, left associative
     until weakuntil release since    binary, right associative
     not always eventually next
       once historically previously   prefix; the operand is a comparison
                                      or tighter: not a == b means
                                      not (a == b)
     == != < <= > >= in subset        binary, non-associative (no chaining)
     + - union minus | ^              binary, left associative
     * / % intersect & << >> mod      binary, left associative
     -                                prefix
     a[i]  r.f  f(x)                  postfix
   A prefix operator may not be the operand of a tighter operator: write
   a == (not b). The last operand of if-then-else and of forall, exists,
   count, sum, min and max extends as far right as possible. Bound, the bounds of a
   range and of symmetric, has only the arithmetic levels. In a type, {a, b}
   is an enumeration; in an expression, a set. *)

`
