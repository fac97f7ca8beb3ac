package syntax

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// This file holds the participle grammar. Its structs are private and are
// lowered to the AST of ast.go by parse.go. Each precedence level of the
// expression grammar is one struct, from the lowest (gExpr, leadsto) to the
// highest (gPostfix). Binary operators are written as repetitions, and the
// lowering folds them left or right; this keeps the recursion depth of the
// parser independent of the length of an operator chain.

type gFile struct {
	Name  *gIdent  `parser:"'spec' @@"`
	Decls []*gDecl `parser:"( @@ ';'* )*"`
}

type gIdent struct {
	Pos  lexer.Position
	Name string `parser:"@Ident"`
}

// gActionName is the name of an action. Actions have their own namespace,
// so a keyword is a valid action name (the example of LANGUAGE.md has an
// action called release).
type gActionName struct {
	Pos  lexer.Position
	Name string `parser:"@( Ident | Keyword )"`
}

type gDecl struct {
	Pos       lexer.Position
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
}

type gConstDecl struct {
	Pos   lexer.Position
	Name  *gIdent `parser:"'const' @@ '='"`
	Value *gExpr  `parser:"@@"`
}

type gTypeDecl struct {
	Pos  lexer.Position
	Name *gIdent `parser:"'type' @@ '='"`
	Type *gType  `parser:"@@"`
}

type gVarDecl struct {
	Pos  lexer.Position
	Name *gIdent `parser:"'var' @@ ':'"`
	Type *gType  `parser:"@@"`
	Init *gExpr  `parser:"( '=' @@ )?"`
}

type gParam struct {
	Pos  lexer.Position
	Name *gIdent `parser:"@@ ':'"`
	Type *gType  `parser:"@@"`
}

type gFnDecl struct {
	Pos    lexer.Position
	Name   *gIdent   `parser:"'fn' @@"`
	Params []*gParam `parser:"'(' ( @@ ( ',' @@ )* )? ')' ':'"`
	Result *gType    `parser:"@@ '='"`
	Body   *gExpr    `parser:"@@"`
}

type gAgentDecl struct {
	Pos    lexer.Position
	Name   *gIdent     `parser:"'agent' @@"`
	Lparen lexer.Token `parser:"@'('"`
	Params []*gParam   `parser:"( @@ ( ',' @@ )* )? ')' ':'"`
	Result *gType      `parser:"@@"`
	Assume *gExpr      `parser:"( 'assume' @@ )?"`
}

type gProcessDecl struct {
	Pos     lexer.Position
	Name    *gIdent           `parser:"'process' @@"`
	Index   *gParam           `parser:"( '[' @@ ']' )? '{' ';'*"`
	Members []*gProcessMember `parser:"( @@ ';'* )*"`
	End     lexer.Token       `parser:"@'}'"`
}

type gProcessMember struct {
	Pos    lexer.Position
	Var    *gVarDecl    `parser:"  @@"`
	Action *gActionDecl `parser:"| @@"`
}

type gActionDecl struct {
	Pos   lexer.Position
	Name  *gActionName `parser:"'action' @@"`
	Guard *gExpr       `parser:"( 'when' @@ )?"`
	Body  *gBlock      `parser:"@@"`
}

type gInitDecl struct {
	Pos  lexer.Position
	Body *gBlock `parser:"'init' @@"`
}

type gInvariantDecl struct {
	Pos  lexer.Position
	Name *gIdent `parser:"'invariant' @@ ':'"`
	Expr *gExpr  `parser:"@@"`
}

type gPropertyDecl struct {
	Pos     lexer.Position
	Name    *gIdent `parser:"'property' @@ ':'"`
	Formula *gExpr  `parser:"@@"`
}

type gFairnessDecl struct {
	Pos     lexer.Position
	Kind    string       `parser:"'fairness' @( 'weak' | 'strong' )"`
	Process *gIdent      `parser:"@@"`
	Action  *gActionName `parser:"( '.' @@ )?"`
}

