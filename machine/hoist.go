package machine

import (
	"math"

	"github.com/wrapcheck/wrapcheck/spec"
)

// A forall unrolled into instances that are each a disjunction of terms
// that cannot fail (comparisons of constants, slots at static offsets
// and elements at indexes whose type lies within their array's; boolean
// slots), such as the instances of
//
//	forall q in Proc: p != q implies not (st[p] == CS and st[q] == CS)
//
// for a constant p, or p bound by a quantifier that does not unroll
// (each instance is p == q or st[p] != CS or st[q] != CS), is evaluated
// with the terms common to every instance taken out and tested once,
// first: forall_i (A or B_i) is A or forall_i B_i. Where no term can
// fail and none has an effect, the short-circuits of the instances
// decide nothing but the order of pure reads, so the value is the same,
// and so is every failure (there are none). Such a forall stays one
// invariant conjunct (conjunctExprs): the mutual exclusion of the filter
// lock over N processes is N conjuncts, each one test of st[p] != CS in
// most states, instead of N·(N−1).

// term is a disjunct of an instance: x, or not x when neg.
type term struct {
	x   *spec.Expr
	neg bool
}

// disjuncts appends the terms whose disjunction e is (not e when neg) to
// dst, and reports false when one of them may fail or is not a plain
// comparison or boolean slot, or when the walk would visit more than
// *budget nodes (it counts them down).
func disjuncts(dst []term, e *spec.Expr, neg bool, cx frameCtx, budget *int) ([]term, bool) {
	if *budget--; *budget < 0 {
		return nil, false
	}
	switch {
	case e.Op == spec.OpNot:
		return disjuncts(dst, e.Args[0], !neg, cx, budget)
	case e.Op == spec.OpOr && !neg, e.Op == spec.OpAnd && neg:
		// a or b; not (a and b) = not a or not b
		dst, ok := disjuncts(dst, e.Args[0], neg, cx, budget)
		if !ok {
			return nil, false
		}
		return disjuncts(dst, e.Args[1], neg, cx, budget)
	case e.Op == spec.OpImplies && !neg:
		// a implies b = not a or b
		dst, ok := disjuncts(dst, e.Args[0], true, cx, budget)
		if !ok {
			return nil, false
		}
		return disjuncts(dst, e.Args[1], false, cx, budget)
	}
	if !safeTerm(e, cx) {
		return nil, false
	}
	return append(dst, term{e, neg}), true
}

// safeTerm reports whether e is a boolean that cannot fail: a constant,
// a slot, or a comparison of two scalars each a constant or a slot (as
// safeOperand takes them).
func safeTerm(e *spec.Expr, cx frameCtx) bool {
	switch e.Op {
	case spec.OpEq, spec.OpNe, spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe:
		return safeOperand(e.Args[0], cx) && safeOperand(e.Args[1], cx)
	}
	return safeOperand(e, cx)
}

// safeOperand reports whether e is a scalar constant (not a big one), a
// scalar slot at a static offset, or an element a[i] of an array at a
// static offset whose index i is such a slot of a type within the
// array's indexes (a value of a type is always in it: the read cannot
// fail).
func safeOperand(e *spec.Expr, cx frameCtx) bool {
	if !isScalar(e.Type) || e.IsBig() {
		return false
	}
	if e.Op == spec.OpConst {
		return true
	}
	if _, ok := staticOff(e, cx); ok {
		return true
	}
	if e.Op != spec.OpIndex {
		return false
	}
	at, ix := e.Args[0].Type, e.Args[1]
	if at == nil || at.Index == nil || ix.Type == nil || !ix.Type.IsFinite() || ix.Op == spec.OpConst {
		return false
	}
	if ix.Type.Lo < at.Index.Lo || ix.Type.Hi > at.Index.Hi {
		return false
	}
	_, base := staticOff(e.Args[0], cx)
	_, index := staticOff(ix, cx)
	return base && index && isScalar(ix.Type)
}

// sameTerm reports whether a and b are the same term: the same negation,
// the same operator over the same constants and slots.
func sameTerm(a, b term, cx frameCtx) bool {
	if a.neg != b.neg || a.x.Op != b.x.Op {
		return false
	}
	switch a.x.Op {
	case spec.OpEq, spec.OpNe, spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe:
		return sameOperand(a.x.Args[0], b.x.Args[0], cx) && sameOperand(a.x.Args[1], b.x.Args[1], cx)
	}
	return sameOperand(a.x, b.x, cx)
}

