package spec

import "math/big"

// This file defines the intermediate representation that [Check] produces
// and the engine evaluates: a *Model. Every name is resolved, every constant
// folded, every fn call inlined, and every process family expanded into one
// process per index value.
//
// # Values
//
// Every scalar value is an int64:
//   - bool: 0 (false) or 1 (true)
//   - lo..hi and intermediate integers: the integer itself
//   - enum: the member's ordinal, 0..n-1, in declaration order
//   - symmetric N: the identity's ordinal, 0..N-1 (printed Name1..NameN)
//   - set of T: a bitmask; bit k is the k-th value of T (value - T.Lo)
//
// A compound value (array, record) is a sequence of Type.Width scalars:
// arrays element after element (element i at (i - Index.Lo) * Elem.Width),
// records field after field (at Field.Offset).
//
// # State
//
// The state is a vector of scalar slots (Model.Slots). A variable of a
// compound type takes Width consecutive slots from Var.Slot. Evaluation
// also uses a frame of local slots (let bindings, quantified and chosen
// variables, inlined fn parameters); Model.Frame is the largest frame any
// action, init block, invariant, property or terminal predicate needs.
// Agent assumptions are evaluated in a separate frame of Agent.Frame slots.

// Kind is the kind of a [Type].
type Kind uint8

// Type kinds.
const (
	InvalidKind   Kind = iota
	BoolKind           // bool
	IntKind            // an unbounded intermediate integer (constants, arithmetic)
	RangeKind          // lo..hi
	EnumKind           // {a, b, c}
	SymmetricKind      // symmetric N
	ArrayKind          // [Index]Elem
	RecordKind         // record { ... }
	SetKind            // set of Elem
)