type gTerminalDecl struct {
	Pos  lexer.Position
	Expr *gExpr `parser:"'terminal' @@"`
}

// ---------------------------------------------------------------------------
// Statements

type gBlock struct {
	Pos   lexer.Position
	Stmts []*gStmt    `parser:"'{' ';'* ( @@ ';'* )*"`
	End   lexer.Token `parser:"@'}'"`
}

type gStmt struct {
	Pos    lexer.Position
	Assign *gAssignStmt `parser:"  @@"`
	Let    *gLetStmt    `parser:"| @@"`
	If     *gIfStmt     `parser:"| @@"`
	Choose *gChooseStmt `parser:"| @@"`
	Match  *gMatchStmt  `parser:"| @@"`
	Assert *gAssertStmt `parser:"| @@"`
	Skip   string       `parser:"| @'skip'"`
	Block  *gBlock      `parser:"| @@"`
}

type gLetStmt struct {
	Pos   lexer.Position
	Name  *gIdent `parser:"'let' @@ '='"`
	Value *gExpr  `parser:"@@"`
}

type gAssignStmt struct {
	Pos    lexer.Position
	Target *gTarget `parser:"@@ ':='"`
	Value  *gExpr   `parser:"@@"`
}

type gChooseStmt struct {
	Pos    lexer.Position
	Var    *gIdent `parser:"'choose' @@ 'in'"`
	Domain *gType  `parser:"@@"`
	Where  *gExpr  `parser:"( 'where' @@ )?"`
	Body   *gBlock `parser:"@@"`
}

type gIfStmt struct {
	Pos    lexer.Position
	Cond   *gExpr   `parser:"'if' @@"`
	Then   *gBlock  `parser:"@@"`
	ElseIf *gIfStmt `parser:"( 'else' ( @@"`
	Else   *gBlock  `parser:"| @@ ) )?"`
}

type gMatchStmt struct {
	Pos   lexer.Position
	X     *gExpr        `parser:"'match' @@ '{' ';'*"`
	Cases []*gMatchCase `parser:"( @@ ';'* )*"`
	End   lexer.Token   `parser:"@'}'"`
}

type gMatchCase struct {
	Pos    lexer.Position
	Else   string   `parser:"( @'else'"`
	Values []*gExpr `parser:"| @@ ( ',' @@ )* ) '=>'"`
	Body   *gStmt   `parser:"@@"`
}

type gAssertStmt struct {
	Pos  lexer.Position
	Cond *gExpr      `parser:"'assert' @@"`
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
   <keyword> = a reserved word of LANGUAGE.md; <int> = [0-9]+; <string> =
   a double-quoted string with Go escapes (assert messages only). Comments
   (// and /* */) and white space, newlines included, separate tokens.
   "then", "assume", "union", "minus", "intersect" and "subset" are not
   reserved: they are names wherever no clause or operator can be. An
   action name may be a keyword (actions have their own namespace). *)

`

const exprHeader = `(* Expressions and types (gExpr, gTarget, gType above) are parsed by
   precedence climbing; their grammar is below. Precedence, lowest first:
     leadsto                          binary, right associative
     implies                          binary, right associative
     or                               binary, left associative
     and                              binary, left associative
     until weakuntil release          binary, right associative
     not always eventually next       prefix; the operand is a comparison
                                      or tighter: not a == b means
                                      not (a == b)
     == != < <= > >= in subset        binary, non-associative (no chaining)
     + - union minus                  binary, left associative
     * / % intersect                  binary, left associative
     -                                prefix
     a[i]  r.f  f(x)                  postfix
   A prefix operator may not be the operand of a tighter operator: write
   a == (not b). The last operand of if-then-else and of forall, exists
   and count extends as far right as possible. Bound, the bounds of a
   range and of symmetric, has only the arithmetic levels. In a type, {a, b}
   is an enumeration; in an expression, a set. *)

`
