package machine

import (
	"math"
	"math/big"

	"github.com/wrapcheck/wrapcheck/spec"
)

// Quantifiers over small domains are unrolled at compile time: the body
// is copied once per value with the bound local replaced by a constant
// and folded, so that indexes such as run[x].rel[i] become static slot
// loads. Measured on pipeline K=3,N=2 (4 invariants, two nested
// quantifiers each): see BenchmarkBFS and docs in doc.go.

const (
	maxUnroll     = 64   // largest domain unrolled
	maxUnrollSize = 4096 // largest unrolled expression, in nodes
)

// expandedSize is the number of nodes of e once its quantifiers are
// unrolled. Unrolling copies at most maxUnrollSize nodes, so it adds at
// most that many levels to the bounded height of e.
func expandedSize(e *spec.Expr) int {
	n := 1
	for _, a := range e.Args {
		n += expandedSize(a)
		if n > maxUnrollSize {
			return n
		}
	}
	switch e.Op {
	case spec.OpForall, spec.OpExists, spec.OpCount:
		if e.Dom != nil {
			k, _ := spec.DomainSize(e.Dom)
			n *= int(min(k, maxUnroll+1))
		} else {
			n *= 2
		}
	}
	return n
}

// substitute returns a copy of e with the scalar local slot replaced by
// the constant v, folded; ok is false when e rebinds slot (the body then
// is compiled as a loop).
func substitute(e *spec.Expr, slot int, v int64) (out *spec.Expr, ok bool) {
	if e == nil {
		return nil, true
	}
	switch e.Op {
	case spec.OpLocal:
		if e.Slot == slot && isScalar(e.Type) {
			return &spec.Expr{Op: spec.OpConst, Type: e.Type, Val: v, Pos: e.Pos}, true
		}
		if e.Slot <= slot && slot < e.Slot+width(e.Type) {
			return nil, false // a compound local covering the slot
		}
		return e, true
	case spec.OpForall, spec.OpExists, spec.OpCount:
		if e.Slot == slot {
			return nil, false
		}
	case spec.OpLet:
		for _, b := range e.Binds {
			if b == slot {
				return nil, false
			}
		}
	}
	if len(e.Args) == 0 {
		return e, true
	}
	x := *e
	x.Args = make([]*spec.Expr, len(e.Args))
	for i, a := range e.Args {
		s, ok := substitute(a, slot, v)
		if !ok {
			return nil, false
		}
		x.Args[i] = s
	}
	if x.Op == spec.OpLet {
		if b, ok := letConst(&x); ok {
			return b, true
		}
	}
	return fold(&x), true
}

// fold evaluates e when its operands are constants (never a failing
// operation: division by zero is left to run time).
func fold(e *spec.Expr) *spec.Expr {
	k := func(i int) (int64, bool) {
		if i < len(e.Args) && e.Args[i].Op == spec.OpConst && e.Args[i].Big == nil && isScalar(e.Args[i].Type) {
			return e.Args[i].Val, true
		}
		return 0, false
	}
	c := func(v int64) *spec.Expr { return &spec.Expr{Op: spec.OpConst, Type: e.Type, Val: v, Pos: e.Pos} }
	a, aok := k(0)
	b, bok := k(1)
	switch e.Op {
	case spec.OpNot:
		if aok {
			return c(1 - b2i(a != 0))
		}
	case spec.OpNeg:
		if aok && a != math.MinInt64 {
			return c(-a)
		}
	case spec.OpAnd:
		if aok {
			if a == 0 {
				return c(0)
			}
			return e.Args[1]
		}
	case spec.OpOr:
		if aok {
			if a != 0 {
				return c(1)
			}
			return e.Args[1]
		}
	case spec.OpImplies:
		if aok {
			if a == 0 {
				return c(1)
			}
			return e.Args[1]
		}
	case spec.OpCond:
		if aok {
			if a != 0 {
				return e.Args[1]
			}
			return e.Args[2]
		}
	}
	if !aok || !bok {
		return e
	}
	switch e.Op {
	case spec.OpEq:
		return c(b2i(a == b))
	case spec.OpNe:
		return c(b2i(a != b))
	case spec.OpLt:
		return c(b2i(a < b))
	case spec.OpLe:
		return c(b2i(a <= b))
	case spec.OpGt:
		return c(b2i(a > b))
	case spec.OpGe:
		return c(b2i(a >= b))
	case spec.OpAdd, spec.OpSub, spec.OpMul, spec.OpDiv, spec.OpMod:
		// Integers are exact: a result past int64 is left to the
		// compiler, which evaluates it exactly (see exact.go).
		if r, ok := spec.EvalBig(e.Op, big.NewInt(a), big.NewInt(b)); ok && r.IsInt64() {
			return c(r.Int64())
		}
	case spec.OpUnion:
		return c(a | b)
	case spec.OpIntersect:
		return c(a & b)
	case spec.OpMinus:
		return c(a &^ b)
	case spec.OpSubset:
		return c(b2i(a&^b == 0))
	}
	return e
}

