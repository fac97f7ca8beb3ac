package syntax

import "math/big"

// This file defines the abstract syntax tree produced by [Parse]. The
// grammar structs of the parser are private; they are lowered to these
// types. Every node records the position of its first token.

// File is a parsed .wrap file.
type File struct {
	Filename string
	Name     string // the name after `spec`
	NamePos  Position
	Decls    []Decl
	Comments []*Comment // all comments, in source order (for fmt)
}

// Comment is one `//` or `/* */` comment, Text including its markers. The
// line ends inside a block comment's Text are "\n", whatever the source used.
type Comment struct {
	Pos  Position
	Text string
}

// Ident is a name with its position.
type Ident struct {
	Pos  Position
	Name string
}

// ---------------------------------------------------------------------------
// Declarations

// Decl is a top-level declaration.
type Decl interface {
	declNode()
	Position() Position
}

// ConstDecl is `const Name = Value`.
type ConstDecl struct {
	Pos   Position
	Name  Ident
	Value Expr
}

// TypeDecl is `type Name = Type`.
type TypeDecl struct {
	Pos  Position
	Name Ident
	Type TypeExpr
}

// VarDecl is `var Name: Type (= Init)?`, at top level or in a process.
type VarDecl struct {
	Pos  Position
	Name Ident
	Type TypeExpr
	Init Expr // nil: zero value
}

// Param is `name: Type` in an fn, agent or process family header.
type Param struct {
	Pos  Position
	Name Ident
	Type TypeExpr
}

// FnDecl is `fn Name(params): Result = Body`.
type FnDecl struct {
	Pos    Position
	Name   Ident
	Params []*Param
	Result TypeExpr
	Body   Expr
}

// AgentDecl is `agent Name(params): Result (assume Assume)?`.
type AgentDecl struct {
	Pos       Position
	Name      Ident
	ParamsPos Position // position of "("
	Params    []*Param
	Result    TypeExpr
	Assume    Expr // nil: any answer
}

// ProcessDecl is `process Name { ... }` or `process Name[i: T] { ... }`.
type ProcessDecl struct {
	Pos     Position
	Name    Ident
	Index   *Param // nil for a single process
	Vars    []*VarDecl
	Actions []*ActionDecl
	Members []Decl // Vars and Actions in source order (for fmt)
	End     Position
}

// ActionDecl is `action Name (when Guard)? { Body }`, in a process or at
// top level (then it belongs to the implicit process `main`).
type ActionDecl struct {
	Pos   Position
	Name  Ident
	Guard Expr // nil: always enabled
	Body  *Block
}

// InitDecl is `init { Body }`.
type InitDecl struct {
	Pos  Position
	Body *Block
}

// InvariantDecl is `invariant Name: Expr`.
type InvariantDecl struct {
	Pos  Position
	Name Ident
	Expr Expr
}

// PropertyDecl is `property Name: Formula` (an LTL formula).
type PropertyDecl struct {
	Pos     Position
	Name    Ident
	Formula Expr
}

// FairnessDecl is `fairness weak|strong Process(.Action)?`.
type FairnessDecl struct {
	Pos     Position
	Strong  bool
	Process Ident
	Action  *Ident // nil: every action of the process
}

// TerminalDecl is `terminal Expr`.
type TerminalDecl struct {
	Pos  Position
	Expr Expr
}

func (*ConstDecl) declNode()     {}
func (*TypeDecl) declNode()      {}
func (*VarDecl) declNode()       {}
func (*FnDecl) declNode()        {}
func (*AgentDecl) declNode()     {}
func (*ProcessDecl) declNode()   {}
func (*ActionDecl) declNode()    {}
func (*InitDecl) declNode()      {}
func (*InvariantDecl) declNode() {}
func (*PropertyDecl) declNode()  {}
func (*FairnessDecl) declNode()  {}
func (*TerminalDecl) declNode()  {}

