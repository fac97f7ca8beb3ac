package checker

import (
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/spec"
)

// builder makes IR models by hand for tests: gen's [gen.Builder] under
// the short names these tests use.
type builder struct {
	b *gen.Builder
	m *spec.Model
}

func newBuilder(name string) *builder {
	b := gen.NewBuilder(name)
	return &builder{b: b, m: b.M}
}

var (
	intT  = gen.IntType()
	boolT = gen.BoolType()
)

func rangeT(lo, hi int64) *spec.Type                  { return gen.RangeType(lo, hi) }
func enumT(names ...string) *spec.Type                { return gen.EnumType(names...) }
func setT(elem *spec.Type) *spec.Type                 { return gen.SetType(elem) }
func arrayT(index, elem *spec.Type) *spec.Type        { return gen.ArrayType(index, elem) }
func recordT(n []string, ts ...*spec.Type) *spec.Type { return gen.RecordType(n, ts...) }

// global declares a state variable and returns a reference to it.
func (b *builder) global(name string, t *spec.Type) *spec.Expr { return b.b.Global(name, t) }

// local returns frame slot i of type t (and grows Model.Frame).
func (b *builder) local(i int, t *spec.Type) *spec.Expr { return b.b.Local(i, t) }

func (b *builder) action(name string, guard *spec.Expr, body ...*spec.Stmt) int {
	return b.b.Action(name, guard, body...)
}

func (b *builder) invariant(name string, e *spec.Expr) { b.b.Invariant(name, e) }

func (b *builder) agent(name string, result *spec.Type, params []*spec.Type, assume func(res *spec.Expr, params []*spec.Expr) *spec.Expr) int {
	return b.b.Agent(name, result, params, assume)
}

func (b *builder) build() *spec.Model { return b.b.Build() }

// Expression helpers.

func num(v int64) *spec.Expr { return gen.Num(v) }
func tru() *spec.Expr        { return gen.True() }
func fls() *spec.Expr        { return gen.Const(boolT, 0) }
func cnst(t *spec.Type, v int64) *spec.Expr {
	return gen.Const(t, v)
}

func bin(op spec.Op, t *spec.Type, a, b *spec.Expr) *spec.Expr { return gen.Bin(op, t, a, b) }

func add(a, b *spec.Expr) *spec.Expr     { return gen.Add(a, b) }
func sub(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpSub, intT, a, b) }
func mod(a, b *spec.Expr) *spec.Expr     { return gen.Mod(a, b) }
func div(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpDiv, intT, a, b) }
func eq(a, b *spec.Expr) *spec.Expr      { return gen.Eq(a, b) }
func ne(a, b *spec.Expr) *spec.Expr      { return gen.Ne(a, b) }
func lt(a, b *spec.Expr) *spec.Expr      { return gen.Lt(a, b) }
func ge(a, b *spec.Expr) *spec.Expr      { return bin(spec.OpGe, boolT, a, b) }
func and(a, b *spec.Expr) *spec.Expr     { return bin(spec.OpAnd, boolT, a, b) }
func or(a, b *spec.Expr) *spec.Expr      { return bin(spec.OpOr, boolT, a, b) }
func implies(a, b *spec.Expr) *spec.Expr { return gen.Implies(a, b) }
func not(a *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpNot, Type: boolT, Args: []*spec.Expr{a}}
}
func card(a *spec.Expr) *spec.Expr { return gen.Card(a) }
func index(a, i *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpIndex, Type: a.Type.Elem, Args: []*spec.Expr{a, i}}
}
func field(r *spec.Expr, name string) *spec.Expr { return gen.Field(r, name) }
func setLit(t *spec.Type, elems ...*spec.Expr) *spec.Expr {
	return gen.SetLit(t, elems...)
}
func forall(slot int, dom *spec.Type, body *spec.Expr) *spec.Expr {
	return &spec.Expr{Op: spec.OpForall, Type: boolT, Slot: slot, Dom: dom, Args: []*spec.Expr{body}}
}

// Statement helpers.

func assign(t, v *spec.Expr) *spec.Stmt { return gen.Assign(t, v) }
func askInto(t *spec.Expr, agent int, args ...*spec.Expr) *spec.Stmt {
	return &spec.Stmt{Op: spec.SAsk, Target: t, Agent: agent, Args: args}
}
func askLet(slot, agent int, args ...*spec.Expr) *spec.Stmt { return gen.AskLet(slot, agent, args...) }
func choose(slot int, dom *spec.Type, cond *spec.Expr, body ...*spec.Stmt) *spec.Stmt {
	return gen.Choose(slot, dom, cond, body...)
}
func ifElse(c *spec.Expr, then, els []*spec.Stmt) *spec.Stmt { return gen.IfElse(c, then, els) }
func assert(c *spec.Expr, msg string) *spec.Stmt             { return gen.Assert(c, msg) }
