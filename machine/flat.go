package machine

import (
	"math"

	"github.com/wrapcheck/wrapcheck/spec"
)

// A disjunction or conjunction of comparisons of slots at static offsets
// with constants or with each other (and boolean slots), such as the
// guard
//
//	appr[d] != NONE and rel[d] == NONE and ver[d] != appr[d]
//
// of a process instance, is compiled to one closure that tests its atoms
// in a loop over a table, not to a tree of closures (an and of three
// comparisons was six calls, a != being an == and its negation). None of
// the atoms can fail or has an effect, so the order in which they are
// tested decides nothing: the value is the same, and there are no
// failures to report. A conjunction is the negation of the disjunction
// of its negated atoms (disjuncts).

// flatAtom is a range test: the atom holds when x, the slot at a (less
// the slot at b when pair), lies in [lo, lo+span] as unsigned offsets
// (uint64(x)-lo <= span), or outside it when neg.
type flatAtom struct {
	a, b     int
	lo, span uint64
	neg      bool
}

// flatOr compiles the disjunction of ts, or its negation when negate, to
// one closure, and reports false when some term
// is not a comparison of a slot at a static offset with a constant, or of
// two such slots (== and != of any scalars; <, <=, >, >= of ordered ones
// whose difference cannot overflow), or a boolean slot.
func flatOr(ts []term, negate bool, cx frameCtx) (evalFn, bool) {
	var consts, pairs []flatAtom
	for _, t := range ts {
		at, pair, ok := flatOf(t, cx)
		if !ok {
			return nil, false
		}
		if pair {
			pairs = append(pairs, at)
		} else {
			consts = append(consts, at)
		}
	}
	hit, miss := int64(1), int64(0)
	if negate {
		hit, miss = 0, 1
	}
	// The atoms against constants first, in a loop of one load each.
	return func(m *Machine) int64 {
		mem := m.mem
		for i := range consts {
			t := &consts[i]
			if (uint64(mem[t.a])-t.lo <= t.span) != t.neg {
				return hit
			}
		}
		for i := range pairs {
			t := &pairs[i]
			if (uint64(mem[t.a]-mem[t.b])-t.lo <= t.span) != t.neg {
				return hit
			}
		}
		return miss
	}, true
}

// flatOf returns the range test of term t, and whether it reads two
// slots; false when t is none of flatOr's atoms.
func flatOf(t term, cx frameCtx) (at flatAtom, pair, ok bool) {
	e := t.x
	switch e.Op {
	case spec.OpEq, spec.OpNe, spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe:
	default:
		// A boolean slot: x != 0.
		off, ok := flatSlot(e, cx)
		if !ok || e.Type.Kind != spec.BoolKind {
			return flatAtom{}, false, false
		}
		return flatAtom{a: off, lo: 0, span: 0, neg: !t.neg}, false, true
	}
	x, y, op := e.Args[0], e.Args[1], e.Op
	if x.Op == spec.OpConst {
		x, y, op = y, x, swapCmp(op)
	}
	a, ok := flatSlot(x, cx)
	if !ok {
		return flatAtom{}, false, false
	}
	var k int64
	if y.Op == spec.OpConst {
		if y.IsBig() {
			return flatAtom{}, false, false
		}
		k = y.Val
	} else {
		b, ok := flatSlot(y, cx)
		if !ok {
			return flatAtom{}, false, false
		}
		// x - y: equality survives a wrap; an order needs no overflow.
		if op != spec.OpEq && op != spec.OpNe && !(smallOrdered(x.Type) && smallOrdered(y.Type)) {
			return flatAtom{}, false, false
		}
		at.b, pair = b, true
	}
	// x op k as x in [l, h] (or not in it for !=).
	l, h, neg := k, k, false
	switch op {
	case spec.OpNe:
		neg = true
	case spec.OpLt:
		if k == math.MinInt64 {
			return flatAtom{}, false, false
		}
		l, h = math.MinInt64, k-1
	case spec.OpLe:
		l = math.MinInt64
	case spec.OpGt:
		if k == math.MaxInt64 {
			return flatAtom{}, false, false
		}
		l, h = k+1, math.MaxInt64
	case spec.OpGe:
		h = math.MaxInt64
	}
	at.a, at.lo, at.span, at.neg = a, uint64(l), uint64(h)-uint64(l), neg != t.neg
	return at, pair, true
}

// flatSlot returns the offset of e, a scalar (not a big one) at a static
// offset.
func flatSlot(e *spec.Expr, cx frameCtx) (int, bool) {
	if e.Type == nil || !isScalar(e.Type) || e.IsBig() {
		return 0, false
	}
	return staticOff(e, cx)
}

// smallOrdered reports whether values of t are ordered integers within
// ±2^61, so that the difference of two never overflows.
func smallOrdered(t *spec.Type) bool {
	switch t.Kind {
	case spec.RangeKind, spec.BoolKind, spec.EnumKind, spec.SymmetricKind:
		return t.Lo >= -1<<61 && t.Hi <= 1<<61
	}
	return false
}

// swapCmp returns the comparison op with its operands swapped: k < x is
// x > k.
func swapCmp(op spec.Op) spec.Op {
	switch op {
	case spec.OpLt:
		return spec.OpGt
	case spec.OpLe:
		return spec.OpGe
	case spec.OpGt:
		return spec.OpLt
	case spec.OpGe:
		return spec.OpLe
	}
	return op
}

// flatBool compiles e, an and, or, implies or not of at least two atoms
// of flatOr, to one closure; false when it is not one.
func (c *compiler) flatBool(e *spec.Expr, cx frameCtx) (evalFn, bool) {
	// (scalar, the caller, compiled e exactly if it needed that.)
	for _, negate := range []bool{false, true} {
		// e = or(ts), or e = not or(ts) with ts the disjuncts of not e.
		budget := maxFlatNodes
		ts, ok := disjuncts(nil, e, negate, cx, &budget)
		if ok && len(ts) >= 2 {
			return flatOr(ts, negate, cx)
		}
	}
	return nil, false
}

// maxFlatNodes bounds the nodes flatBool visits: it is asked at every
// and, or, implies and not of an expression, so that a chain of n of
// them that is not flat at its top costs n·maxFlatNodes steps to compile,
// not n² (a larger flat chain is flat in parts of this size).
const maxFlatNodes = 128

// maxFlatUnrolled bounds the nodes of an unrolled quantifier's instances
// that flatUnrolled visits (it is asked once a quantifier).
const maxFlatUnrolled = 1 << 14

// flatUnrolled compiles the forall or exists (op) over the unrolled
// instances inst (at least two, none constant) to one flatOr closure
// when it is one: exists_i x_i is the disjunction of the instances'
// disjuncts, forall_i x_i the negation of the disjunction of their
// negations'.
func (c *compiler) flatUnrolled(op spec.Op, inst []*spec.Expr, cx frameCtx) (evalFn, bool) {
	if len(inst) < 2 || (op != spec.OpForall && op != spec.OpExists) {
		return nil, false
	}
	negate := op == spec.OpForall
	var ts []term
	budget := maxFlatUnrolled
	for _, x := range inst {
		if c.wide(x, cx) {
			return nil, false
		}
		var ok bool
		if ts, ok = disjuncts(ts, x, negate, cx, &budget); !ok {
			return nil, false
		}
	}
	return flatOr(ts, negate, cx)
}