func (d *ConstDecl) Position() Position     { return d.Pos }
func (d *TypeDecl) Position() Position      { return d.Pos }
func (d *VarDecl) Position() Position       { return d.Pos }
func (d *FnDecl) Position() Position        { return d.Pos }
func (d *AgentDecl) Position() Position     { return d.Pos }
func (d *ProcessDecl) Position() Position   { return d.Pos }
func (d *ActionDecl) Position() Position    { return d.Pos }
func (d *InitDecl) Position() Position      { return d.Pos }
func (d *InvariantDecl) Position() Position { return d.Pos }
func (d *PropertyDecl) Position() Position  { return d.Pos }
func (d *FairnessDecl) Position() Position  { return d.Pos }
func (d *TerminalDecl) Position() Position  { return d.Pos }

// ---------------------------------------------------------------------------
// Types

// TypeExpr is a type as written.
type TypeExpr interface {
	typeNode()
	Position() Position
}

// NamedType is a reference to a declared type (or, as a quantifier or
// choose domain, possibly to a set-valued expression: the resolver decides).
type NamedType struct {
	Pos  Position
	Name string
}

// BoolType is `bool`.
type BoolType struct{ Pos Position }

// RangeType is `Lo..Hi`.
type RangeType struct {
	Pos    Position
	Lo, Hi Expr
}

// EnumType is `{a, b, c}` in a type position.
type EnumType struct {
	Pos     Position
	Members []Ident
	End     Position // "}" (for fmt)
}

// SymmetricType is `symmetric N`.
type SymmetricType struct {
	Pos Position
	N   Expr
}

// ArrayType is `[Index]Elem`.
type ArrayType struct {
	Pos   Position
	Index TypeExpr
	Elem  TypeExpr
}

// RecordType is `record { f: T, ... }`.
type RecordType struct {
	Pos    Position
	Fields []*Param
	End    Position // "}" (for fmt)
}

// SetType is `set of Elem`.
type SetType struct {
	Pos  Position
	Elem TypeExpr
}

// SeqType is `seq[Cap] of Elem` (an extension): a sequence of at most
// Cap elements; with Chan, `chan[Cap] of Elem` (an extension): a channel
// between processes, buffered (a FIFO of Cap messages) or, with Cap 0, a
// rendezvous.
type SeqType struct {
	Pos  Position
	Cap  Expr
	Elem TypeExpr
	Chan bool
}

func (*SeqType) typeNode()            {}
func (t *SeqType) Position() Position { return t.Pos }

func (*NamedType) typeNode()     {}
func (*BoolType) typeNode()      {}
func (*RangeType) typeNode()     {}
func (*EnumType) typeNode()      {}
func (*SymmetricType) typeNode() {}
func (*ArrayType) typeNode()     {}
func (*RecordType) typeNode()    {}
func (*SetType) typeNode()       {}

func (t *NamedType) Position() Position     { return t.Pos }
func (t *BoolType) Position() Position      { return t.Pos }
func (t *RangeType) Position() Position     { return t.Pos }
func (t *EnumType) Position() Position      { return t.Pos }
func (t *SymmetricType) Position() Position { return t.Pos }
func (t *ArrayType) Position() Position     { return t.Pos }
func (t *RecordType) Position() Position    { return t.Pos }
func (t *SetType) Position() Position       { return t.Pos }

// ---------------------------------------------------------------------------
// Expressions (state expressions and, in properties, LTL formulas)

// Expr is an expression.
type Expr interface {
	exprNode()
	Position() Position
}

// Token is an operator.
type Token uint8

// Operators. Temporal operators appear only in properties.
const (
	Illegal Token = iota
	// unary
	Not
	Neg
	Always
	Eventually
	Next
	Once         // past time: φ held at some state so far
	Historically // past time: φ held at every state so far
	Previously   // past time: φ held at the previous state
	// binary
	Implies
	Or
	And
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	In
	Subset
	Add
	Sub
	Union
	Minus
	Mul
	Div
	Mod
	Intersect
	Until
	WeakUntil
	Release
	LeadsTo
	Since // past time: ψ held at some state and φ at every state after it
	// Extension: bitwise operators on non-negative integers, and the
	// Euclidean modulo.
	BitAnd // &
	BitOr  // |
	BitXor // ^
	Shl    // <<
	Shr    // >>
	EMod   // mod: always in 0..|d|-1
)

