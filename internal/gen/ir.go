package gen

import "github.com/wrapcheck/wrapcheck/spec"

// The IR builder: models made directly as a [spec.Model], below the front
// end, for the engine tests that want a model no source text gives (one
// process, hand-picked frame slots). [GenerateModel] builds its random
// models with it, and tests build their fixed ones.

// Builder makes a [spec.Model] by hand, declaration by declaration. It is
// not safe for concurrent use.
type Builder struct {
	// M is the model being built; a test may set its fields directly
	// (Terminal, Processes, ...).
	M *spec.Model
}

// NewBuilder returns a builder of an empty model named name, in the file
// name.wrap.
func NewBuilder(name string) *Builder {
	return &Builder{M: &spec.Model{Name: name, Filename: name + ".wrap"}}
}

// IntType returns the type of an unbounded integer.
func IntType() *spec.Type { return &spec.Type{Kind: spec.IntKind, Width: 1} }

// BoolType returns the type bool.
func BoolType() *spec.Type { return &spec.Type{Kind: spec.BoolKind, Lo: 0, Hi: 1, Width: 1} }

// RangeType returns the type lo..hi.
func RangeType(lo, hi int64) *spec.Type {
	return &spec.Type{Kind: spec.RangeKind, Lo: lo, Hi: hi, Width: 1}
}

// EnumType returns the enumeration of names, in order.
func EnumType(names ...string) *spec.Type {
	return &spec.Type{Kind: spec.EnumKind, Lo: 0, Hi: int64(len(names) - 1), Names: names, Width: 1}
}

// SetType returns the type set of elem.
func SetType(elem *spec.Type) *spec.Type {
	return &spec.Type{Kind: spec.SetKind, Elem: elem, Width: 1}
}

// ArrayType returns the type [index]elem.
func ArrayType(index, elem *spec.Type) *spec.Type {
	return &spec.Type{Kind: spec.ArrayKind, Index: index, Elem: elem, Width: int(index.Size()) * elem.Width}
}

// RecordType returns the record with the fields names, of the types
// types, in order.
func RecordType(names []string, types ...*spec.Type) *spec.Type {
	t := &spec.Type{Kind: spec.RecordKind}
	for i, n := range names {
		t.Fields = append(t.Fields, &spec.Field{Name: n, Type: types[i], Offset: t.Width})
		t.Width += types[i].Width
	}
	return t
}

// Global declares a state variable and returns a reference to it.
func (b *Builder) Global(name string, t *spec.Type) *spec.Expr {
	m := b.M
	v := &spec.Var{Name: name, Type: t, Slot: len(m.Slots), Process: -1}
	m.Vars = append(m.Vars, v)
	b.addSlots(len(m.Vars)-1, t)
	return &spec.Expr{Op: spec.OpVar, Type: t, Slot: v.Slot}
}

func (b *Builder) addSlots(vi int, t *spec.Type) {
	switch t.Kind {
	case spec.ArrayKind:
		for i := int64(0); i < t.Index.Size(); i++ {
			b.addSlots(vi, t.Elem)
		}
	case spec.RecordKind:
		for _, f := range t.Fields {
			b.addSlots(vi, f.Type)
		}
	case spec.SetKind:
		b.M.Slots = append(b.M.Slots, spec.Slot{Var: vi, Set: true, Bits: int(t.Elem.Size()), Type: t})
	default:
		bits := 0
		for (int64(1) << bits) < t.Hi-t.Lo+1 {
			bits++
		}
		b.M.Slots = append(b.M.Slots, spec.Slot{Var: vi, Lo: t.Lo, Hi: t.Hi, Bits: bits, Type: t})
	}
}

// Local returns frame slot i of type t (and grows Model.Frame).
func (b *Builder) Local(i int, t *spec.Type) *spec.Expr {
	if i+t.Width > b.M.Frame {
		b.M.Frame = i + t.Width
	}
	return &spec.Expr{Op: spec.OpLocal, Type: t, Slot: i}
}

// Action adds an action (guard nil: always enabled) and returns its index.
func (b *Builder) Action(name string, guard *spec.Expr, body ...*spec.Stmt) int {
	m := b.M
	m.Actions = append(m.Actions, &spec.Action{Name: name, Short: name, Guard: guard, Body: body, Process: 0})
	return len(m.Actions) - 1
}

// Invariant adds an invariant, placed at line n for the n-th one.
func (b *Builder) Invariant(name string, e *spec.Expr) {
	b.M.Invariants = append(b.M.Invariants, &spec.Invariant{Name: name, Expr: e, Pos: spec.Position{Filename: b.M.Filename, Line: len(b.M.Invariants) + 1, Col: 1}})
}