var kindNames = [...]string{"invalid", "bool", "int", "range", "enum", "symmetric", "array", "record", "set"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Type is a resolved type. Enum and symmetric types are identified by
// pointer (two declarations give two types); ranges and ints are all
// integers and mix freely. A Type is immutable after [Check].
type Type struct {
	Kind   Kind
	Name   string   // the declared name, "" when anonymous
	Lo, Hi int64    // Range: bounds; Bool: 0..1; Enum, Symmetric: 0..n-1
	Names  []string // Enum: member names; Symmetric: identity names (Run1...)
	Elem   *Type    // Array: element type; Set: element type
	Index  *Type    // Array: index type (a finite scalar type)
	Fields []*Field // Record: fields in declaration order
	Width  int      // number of scalar slots a value occupies
	// Seq marks a record that is a sequence, seq[N] of T (an
	// extension): its fields are len (0..N) and elems ([0..N-1]T), the
	// elements at len and past it held at T's zero value, so that equal
	// sequences have one encoding.
	Seq bool
}

// Field is a record field.
type Field struct {
	Name   string
	Type   *Type
	Offset int // slot offset within the record
}

// IsScalar reports whether values of t take one slot.
func (t *Type) IsScalar() bool {
	switch t.Kind {
	case ArrayKind, RecordKind:
		return false
	}
	return true
}

// IsFinite reports whether t is a finite scalar type that can index an
// array, be a set's element type, or be enumerated by choose/forall.
func (t *Type) IsFinite() bool {
	switch t.Kind {
	case BoolKind, RangeKind, EnumKind, SymmetricKind:
		return true
	}
	return false
}

// Size returns the number of values of a finite scalar type (Hi-Lo+1).
func (t *Type) Size() int64 { return t.Hi - t.Lo + 1 }

// FieldByName returns the field called name, or nil.
func (t *Type) FieldByName(name string) *Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Model is a checked, lowered spec: the input of the engine. It is
// immutable after [Check] and safe for concurrent reads.
type Model struct {
	Name     string
	Filename string
	NamePos  Position // the spec's name, after `spec`
	Consts   []*Const // every constant, with its final value (after -D)
	Types    []*Type  // every declared named type, in declaration order
	// Vars lists the global variables, then the locals of each process
	// instance: process after process, variable after variable, instance
	// after instance (P[0].x, P[1].x, P[0].y, ...), so that the copies of
	// one family local take consecutive slots and P[e].x lowers to an
	// OpIndex over them. Var.Slot increases along Vars.
	Vars    []*Var
	Slots   []Slot  // the flattened state vector
	Init    []*Stmt // the start values of the variables, then the init block
	Actions []*Action
	// Processes lists every process instance; actions of a process are
	// listed consecutively in Actions, in declaration order, instances of a
	// family in index order.
	Processes  []*Process
	Agents     []*Agent
	Invariants []*Invariant
	// Watches are the expressions of Options.Watches, checked and
	// lowered, in the order given; nothing the search runs reads them.
	Watches    []*Watch
	Properties []*Property
	Fairness   []*Fairness
	Terminal   *Expr // nil: no state is terminal
	// Monitors lists the hidden variables of the past-time subformulas
	// (their Vars come after every other variable); Stutter holds their
	// update on a step that changes no other variable (a state with no
	// enabled action repeating): already part of Init and of every
	// action's Body, and empty when there are no monitors.
	Monitors    []*Monitor
	Stutter     []*Stmt
	TerminalPos Position
	Frame       int // local slots needed by any unit but agent assumptions
	// Rates and Queries are the declarations of the quantitative
	// extension (rates.go), which only the quant package reads.
	Rates   []*Rate
	Queries []*Query
	// Costs and Expectations are the cost declarations and the
	// expected-cost queries.
	Costs        []*Cost
	Expectations []*Expectation

	vet *vetInfo // what [Vet] needs from the check; nil for a hand-built Model
}

// Const is a named integer constant.
type Const struct {
	Name  string
	Value int64    // saturated when Big is set
	Big   *big.Int // the exact value when it does not fit an int64; else nil
	Pos   Position
}

// Var is a state variable, or one instance's copy of a process local.
type Var struct {
	Name    string // "x"; "P.x" for a process local; "P[v].x" in a family
	Type    *Type
	Slot    int // first slot
	Process int // owning process instance, or -1 for a global
	// Local is the name the variable is declared with: "x" for the
	// global x and for the locals P.x and P[v].x.
	Local string
	// Family is "P" for a local of an instance of the family P, ""
	// otherwise; Index is then the index value of that instance (the
	// owning Process's Family and Index).
	Family  string
	Index   int64
	Pos     Position
	Monitor *Monitor // non-nil: the hidden variable of a past-time subformula
}

// Slot describes one scalar position of the state vector.
type Slot struct {
	Var    int   // index into Model.Vars
	Lo, Hi int64 // the stored value's domain (Set: unused)
	Bits   int   // bits needed when packed: ceil(log2(Hi-Lo+1)); Set: #elements
	Set    bool  // the slot holds a set bitmask
	Type   *Type // the scalar type of this slot
}

// Process is one process instance.
type Process struct {
	Name      string // "approver", "P[Run1]", or "main" for top-level actions
	Family    string // "P" for an instance of a family, "" otherwise
	Index     int64  // the family index value
	IndexType *Type  // nil for a single process
	Actions   []int  // indexes into Model.Actions
	Pos       Position
}

// Action is one action of one process instance.
type Action struct {
	Name    string // trace label: "proc.act", "fam[v].act", or "act" at top level
	Short   string // the action's own name, "act"
	Process int    // index into Model.Processes
	Guard   *Expr  // nil: always enabled
	Body    []*Stmt
	Reads   []int // state slots read (guard and body), sorted, unique
	Writes  []int // state slots possibly written, sorted, unique
	Pos     Position
}

// Agent is a chaotic agent.
type Agent struct {
	Name       string
	Params     []*Type
	ParamSlots []int // base local slot of each parameter in the agent frame
	Result     *Type
	ResultSlot int   // base local slot of `result` in the agent frame
	Assume     *Expr // over the agent frame; nil: every answer is allowed
	Frame      int
	Pos        Position
	ParamsPos  Position
}

// Invariant is a state predicate that must hold in every reachable state.
type Invariant struct {
	Name string
	Expr *Expr
	Pos  Position
}

// Watch is an expression over one state that a trace shows at every
// step (check --watch).
type Watch struct {
	Text string // the expression, printed canonically
	Expr *Expr
}

// Property is an LTL property. Formula may contain the temporal operators
// and quantifiers over temporal formulas.
type Property struct {
	Name    string
	Formula *Expr
	Pos     Position
}

// Fairness is a fairness declaration, expanded into units: each unit is a
// set of actions that is fair as a whole (a process instance, or one
// action of one instance). A family gives one unit per instance.
type Fairness struct {
	Strong bool
	Name   string  // as written: "P", "P.A"
	Units  [][]int // indexes into Model.Actions
	Pos    Position
}

// Op is an expression operator of the IR.
type Op uint8

// Expression operators. Args are operands in order.
const (
	OpConst   Op = iota // Val
	OpVar               // the state location at Slot (compound: Slot is the base)
	OpLocal             // the frame location at Slot
	OpIndex             // Args[0][Args[1]]; Args[0] has an array type; index checked at runtime
	OpField             // Args[0].field; Val is the field's slot offset
	OpNot               // bool
	OpNeg               // int
	OpAnd               // short-circuit
	OpOr                // short-circuit
	OpImplies           // short-circuit
	OpEq                // any type; compound values compare slot by slot
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAdd
	OpSub
	OpMul
	OpDiv // truncated toward zero; division by zero is a runtime error
	OpMod // remainder of OpDiv; by zero is a runtime error
	OpIn  // Args[0] is an element of the set Args[1]
	OpSubset
	OpUnion
	OpIntersect
	OpMinus
	OpCard
	OpSetLit    // Args: elements (checked against Type.Elem at runtime)
	OpRecordLit // Args: one value per field, in declaration order; for an array type (an extension), one per element in index order
	OpCond      // if Args[0] then Args[1] else Args[2]
	OpForall    // bound local at Slot ranges over Dom; Args[0] is the body
	OpExists
	OpCount
	OpLet // Args[i] is stored at local Binds[i] for i < len(Args)-1; value is the last Arg
	// Extension: bitwise operators. Their operands must be non-negative
	// and fit an int64, and the result of OpShl must fit an int64; else
	// a runtime error.
	OpBitAnd
	OpBitOr
	OpBitXor
	OpShl
	OpShr
	OpEMod // Euclidean modulo: in 0..|Args[1]|-1; by zero is a runtime error
	// Temporal operators (only in Property formulas).
	OpAlways
	OpEventually
	OpNext
	OpUntil
	OpWeakUntil
	OpRelease
	OpLeadsTo
)

var opNames = [...]string{
	"const", "var", "local", "index", "field", "not", "neg", "and", "or", "implies",
	"==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "in", "subset", "union",
	"intersect", "minus", "card", "setlit", "recordlit", "cond", "forall", "exists",
	"count", "let", "&", "|", "^", "<<", ">>", "mod", "always", "eventually", "next", "until", "weakuntil", "release", "leadsto",
}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op?"
}