// unroll returns the instances of a quantifier's body, one per domain
// value, or nil when it cannot be unrolled.
func unroll(e *spec.Expr) []*spec.Expr {
	lo, hi := int64(0), int64(1)
	if e.Dom != nil {
		if !e.Dom.IsFinite() {
			return nil // a set, array or record type: a loop
		}
		lo, hi = e.Dom.Lo, e.Dom.Hi
	}
	if hi-lo+1 > maxUnroll || hi < lo || (hi-lo+1)*int64(expandedSize(e.Args[0])) > maxUnrollSize {
		return nil
	}
	var out []*spec.Expr
	for v := lo; v <= hi; v++ {
		s, ok := substitute(e.Args[0], e.Slot, v)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// simplify returns e with constant subexpressions folded and the lets
// that bind constants (inlined fn calls with constant arguments, e.g.
// right(p) in a family instance) substituted. e is not modified. It recurses over e, whose height the front end bounds (see package
// spec, "Depth").
func simplify(e *spec.Expr) *spec.Expr {
	if e == nil || len(e.Args) == 0 {
		return e
	}
	x := *e
	x.Args = make([]*spec.Expr, len(e.Args))
	changed := false
	for i, a := range e.Args {
		x.Args[i] = simplify(a)
		changed = changed || x.Args[i] != a
	}
	if x.Op == spec.OpLet {
		if b, ok := letConst(&x); ok {
			return b
		}
	}
	if !changed {
		x.Args = e.Args
	}
	f := fold(&x)
	if f == &x && !changed {
		return e
	}
	return f
}

// letConst substitutes the constant scalar bindings of a let into its
// body.
func letConst(e *spec.Expr) (*spec.Expr, bool) {
	n := len(e.Args) - 1
	body := e.Args[n]
	for i := 0; i < n; i++ {
		a := e.Args[i]
		if a.Op != spec.OpConst || a.Big != nil || !isScalar(a.Type) {
			return nil, false
		}
	}
	for i := 0; i < n; i++ {
		b, ok := substitute(body, e.Binds[i], e.Args[i].Val)
		if !ok {
			return nil, false
		}
		body = b
	}
	return simplify(body), true
}

// simplifyStmts returns copies of stmts with simplified expressions.
func simplifyStmts(stmts []*spec.Stmt) []*spec.Stmt {
	if stmts == nil {
		return nil
	}
	out := make([]*spec.Stmt, len(stmts))
	for i, s := range stmts {
		x := *s
		x.Target = simplify(s.Target)
		x.Value = simplify(s.Value)
		x.Cond = simplify(s.Cond)
		if s.Args != nil {
			x.Args = make([]*spec.Expr, len(s.Args))
			for j, a := range s.Args {
				x.Args[j] = simplify(a)
			}
		}
		x.Body = simplifyStmts(s.Body)
		x.Else = simplifyStmts(s.Else)
		if s.Cases != nil {
			x.Cases = make([]*spec.Case, len(s.Cases))
			for j, c := range s.Cases {
				x.Cases[j] = &spec.Case{Values: c.Values, Body: simplifyStmts(c.Body)}
			}
		}
		out[i] = &x
	}
	return out
}
