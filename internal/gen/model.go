package gen

import (
	"fmt"
	"math/rand/v2"

	"github.com/wrapcheck/wrapcheck/spec"
)

// ModelShape selects what a model of [GenerateModel] is made of.
type ModelShape int

// The model shapes.
const (
	// Counters: 2 to 4 counters; actions add, subtract, copy, choose and
	// assert, with guards, so that runtime errors, deadlocks and
	// invariant violations all occur.
	Counters ModelShape = iota
	// Rich: counters, a set, a record, an agent with an assumption,
	// choose, if and assert.
	Rich
)

// GenerateModel builds a random model of the shape s directly in the IR,
// with [Builder], drawing from r. The same *rand.Rand state gives the same
// model.
func GenerateModel(r *rand.Rand, s ModelShape) *spec.Model {
	if s == Rich {
		return richModel(r)
	}
	return countersModel(r)
}

// addActions adds n actions a0, a1, ... to b, each on a variable x drawn
// with pick: guarded by x < (the top of x's range) but once in
// guardOdds, with the statements body(x), and once in checkOdds with the
// statement check(x) after them.
func addActions(b *Builder, r *rand.Rand, n int, pick func() *spec.Expr, guardOdds int, body func(x *spec.Expr) []*spec.Stmt, checkOdds int, check func(x *spec.Expr) *spec.Stmt) {
	for a := range n {
		x := pick()
		var guard *spec.Expr
		if r.IntN(guardOdds) > 0 {
			guard = Lt(x, Num(x.Type.Hi))
		}
		stmts := body(x)
		if r.IntN(checkOdds) == 0 {
			stmts = append(stmts, check(x))
		}
		b.Action(fmt.Sprintf("a%d", a), guard, stmts...)
	}
}

func countersModel(r *rand.Rand) *spec.Model {
	b := NewBuilder("random")
	nv := 2 + r.IntN(3)
	var vars []*spec.Expr
	for i := range nv {
		vars = append(vars, b.Global(fmt.Sprintf("v%d", i), RangeType(0, int64(2+r.IntN(5)))))
	}
	pick := func() *spec.Expr { return vars[r.IntN(nv)] }
	addActions(b, r, 2+r.IntN(5), pick, 4, func(x *spec.Expr) []*spec.Stmt {
		switch r.IntN(4) {
		case 0:
			return []*spec.Stmt{Assign(x, Add(x, Num(1)))}
		case 1:
			return []*spec.Stmt{Assign(x, Mod(Add(pick(), Num(1)), Num(x.Type.Hi+1)))}
		case 2:
			y := b.Local(0, RangeType(0, 2))
			return []*spec.Stmt{Choose(0, RangeType(0, 2), nil, Assign(x, Mod(Add(x, y), Num(x.Type.Hi+1))))}
		}
		return []*spec.Stmt{Assign(pick(), Num(0)), Assign(x, Add(x, Num(1)))}
	}, 6, func(x *spec.Expr) *spec.Stmt { return Assert(Ne(x, pick()), "equal") })
	if r.IntN(2) == 0 {
		b.Invariant("inv", Ne(pick(), Num(int64(1+r.IntN(3)))))
	}
	if r.IntN(2) == 0 {
		b.M.Terminal = Eq(pick(), Num(0))
	}
	return b.Build()
}

func richModel(r *rand.Rand) *spec.Model {
	b := NewBuilder("rich")
	abc := EnumType("a", "b", "c")
	var ints []*spec.Expr
	for i := range 1 + r.IntN(3) {
		ints = append(ints, b.Global(fmt.Sprintf("v%d", i), RangeType(0, int64(1+r.IntN(4)))))
	}
	set := b.Global("s", SetType(abc))
	rec := b.Global("r", RecordType([]string{"f", "g"}, BoolType(), RangeType(0, 2)))
	anInt := func() *spec.Expr { return ints[r.IntN(len(ints))] }
	ag := b.Agent("ag", RecordType([]string{"ok", "e"}, BoolType(), abc), []*spec.Type{SetType(abc)},
		func(res *spec.Expr, ps []*spec.Expr) *spec.Expr {
			// an ok answer names an element of the parameter
			return Implies(Field(res, "ok"), &spec.Expr{Op: spec.OpIn, Type: BoolType(), Args: []*spec.Expr{Field(res, "e"), ps[0]}})
		})
	b.Local(0, RecordType([]string{"ok", "e"}, BoolType(), abc)) // ask result
	addActions(b, r, 2+r.IntN(4), anInt, 3, func(x *spec.Expr) []*spec.Stmt {
		switch r.IntN(6) {
		case 0:
			return []*spec.Stmt{Assign(x, Add(x, Num(1)))}
		case 1:
			y := b.Local(2, RangeType(0, 2))
			return []*spec.Stmt{Choose(2, abc, Ne(y, Num(int64(r.IntN(3)))),
				Assign(set, Bin(spec.OpUnion, set.Type, set, SetLit(set.Type, Const(abc, 0), y))))}
		case 2:
			res := &spec.Expr{Op: spec.OpLocal, Type: b.M.Agents[ag].Result, Slot: 0}
			return []*spec.Stmt{AskLet(0, ag, set),
				IfElse(Field(res, "ok"), []*spec.Stmt{Assign(Field(rec, "f"), True())}, []*spec.Stmt{Assign(Field(rec, "g"), Mod(Add(Field(rec, "g"), Num(1)), Num(3)))})}
		case 3:
			return []*spec.Stmt{Assign(x, Add(anInt(), Num(1)))}
		case 4:
			return []*spec.Stmt{IfElse(Field(rec, "f"), []*spec.Stmt{Assign(set, SetLit(set.Type))}, []*spec.Stmt{Assign(Field(rec, "f"), True()), Assign(x, Num(0))})}
		}
		return []*spec.Stmt{Assign(Field(rec, "g"), Add(Field(rec, "g"), Num(1)))}
	}, 8, func(*spec.Expr) *spec.Stmt { return Assert(Ne(Card(set), Num(3)), "full") })
	if r.IntN(2) == 0 {
		b.Invariant("Inv", Implies(Field(rec, "f"), Lt(Card(set), Num(int64(2+r.IntN(2))))))
	}
	if r.IntN(2) == 0 {
		b.M.Terminal = Eq(anInt(), Num(0))
	}
	return b.Build()
}