// IsTemporal reports whether o is an LTL operator.
func (o Op) IsTemporal() bool { return o >= OpAlways }

// Expr is an IR expression node. Type is never nil and never invalid.
type Expr struct {
	Op   Op
	Type *Type
	Args []*Expr
	Val  int64 // OpConst: the value; OpField: the field offset
	// Big is, for an integer OpConst whose value does not fit an int64,
	// the exact value (Val is then saturated: see [Expr.BigVal]); nil
	// otherwise.
	Big   *big.Int
	Slot  int   // OpVar: state slot; OpLocal, quantifiers: frame slot
	Dom   *Type // quantifiers: the domain
	Binds []int // OpLet: frame slots
	Pos   Position
}

// IsLocation reports whether e denotes a storage location (a variable, a
// local, or an element or field of one).
func (e *Expr) IsLocation() bool {
	switch e.Op {
	case OpVar, OpLocal:
		return true
	case OpIndex, OpField:
		return e.Args[0].IsLocation()
	}
	return false
}

// StmtOp is a statement kind of the IR.
type StmtOp uint8

// Statement kinds.
const (
	SAssign StmtOp = iota // Target := Value
	SLet                  // frame slot Slot := Value
	SAsk                  // Target (or frame slot Slot when Target is nil) := an answer of Agents[Agent](Args...)
	SChoose               // frame slot Slot ranges over the values of Dom satisfying Cond (nil: all); runs Body
	SIf                   // if Cond { Body } else { Else }
	SMatch                // match Value { Cases } else { Else }; HasElse false: exhaustive
	SAssert               // runtime error with Msg when Cond is false
	SSkip
)

// Stmt is an IR statement. A branching statement (SAsk, SChoose) runs the
// rest of the enclosing statement lists once per branch.
type Stmt struct {
	Op      StmtOp
	Target  *Expr // a location (IsLocation), for SAssign and SAsk
	Value   *Expr
	Slot    int
	Agent   int
	Args    []*Expr
	Dom     *Type
	Cond    *Expr
	Body    []*Stmt
	Else    []*Stmt
	Cases   []*Case
	HasElse bool
	Msg     string
	Pos     Position
}

// Case is one arm of a match: it runs Body when the value is one of Values.
type Case struct {
	Values []int64
	Body   []*Stmt
}

// Antecedent returns, for an invariant `a implies b`, its antecedent a,
// and for one under quantifiers, `forall x..: a implies b`, the
// expression `exists x..: a`: the states in which the invariant says
// something. It returns nil when e has another form.
func Antecedent(e *Expr) *Expr {
	switch e.Op {
	case OpImplies:
		return e.Args[0]
	case OpForall:
		a := Antecedent(e.Args[0])
		if a == nil {
			return nil
		}
		x := *e
		x.Op = OpExists
		x.Args = []*Expr{a}
		return &x
	}
	return nil
}