var tokenNames = [...]string{
	Illegal: "ILLEGAL", Not: "not", Neg: "-", Always: "always", Eventually: "eventually",
	Next: "next", Implies: "implies", Or: "or", And: "and", Eq: "==", Ne: "!=", Lt: "<",
	Le: "<=", Gt: ">", Ge: ">=", In: "in", Subset: "subset", Add: "+", Sub: "-",
	Union: "union", Minus: "minus", Mul: "*", Div: "/", Mod: "%", Intersect: "intersect",
	Until: "until", WeakUntil: "weakuntil", Release: "release", LeadsTo: "leadsto",
	Once: "once", Historically: "historically", Previously: "previously", Since: "since",
	BitAnd: "&", BitOr: "|", BitXor: "^", Shl: "<<", Shr: ">>", EMod: "mod",
}

// String returns the operator as written in source.
func (t Token) String() string {
	if int(t) < len(tokenNames) {
		return tokenNames[t]
	}
	return "ILLEGAL"
}

// IsPastTime reports whether t is a past-time operator (once,
// historically, previously, since). Past-time operators are not temporal
// in the LTL sense: they apply to state expressions and give a value at
// every state.
func (t Token) IsPastTime() bool {
	switch t {
	case Once, Historically, Previously, Since:
		return true
	}
	return false
}

// IsTemporal reports whether t is an LTL operator.
func (t Token) IsTemporal() bool {
	switch t {
	case Always, Eventually, Next, Until, WeakUntil, Release, LeadsTo:
		return true
	}
	return false
}

// QuantKind distinguishes forall, exists and count, and the aggregates
// sum, min and max (an extension).
type QuantKind uint8

// Quantifier kinds.
const (
	Forall QuantKind = iota
	Exists
	Count
	Sum // extension; sum, min and max are not reserved words
	Min
	Max
)

func (k QuantKind) String() string {
	return [...]string{"forall", "exists", "count", "sum", "min", "max"}[k]
}

// IsAggregate reports whether k is sum, min or max.
func (k QuantKind) IsAggregate() bool { return k >= Sum }

// IdentExpr is a name used as a value.
type IdentExpr struct {
	Pos  Position
	Name string
}

// Ident returns e as the identifier it is. IdentExpr, [NamedType] and
// [Ident] have one layout, so that every identifier of a file is one
// *Ident node (the key of spec.Info's maps); adding a field to one of them
// breaks these conversions at compile time.
func (e *IdentExpr) Ident() *Ident { return (*Ident)(e) }

// Ident returns t as the identifier it is (see [IdentExpr.Ident]).
func (t *NamedType) Ident() *Ident { return (*Ident)(t) }

// IntLit is a decimal integer literal. Integers are exact: a literal
// that does not fit an int64 has Huge set, Value saturated to
// math.MaxInt64, and its exact value is [IntLit.BigValue].
type IntLit struct {
	Pos   Position
	Value int64
	Huge  bool // the value does not fit an int64
	Text  string
}

// BigValue returns the exact value of the literal.
func (e *IntLit) BigValue() *big.Int {
	if !e.Huge {
		return big.NewInt(e.Value)
	}
	v, ok := new(big.Int).SetString(e.Text, 10)
	if !ok {
		return big.NewInt(e.Value)
	}
	return v
}

// BoolLit is `true` or `false`.
type BoolLit struct {
	Pos   Position
	Value bool
}

// UnaryExpr is `not X`, `-X`, `always X`, `eventually X`, `next X`.
type UnaryExpr struct {
	Pos Position
	Op  Token
	X   Expr
}