// sameOperand reports whether the safe operands a and b are the same
// constant or the same slot.
func sameOperand(a, b *spec.Expr, cx frameCtx) bool {
	if a.Op == spec.OpConst || b.Op == spec.OpConst {
		return a.Op == b.Op && a.Val == b.Val
	}
	if a.Op == spec.OpIndex || b.Op == spec.OpIndex {
		if a.Op != b.Op {
			return false
		}
		if _, ok := staticOff(a, cx); ok { // a constant index, folded
			y, ok := staticOff(b, cx)
			x, _ := staticOff(a, cx)
			return ok && x == y
		}
		if _, ok := staticOff(b, cx); ok {
			return false
		}
		x, _ := staticOff(a.Args[0], cx)
		y, _ := staticOff(b.Args[0], cx)
		return x == y && sameOperand(a.Args[1], b.Args[1], cx)
	}
	x, _ := staticOff(a, cx)
	y, _ := staticOff(b, cx)
	return x == y
}

// hoistable reports whether the forall over the instances inst (the
// constant ones included) is compiled as above.
func hoistable(inst []*spec.Expr, cx frameCtx) bool {
	var live []*spec.Expr
	for _, x := range inst {
		if x.Op == spec.OpConst {
			if x.Val == 0 {
				return false
			}
			continue
		}
		live = append(live, x)
	}
	_, common := commonTerms(live, cx)
	return len(common) > 0
}

// commonTerms returns the terms of each instance and those common to
// all, or none when an instance is not a disjunction of safe terms or
// there are fewer than two instances.
func commonTerms(inst []*spec.Expr, cx frameCtx) (terms [][]term, common []term) {
	if len(inst) < 2 {
		return nil, nil
	}
	terms = make([][]term, len(inst))
	for i, x := range inst {
		budget := math.MaxInt // one walk an instance, at the forall's compilation
		ts, ok := disjuncts(nil, x, false, cx, &budget)
		if !ok {
			return nil, nil
		}
		terms[i] = ts
	}
	for _, t := range terms[0] {
		in := true
		for _, ts := range terms[1:] {
			if !hasTerm(ts, t, cx) {
				in = false
				break
			}
		}
		if in && !hasTerm(common, t, cx) {
			common = append(common, t)
		}
	}
	return terms, common
}

// hoistForall compiles the forall over the non-constant instances inst
// as above when they have a common term, and reports false when it does
// not apply.
func (c *compiler) hoistForall(inst []*spec.Expr, cx frameCtx) (evalFn, bool) {
	terms, common := commonTerms(inst, cx)
	if len(common) == 0 {
		return nil, false
	}
	a := c.termsOr(common, cx)
	rests := make([]evalFn, len(inst))
	for i, ts := range terms {
		var rest []term
		for _, t := range ts {
			if !hasTerm(common, t, cx) {
				rest = append(rest, t)
			}
		}
		rests[i] = c.termsOr(rest, cx)
	}
	all := allOf(rests)
	return func(m *Machine) int64 {
		if a(m) != 0 {
			return 1
		}
		return all(m)
	}, true
}

// hasTerm reports whether ts holds t.
func hasTerm(ts []term, t term, cx frameCtx) bool {
	for _, u := range ts {
		if sameTerm(u, t, cx) {
			return true
		}
	}
	return false
}

// termsOr compiles the disjunction of ts (false when there is none).
func (c *compiler) termsOr(ts []term, cx frameCtx) evalFn {
	if len(ts) >= 2 {
		if f, ok := flatOr(ts, false, cx); ok {
			return f
		}
	}
	fs := make([]evalFn, len(ts))
	for i, t := range ts {
		f := c.scalar(t.x, cx)
		if t.neg {
			g := f
			f = func(m *Machine) int64 { return b2i(g(m) == 0) }
		}
		fs[i] = f
	}
	return anyOf(fs)
}

// anyOf returns the disjunction of fs, evaluated in order until one is
// true (false when there is none).
func anyOf(fs []evalFn) evalFn {
	if len(fs) == 1 {
		return fs[0]
	}
	return func(m *Machine) int64 {
		for _, f := range fs {
			if f(m) != 0 {
				return 1
			}
		}
		return 0
	}
}

// allOf returns the conjunction of fs, evaluated in order until one is
// false (true when there is none).
func allOf(fs []evalFn) evalFn {
	if len(fs) == 1 {
		return fs[0]
	}
	return func(m *Machine) int64 {
		for _, f := range fs {
			if f(m) == 0 {
				return 0
			}
		}
		return 1
	}
}
