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
// Types

type gType struct {
	Pos       lexer.Position
	Bool      string       `parser:"  @'bool'"`
	Set       *gType       `parser:"| 'set' 'of' @@"`
	Symmetric *gAddExpr    `parser:"| 'symmetric' @@"`
	Array     *gArrayType  `parser:"| @@"`
	Record    *gRecordType `parser:"| @@"`
	Enum      *gEnumType   `parser:"| @@"`
	Range     *gRangeType  `parser:"| @@"`
}

type gArrayType struct {
	Pos   lexer.Position
	Index *gType `parser:"'[' @@ ']'"`
	Elem  *gType `parser:"@@"`
}

type gRecordType struct {
	Pos    lexer.Position
	Fields []*gParam `parser:"'record' '{' ( @@ ( ',' @@ )* ','? )? '}'"`
}

type gEnumType struct {
	Pos     lexer.Position
	Members []*gIdent `parser:"'{' @@ ( ',' @@ )* ','? '}'"`
}

// gRangeType is `lo..hi`, or a type name when Hi is absent.
type gRangeType struct {
	Pos lexer.Position
	Lo  *gAddExpr `parser:"@@"`
	Hi  *gAddExpr `parser:"( '..' @@ )?"`
}

// ---------------------------------------------------------------------------
// Expressions, lowest precedence first

// gExpr is the leadsto level (right associative).
type gExpr struct {
	Pos  lexer.Position
	X    *gImpliesExpr `parser:"@@"`
	Rest []*gLeadsTo   `parser:"@@*"`
}

type gLeadsTo struct {
	Op lexer.Token   `parser:"@'leadsto'"`
	Y  *gImpliesExpr `parser:"@@"`
}

// gImpliesExpr is the implies level (right associative).
type gImpliesExpr struct {
	Pos  lexer.Position
	X    *gOrExpr    `parser:"@@"`
	Rest []*gImplies `parser:"@@*"`
}

type gImplies struct {
	Op lexer.Token `parser:"@'implies'"`
	Y  *gOrExpr    `parser:"@@"`
}

type gOrExpr struct {
	Pos  lexer.Position
	X    *gAndExpr `parser:"@@"`
	Rest []*gOr    `parser:"@@*"`
}

type gOr struct {
	Op lexer.Token `parser:"@'or'"`
	Y  *gAndExpr   `parser:"@@"`
}

type gAndExpr struct {
	Pos  lexer.Position
	X    *gUntilExpr `parser:"@@"`
	Rest []*gAnd     `parser:"@@*"`
}

type gAnd struct {
	Op lexer.Token `parser:"@'and'"`
	Y  *gUntilExpr `parser:"@@"`
}

// gUntilExpr is the level of until, weakuntil and release (right
// associative): tighter than and, looser than the unary operators.
type gUntilExpr struct {
	Pos  lexer.Position
	X    *gNotExpr `parser:"@@"`
	Rest []*gUntil `parser:"@@*"`
}

type gUntil struct {
	Op lexer.Token `parser:"@( 'until' | 'weakuntil' | 'release' )"`
	Y  *gNotExpr   `parser:"@@"`
}

// gNotExpr is the level of not, always, eventually and next.
type gNotExpr struct {
	Pos lexer.Position
	Ops []*gPrefix `parser:"@@*"`
	X   *gCmpExpr  `parser:"@@"`
}

type gPrefix struct {
	Pos lexer.Position
	Op  string `parser:"@( 'not' | 'always' | 'eventually' | 'next' )"`
}

// gCmpExpr is a comparison; comparisons do not chain.
type gCmpExpr struct {
	Pos lexer.Position
	X   *gAddExpr   `parser:"@@"`
	Op  lexer.Token `parser:"( @( '==' | '!=' | '<=' | '<' | '>=' | '>' | 'in' | 'subset' )"`
	Y   *gAddExpr   `parser:"@@ )?"`
}

type gAddExpr struct {
	Pos  lexer.Position
	X    *gMulExpr `parser:"@@"`
	Rest []*gAdd   `parser:"@@*"`
}

type gAdd struct {
	Op lexer.Token `parser:"@( '+' | '-' | 'union' | 'minus' )"`
	Y  *gMulExpr   `parser:"@@"`
}

type gMulExpr struct {
	Pos  lexer.Position
	X    *gUnaryExpr `parser:"@@"`
	Rest []*gMul     `parser:"@@*"`
}

type gMul struct {
	Op lexer.Token `parser:"@( '*' | '/' | '%' | 'intersect' )"`
	Y  *gUnaryExpr `parser:"@@"`
}

type gUnaryExpr struct {
	Pos lexer.Position
	Neg []*gNeg   `parser:"@@*"`
	X   *gPostfix `parser:"@@"`
}

type gNeg struct {
	Pos lexer.Position
	Op  string `parser:"@'-'"`
}

type gPostfix struct {
	Pos      lexer.Position
	X        *gPrimary  `parser:"@@"`
	Suffixes []*gSuffix `parser:"@@*"`
}