// BinaryExpr is `X op Y`.
type BinaryExpr struct {
	Pos   Position // position of X
	OpPos Position
	Op    Token
	X, Y  Expr
}

// IndexExpr is `X[Index]`.
type IndexExpr struct {
	Pos   Position
	X     Expr
	Index Expr
	End   Position // "]" (for fmt)
}

// SelectorExpr is `X.Field` (a record field, or a process local `P.x`).
type SelectorExpr struct {
	Pos   Position
	X     Expr
	Field Ident
}

// CallExpr is `Fn(Args)`: a function call, or the builtin `card`.
type CallExpr struct {
	Pos  Position
	Fn   Ident
	Args []Expr
	End  Position // ")" (for fmt)
}

// AskExpr is `ask Agent(Args)`. It is legal only as the whole right-hand
// side of `let x = ...` or `x := ...`; the checker rejects it elsewhere.
type AskExpr struct {
	Pos   Position
	Agent Ident
	Args  []Expr
	End   Position // ")" (for fmt)
}

// CondExpr is `if Cond then Then else Else`.
type CondExpr struct {
	Pos              Position
	Cond, Then, Else Expr
}

// QuantExpr is `forall|exists|count|sum|min|max Var in Domain: Body`.
type QuantExpr struct {
	Pos    Position
	Kind   QuantKind
	Var    Ident
	Domain TypeExpr
	Body   Expr
}

// SetLit is `{e1, e2, ...}` in an expression position.
type SetLit struct {
	Pos   Position
	Elems []Expr
	End   Position // "}" (for fmt)
}

// ArrayLit is `[e1, e2, ...]` (an extension): an array's elements in
// index order; its type comes from its context.
type ArrayLit struct {
	Pos   Position
	Elems []Expr
	End   Position // "]" (for fmt)
}

// ArrayComp is the comprehension `[Var in Domain: Body]` (an extension):
// the array indexed by Domain whose element at each value of Var is Body.
type ArrayComp struct {
	Pos    Position
	Var    Ident
	Domain TypeExpr
	Body   Expr
	End    Position // "]" (for fmt)
}

// RecordLit is `record { f: e, ... }`.
type RecordLit struct {
	Pos    Position
	Fields []*FieldInit
	End    Position // "}" (for fmt)
}

// FieldInit is `name: value` in a record literal.
type FieldInit struct {
	Pos   Position
	Name  Ident
	Value Expr
}

// ParenExpr is `(X)`; kept so that fmt preserves the author's parentheses.
type ParenExpr struct {
	Pos Position
	X   Expr
	End Position // ")" (for fmt)
}

func (*IdentExpr) exprNode()    {}
func (*IntLit) exprNode()       {}
func (*BoolLit) exprNode()      {}
func (*UnaryExpr) exprNode()    {}
func (*BinaryExpr) exprNode()   {}
func (*IndexExpr) exprNode()    {}
func (*SelectorExpr) exprNode() {}
func (*CallExpr) exprNode()     {}
func (*AskExpr) exprNode()      {}
func (*CondExpr) exprNode()     {}
func (*QuantExpr) exprNode()    {}
func (*ArrayLit) exprNode()     {}
func (*ArrayComp) exprNode()    {}
func (*SetLit) exprNode()       {}
func (*RecordLit) exprNode()    {}
func (*ParenExpr) exprNode()    {}

func (e *IdentExpr) Position() Position    { return e.Pos }
func (e *IntLit) Position() Position       { return e.Pos }
func (e *BoolLit) Position() Position      { return e.Pos }
func (e *UnaryExpr) Position() Position    { return e.Pos }
func (e *BinaryExpr) Position() Position   { return e.Pos }
func (e *IndexExpr) Position() Position    { return e.Pos }
func (e *SelectorExpr) Position() Position { return e.Pos }
func (e *CallExpr) Position() Position     { return e.Pos }
func (e *AskExpr) Position() Position      { return e.Pos }
func (e *CondExpr) Position() Position     { return e.Pos }
func (e *QuantExpr) Position() Position    { return e.Pos }
func (e *ArrayLit) Position() Position     { return e.Pos }
func (e *ArrayComp) Position() Position    { return e.Pos }
func (e *SetLit) Position() Position       { return e.Pos }
func (e *RecordLit) Position() Position    { return e.Pos }
func (e *ParenExpr) Position() Position    { return e.Pos }

