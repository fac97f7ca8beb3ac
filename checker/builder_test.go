package checker

import (
	"github.com/wrapcheck/wrapcheck/spec"
)

// builder makes IR models by hand for tests.
type builder struct {
	m *spec.Model
}

func newBuilder(name string) *builder {
	return &builder{m: &spec.Model{Name: name, Filename: name + ".wrap"}}
}

var (
	intT  = &spec.Type{Kind: spec.IntKind, Width: 1}
	boolT = &spec.Type{Kind: spec.BoolKind, Lo: 0, Hi: 1, Width: 1}
)

func rangeT(lo, hi int64) *spec.Type {
	return &spec.Type{Kind: spec.RangeKind, Lo: lo, Hi: hi, Width: 1}
}

func enumT(names ...string) *spec.Type {
	return &spec.Type{Kind: spec.EnumKind, Lo: 0, Hi: int64(len(names) - 1), Names: names, Width: 1}
}

func setT(elem *spec.Type) *spec.Type { return &spec.Type{Kind: spec.SetKind, Elem: elem, Width: 1} }

func arrayT(index, elem *spec.Type) *spec.Type {
	return &spec.Type{Kind: spec.ArrayKind, Index: index, Elem: elem, Width: int(index.Size()) * elem.Width}
}

func recordT(names []string, types ...*spec.Type) *spec.Type {
	t := &spec.Type{Kind: spec.RecordKind}
	for i, n := range names {
		t.Fields = append(t.Fields, &spec.Field{Name: n, Type: types[i], Offset: t.Width})
		t.Width += types[i].Width
	}
	return t
}

// global declares a state variable and returns a reference to it.
func (b *builder) global(name string, t *spec.Type) *spec.Expr {
	m := b.m
	v := &spec.Var{Name: name, Type: t, Slot: len(m.Slots), Process: -1}
	m.Vars = append(m.Vars, v)
	b.addSlots(len(m.Vars)-1, t)
	return &spec.Expr{Op: spec.OpVar, Type: t, Slot: v.Slot}
}

func (b *builder) addSlots(vi int, t *spec.Type) {
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
		b.m.Slots = append(b.m.Slots, spec.Slot{Var: vi, Set: true, Bits: int(t.Elem.Size()), Type: t})
	default:
		bits := 0
		for (int64(1) << bits) < t.Hi-t.Lo+1 {
			bits++
		}
		b.m.Slots = append(b.m.Slots, spec.Slot{Var: vi, Lo: t.Lo, Hi: t.Hi, Bits: bits, Type: t})
	}
}

// local returns frame slot i of type t (and grows Model.Frame).
func (b *builder) local(i int, t *spec.Type) *spec.Expr {
	if i+t.Width > b.m.Frame {
		b.m.Frame = i + t.Width
	}
	return &spec.Expr{Op: spec.OpLocal, Type: t, Slot: i}
}

func (b *builder) action(name string, guard *spec.Expr, body ...*spec.Stmt) int {
	m := b.m
	m.Actions = append(m.Actions, &spec.Action{Name: name, Short: name, Guard: guard, Body: body, Process: 0})
	return len(m.Actions) - 1
}

func (b *builder) invariant(name string, e *spec.Expr) {
	b.m.Invariants = append(b.m.Invariants, &spec.Invariant{Name: name, Expr: e, Pos: spec.Position{Filename: b.m.Filename, Line: len(b.m.Invariants) + 1, Col: 1}})
}

func (b *builder) agent(name string, result *spec.Type, params []*spec.Type, assume func(res *spec.Expr, params []*spec.Expr) *spec.Expr) int {
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
	b.m.Agents = append(b.m.Agents, a)
	return len(b.m.Agents) - 1
}

func (b *builder) build() *spec.Model {
	m := b.m
	if len(m.Processes) == 0 {
		p := &spec.Process{Name: "main"}
		for i := range m.Actions {
			p.Actions = append(p.Actions, i)
		}
		m.Processes = []*spec.Process{p}
	}
	return m
}

// Expression helpers.

func num(v int64) *spec.Expr { return &spec.Expr{Op: spec.OpConst, Type: intT, Val: v} }
func tru() *spec.Expr        { return &spec.Expr{Op: spec.OpConst, Type: boolT, Val: 1} }
func fls() *spec.Expr        { return &spec.Expr{Op: spec.OpConst, Type: boolT, Val: 0} }
func cnst(t *spec.Type, v int64) *spec.Expr {
	return &spec.Expr{Op: spec.OpConst, Type: t, Val: v}
}

func bin(op spec.Op, t *spec.Type, a, b *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: op, Type: t, Args: []*spec.Expr{a, b}}
}

func add(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpAdd, intT, a, b) }
func sub(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpSub, intT, a, b) }
func mod(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpMod, intT, a, b) }
func div(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpDiv, intT, a, b) }
func eq(a, b *spec.Expr) *spec.Expr      { return bin(spec.OpEq, boolT, a, b) }
func ne(a, b *spec.Expr) *spec.Expr      { return bin(spec.OpNe, boolT, a, b) }
func lt(a, b *spec.Expr) *spec.Expr      { return bin(spec.OpLt, boolT, a, b) }
func ge(a, b *spec.Expr) *spec.Expr      { return bin(spec.OpGe, boolT, a, b) }
func and(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpAnd, boolT, a, b) }
func or(a, b *spec.Expr) *spec.Expr      { return bin(spec.OpOr, boolT, a, b) }
func implies(a, b *spec.Expr) *spec.Expr { return bin(spec.OpImplies, boolT, a, b) }
func not(a *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpNot, Type: boolT, Args: []*spec.Expr{a}}
}
func card(a *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpCard, Type: intT, Args: []*spec.Expr{a}}
}
func index(a, i *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpIndex, Type: a.Type.Elem, Args: []*spec.Expr{a, i}}
}
func field(r *spec.Expr, name string) *spec.Expr {
	f := r.Type.FieldByName(name)
	return &spec.Expr{Op: spec.OpField, Type: f.Type, Val: int64(f.Offset), Args: []*spec.Expr{r}}
}
func setLit(t *spec.Type, elems ...*spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpSetLit, Type: t, Args: elems}
}
func forall(slot int, dom *spec.Type, body *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpForall, Type: boolT, Slot: slot, Dom: dom, Args: []*spec.Expr{body}}
}

// Statement helpers.

func assign(t, v *spec.Expr) *spec.Stmt { return &spec.Stmt{Op: spec.SAssign, Target: t, Value: v} }
func askInto(t *spec.Expr, agent int, args ...*spec.Expr) *spec.Stmt {
	return &spec.Stmt{Op: spec.SAsk, Target: t, Agent: agent, Args: args}
}
func askLet(slot, agent int, args ...*spec.Expr) *spec.Stmt {
	return &spec.Stmt{Op: spec.SAsk, Slot: slot, Agent: agent, Args: args}
}
func choose(slot int, dom *spec.Type, cond *spec.Expr, body ...*spec.Stmt) *spec.Stmt {
	return &spec.Stmt{Op: spec.SChoose, Slot: slot, Dom: dom, Cond: cond, Body: body}
}
func ifElse(c *spec.Expr, then, els []*spec.Stmt) *spec.Stmt {
	return &spec.Stmt{Op: spec.SIf, Cond: c, Body: then, Else: els}
}
func assert(c *spec.Expr, msg string) *spec.Stmt {
	return &spec.Stmt{Op: spec.SAssert, Cond: c, Msg: msg}
}