type gSuffix struct {
	Pos   lexer.Position
	Index *gExpr  `parser:"  '[' @@ ']'"`
	Field *gIdent `parser:"| '.' @@"`
}

type gPrimary struct {
	Pos    lexer.Position
	Int    string      `parser:"  @Int"`
	Bool   string      `parser:"| @( 'true' | 'false' )"`
	Paren  *gExpr      `parser:"| '(' @@ ')'"`
	Set    *gSetLit    `parser:"| @@"`
	Record *gRecordLit `parser:"| @@"`
	Cond   *gCondExpr  `parser:"| @@"`
	Quant  *gQuantExpr `parser:"| @@"`
	Ask    *gAskExpr   `parser:"| @@"`
	Name   *gIdent     `parser:"| @@"`
	Call   *gArgs      `parser:"  @@?"`
}

type gArgs struct {
	Pos  lexer.Position
	Args []*gExpr `parser:"'(' ( @@ ( ',' @@ )* )? ')'"`
}

type gSetLit struct {
	Pos   lexer.Position
	Elems []*gExpr `parser:"'{' ( @@ ( ',' @@ )* ','? )? '}'"`
}

type gRecordLit struct {
	Pos    lexer.Position
	Fields []*gFieldInit `parser:"'record' '{' ( @@ ( ',' @@ )* ','? )? '}'"`
}

type gFieldInit struct {
	Pos   lexer.Position
	Name  *gIdent `parser:"@@ ':'"`
	Value *gExpr  `parser:"@@"`
}

type gCondExpr struct {
	Pos  lexer.Position
	Cond *gExpr `parser:"'if' @@"`
	Then *gExpr `parser:"'then' @@"`
	Else *gExpr `parser:"'else' @@"`
}

type gQuantExpr struct {
	Pos    lexer.Position
	Kind   string  `parser:"@( 'forall' | 'exists' | 'count' )"`
	Var    *gIdent `parser:"@@ 'in'"`
	Domain *gType  `parser:"@@ ':'"`
	Body   *gExpr  `parser:"@@"`
}

type gAskExpr struct {
	Pos   lexer.Position
	Agent *gIdent `parser:"'ask' @@"`
	Args  *gArgs  `parser:"@@"`
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
	Let    *gLetStmt    `parser:"  @@"`
	Choose *gChooseStmt `parser:"| @@"`
	If     *gIfStmt     `parser:"| @@"`
	Match  *gMatchStmt  `parser:"| @@"`
	Assert *gAssertStmt `parser:"| @@"`
	Skip   string       `parser:"| @'skip'"`
	Block  *gBlock      `parser:"| @@"`
	Assign *gAssignStmt `parser:"| @@"`
}

type gLetStmt struct {
	Pos   lexer.Position
	Name  *gIdent `parser:"'let' @@ '='"`
	Value *gExpr  `parser:"@@"`
}

type gAssignStmt struct {
	Pos    lexer.Position
	Target *gPostfix `parser:"@@ ':='"`
	Value  *gExpr    `parser:"@@"`
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
	Cond *gExpr  `parser:"'assert' @@"`
	Msg  *string `parser:"@String?"`
}

// newParser builds the participle parser. It is called once.
func newParser() *participle.Parser[gFile] {
	return participle.MustBuild[gFile](
		participle.Lexer(lexDef{}),
		participle.UseLookahead(1),
	)
}

// grammarEBNF returns the grammar in EBNF, as docs/grammar.ebnf holds it.
func grammarEBNF() string {
	return grammarHeader + grammar().String() + "\n"
}

const grammarHeader = `(* The grammar of .wrap files, generated from spec/syntax/grammar.go by
   WRAPCHECK_UPDATE=1 go test ./spec/syntax/ ; do not edit.

   Tokens: Ident = [A-Za-z_][A-Za-z0-9_]* that is not a keyword; Keyword =
   a reserved word of LANGUAGE.md; Int = [0-9]+; String = a double-quoted
   string with Go escapes (assert messages only); Punct = an operator or
   delimiter. Comments (// and /* */) and white space, newlines included,
   separate tokens. "then" and "assume" are contextual, not reserved.

   Expression precedence, lowest first (one production per level):
     GExpr        leadsto                        right assoc.
     GImpliesExpr implies                        right assoc.
     GOrExpr      or                             left
     GAndExpr     and                            left
     GUntilExpr   until weakuntil release        right assoc.
     GNotExpr     not always eventually next     prefix
     GCmpExpr     == != < <= > >= in subset      non-associative
     GAddExpr     + - union minus                left
     GMulExpr     * / % intersect                left
     GUnaryExpr   -                              prefix
     GPostfix     a[i]  r.f                      postfix; f(x) is in GPrimary
   if-then-else and forall/exists/count are primaries whose last operand
   extends as far right as possible. Repetitions are folded into left or
   right associative trees after parsing. *)

`
