package gen

import (
	"math"
	"math/rand/v2"

	"github.com/wrapcheck/wrapcheck/spec"
)

// GenerateIRExpr builds a random scalar expression of the IR, of the kind
// k (spec.BoolKind, or else an integer) and nesting depth at most depth,
// drawing from r, for the tests of the IR algorithms (spec.Fold,
// spec.Substitute). The same *rand.Rand state gives the same expression.
//
// The expression reads the frame slots 0 and 1 (integers) and 2 (a bool),
// and binds the slots from 3 up with lets and quantifiers over 0..3, each
// slot once, as the front end allocates them; it reads no state. Its
// constants are those of [IRConstant], so that folding meets the int64
// bounds, division by zero and overflow.
func GenerateIRExpr(r *rand.Rand, k spec.Kind, depth int) *spec.Expr {
	g := &irGen{r: r, next: 3, ints: []int{0, 1}, dom: RangeType(0, 3)}
	if k == spec.BoolKind {
		return g.boolExpr(depth)
	}
	return g.intExpr(depth)
}

// IRConstant returns an integer drawn from r among the constants of
// [GenerateIRExpr]: 0, 1, 2, 3, -1, -7, 1<<40 and the int64 bounds.
func IRConstant(r *rand.Rand) int64 {
	consts := [...]int64{0, 1, 2, 3, -1, -7, 1 << 40, math.MaxInt64, math.MinInt64}
	return consts[r.IntN(len(consts))]
}

// irGen is the state of one [GenerateIRExpr].
type irGen struct {
	r    *rand.Rand
	next int   // next free frame slot
	ints []int // the integer locals in scope
	dom  *spec.Type
}

func (g *irGen) op(op spec.Op, t *spec.Type, args ...*spec.Expr) *spec.Expr {
	return &spec.Expr{Op: op, Type: t, Args: args}
}

// quant returns the quantifier op binding slot over g.dom.
func (g *irGen) quant(op spec.Op, slot int, body *spec.Expr) *spec.Expr {
	t := BoolType()
	if op == spec.OpCount {
		t = IntType()
	}
	return &spec.Expr{Op: op, Type: t, Slot: slot, Dom: g.dom, Args: []*spec.Expr{body}}
}

// set returns a constant set of 0..3 drawn from r.
func (g *irGen) set() *spec.Expr { return Const(SetType(g.dom), g.r.Int64N(16)) }

func (g *irGen) intExpr(d int) *spec.Expr {
	r := g.r
	if d <= 0 || r.IntN(4) == 0 {
		if r.IntN(2) == 0 {
			return Const(IntType(), IRConstant(r))
		}
		return &spec.Expr{Op: spec.OpLocal, Type: IntType(), Slot: g.ints[r.IntN(len(g.ints))]}
	}
	switch r.IntN(10) {
	case 0:
		return g.op(spec.OpNeg, IntType(), g.intExpr(d-1))
	case 1:
		return g.op(spec.OpCond, IntType(), g.boolExpr(d-1), g.intExpr(d-1), g.intExpr(d-1))
	case 2:
		s := g.next
		g.next++
		return g.quant(spec.OpCount, s, g.boolExpr(d-1))
	case 3:
		s := g.next
		g.next++
		v := g.intExpr(d - 1)
		g.ints = append(g.ints, s)
		body := g.intExpr(d - 1)
		g.ints = g.ints[:len(g.ints)-1]
		return &spec.Expr{Op: spec.OpLet, Type: body.Type, Binds: []int{s}, Args: []*spec.Expr{v, body}}
	case 4:
		return g.op(spec.OpCard, IntType(), g.set())
	}
	ops := [...]spec.Op{spec.OpAdd, spec.OpSub, spec.OpMul, spec.OpDiv, spec.OpMod, spec.OpEMod,
		spec.OpBitAnd, spec.OpBitOr, spec.OpBitXor, spec.OpShl, spec.OpShr}
	return g.op(ops[r.IntN(len(ops))], IntType(), g.intExpr(d-1), g.intExpr(d-1))
}

func (g *irGen) boolExpr(d int) *spec.Expr {
	r := g.r
	if d <= 0 || r.IntN(5) == 0 {
		if r.IntN(2) == 0 {
			return Const(BoolType(), r.Int64N(2))
		}
		return &spec.Expr{Op: spec.OpLocal, Type: BoolType(), Slot: 2}
	}
	switch r.IntN(8) {
	case 0:
		return g.op(spec.OpNot, BoolType(), g.boolExpr(d-1))
	case 1, 2:
		ops := [...]spec.Op{spec.OpAnd, spec.OpOr, spec.OpImplies}
		return g.op(ops[r.IntN(len(ops))], BoolType(), g.boolExpr(d-1), g.boolExpr(d-1))
	case 3:
		ops := [...]spec.Op{spec.OpForall, spec.OpExists}
		s := g.next
		g.next++
		g.ints = append(g.ints, s)
		body := g.boolExpr(d - 1)
		g.ints = g.ints[:len(g.ints)-1]
		return g.quant(ops[r.IntN(len(ops))], s, body)
	case 4:
		return g.op(spec.OpIn, BoolType(), g.intExpr(d-1), g.set())
	}
	ops := [...]spec.Op{spec.OpEq, spec.OpNe, spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe}
	return g.op(ops[r.IntN(len(ops))], BoolType(), g.intExpr(d-1), g.intExpr(d-1))
}