// ---------------------------------------------------------------------------
// Statements

// Stmt is a statement in an action or init body.
type Stmt interface {
	stmtNode()
	Position() Position
}

// Block is `{ stmts }`.
type Block struct {
	Pos   Position // "{"
	Stmts []Stmt
	End   Position // "}"
}

// AssignStmt is `Target := Value`; Value may be an [AskExpr]. As an
// extension, with Op [Send] it is the send `Target ! Value` and with Op
// [Recv] the receive `Target ? Value` on the channel Target.
type AssignStmt struct {
	Pos    Position
	Target Expr
	Value  Expr
	Op     AssignOp
}

// AssignOp is the operator of an [AssignStmt].
type AssignOp uint8

// The operators of an [AssignStmt].
const (
	Assign AssignOp = iota // :=
	Send                   // ! (an extension)
	Recv                   // ? (an extension)
)

// String returns the operator as written in source.
func (o AssignOp) String() string {
	switch o {
	case Send:
		return "!"
	case Recv:
		return "?"
	}
	return ":="
}

// LetStmt is `let Name = Value`; Value may be an [AskExpr].
type LetStmt struct {
	Pos   Position
	Name  Ident
	Value Expr
}

// ChooseStmt is `choose Var in Domain (where Where)? { Body }`.
type ChooseStmt struct {
	Pos    Position
	Var    Ident
	Domain TypeExpr
	Where  Expr // nil: every value
	Body   *Block
}

// ForStmt is `for Var in Domain { Body }` (an extension): Body runs once
// per value of Domain, in order. for is not a reserved word: a statement
// is a for statement when for is followed by a name.
type ForStmt struct {
	Pos    Position
	Var    Ident
	Domain TypeExpr
	Body   *Block
}

// IfStmt is `if Cond { Then } (else Else)?`; Else is nil, a *Block or an
// *IfStmt (for `else if`).
type IfStmt struct {
	Pos  Position
	Cond Expr
	Then *Block
	Else Stmt
}

// MatchStmt is `match X { cases }`.
type MatchStmt struct {
	Pos   Position
	X     Expr
	Cases []*MatchCase
	End   Position
}

// MatchCase is `v1, v2 => Body` or `else => Body`; Body is a single
// statement or a *Block.
type MatchCase struct {
	Pos    Position
	Values []Expr // nil for `else`
	Body   Stmt
}

// AssertStmt is `assert Cond "Msg"`.
type AssertStmt struct {
	Pos  Position
	Cond Expr
	Msg  string // unquoted; "" when absent
}

// SkipStmt is `skip`.
type SkipStmt struct{ Pos Position }

func (*Block) stmtNode()      {}
func (*AssignStmt) stmtNode() {}
func (*LetStmt) stmtNode()    {}
func (*ChooseStmt) stmtNode() {}
func (*ForStmt) stmtNode()    {}
func (*IfStmt) stmtNode()     {}
func (*MatchStmt) stmtNode()  {}
func (*AssertStmt) stmtNode() {}
func (*SkipStmt) stmtNode()   {}

func (s *Block) Position() Position      { return s.Pos }
func (s *AssignStmt) Position() Position { return s.Pos }
func (s *LetStmt) Position() Position    { return s.Pos }
func (s *ChooseStmt) Position() Position { return s.Pos }
func (s *ForStmt) Position() Position    { return s.Pos }
func (s *IfStmt) Position() Position     { return s.Pos }
func (s *MatchStmt) Position() Position  { return s.Pos }
func (s *AssertStmt) Position() Position { return s.Pos }
func (s *SkipStmt) Position() Position   { return s.Pos }