// Agent adds an agent and returns its index; assume, when not nil, builds
// its assumption from references to the result and the parameters.
func (b *Builder) Agent(name string, result *spec.Type, params []*spec.Type, assume func(res *spec.Expr, params []*spec.Expr) *spec.Expr) int {
	a := &spec.Agent{Name: name, Params: params, Result: result}
	var ps []*spec.Expr
	for _, p := range params {
		a.ParamSlots = append(a.ParamSlots, a.Frame)
		ps = append(ps, &spec.Expr{Op: spec.OpLocal, Type: p, Slot: a.Frame})
		a.Frame += p.Width
	}
	a.ResultSlot = a.Frame
	res := &spec.Expr{Op: spec.OpLocal, Type: result, Slot: a.Frame}
	a.Frame += result.Width
	if assume != nil {
		a.Assume = assume(res, ps)
	}
	b.M.Agents = append(b.M.Agents, a)
	return len(b.M.Agents) - 1
}

// Build returns the model; without processes, every action goes to one
// process named main.
func (b *Builder) Build() *spec.Model {
	m := b.M
	if len(m.Processes) == 0 {
		p := &spec.Process{Name: "main"}
		for i := range m.Actions {
			p.Actions = append(p.Actions, i)
		}
		m.Processes = []*spec.Process{p}
	}
	return m
}

// Num returns the integer constant v.
func Num(v int64) *spec.Expr { return &spec.Expr{Op: spec.OpConst, Type: IntType(), Val: v} }

// True returns the constant true.
func True() *spec.Expr { return &spec.Expr{Op: spec.OpConst, Type: BoolType(), Val: 1} }

// Const returns the constant of type t with the value (or member index) v.
func Const(t *spec.Type, v int64) *spec.Expr {
	return &spec.Expr{Op: spec.OpConst, Type: t, Val: v}
}

// Bin returns the binary operation op of type t on a and b.
func Bin(op spec.Op, t *spec.Type, a, b *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: op, Type: t, Args: []*spec.Expr{a, b}}
}

// Add returns a + b.
func Add(a, b *spec.Expr) *spec.Expr { return Bin(spec.OpAdd, IntType(), a, b) }

// Mod returns a % b.
func Mod(a, b *spec.Expr) *spec.Expr { return Bin(spec.OpMod, IntType(), a, b) }

// Eq returns a == b.
func Eq(a, b *spec.Expr) *spec.Expr { return Bin(spec.OpEq, BoolType(), a, b) }

// Ne returns a != b.
func Ne(a, b *spec.Expr) *spec.Expr { return Bin(spec.OpNe, BoolType(), a, b) }

// Lt returns a < b.
func Lt(a, b *spec.Expr) *spec.Expr { return Bin(spec.OpLt, BoolType(), a, b) }

// Implies returns a implies b.
func Implies(a, b *spec.Expr) *spec.Expr { return Bin(spec.OpImplies, BoolType(), a, b) }

// Card returns card(a).
func Card(a *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpCard, Type: IntType(), Args: []*spec.Expr{a}}
}

// Field returns r.name.
func Field(r *spec.Expr, name string) *spec.Expr {
	f := r.Type.FieldByName(name)
	return &spec.Expr{Op: spec.OpField, Type: f.Type, Val: int64(f.Offset), Args: []*spec.Expr{r}}
}

// SetLit returns the set literal of type t with the elements elems.
func SetLit(t *spec.Type, elems ...*spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpSetLit, Type: t, Args: elems}
}

// Assign returns the statement t := v.
func Assign(t, v *spec.Expr) *spec.Stmt { return &spec.Stmt{Op: spec.SAssign, Target: t, Value: v} }

// AskLet returns the statement that asks agent with args and binds the
// answer to the frame slot slot.
func AskLet(slot, agent int, args ...*spec.Expr) *spec.Stmt {
	return &spec.Stmt{Op: spec.SAsk, Slot: slot, Agent: agent, Args: args}
}

// Choose returns the statement choose (frame slot slot) in dom where cond
// (nil: every value) { body }.
func Choose(slot int, dom *spec.Type, cond *spec.Expr, body ...*spec.Stmt) *spec.Stmt {
	return &spec.Stmt{Op: spec.SChoose, Slot: slot, Dom: dom, Cond: cond, Body: body}
}

// IfElse returns the statement if c { then } else { els }.
func IfElse(c *spec.Expr, then, els []*spec.Stmt) *spec.Stmt {
	return &spec.Stmt{Op: spec.SIf, Cond: c, Body: then, Else: els}
}

// Assert returns the statement assert c msg.
func Assert(c *spec.Expr, msg string) *spec.Stmt {
	return &spec.Stmt{Op: spec.SAssert, Cond: c, Msg: msg}
}
