package spec

import (
	"math/bits"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// MaxForBodies is the most copies of bodies that the for statements and
// the aggregates (sum, min, max) of a spec may unroll to, all together
// (nested ones multiply).
const MaxForBodies = 1 << 16

// forStmt checks and lowers `for x in D { body }` (an extension). The
// loop is unrolled: the body is lowered once per value of D, in order,
// with x a constant, so the IR has no loop and every engine (the
// machine, its generated code, the interval analysis, the read and
// write sets of partial-order reduction) sees plain statements whose
// indexes are constants. The body is first checked once with x a frame
// slot of D's type, as an fn body is: that reports its errors once and
// records its names; the unrolled copies are checked quietly, their
// range checks left to run time (as an inlined fn's), since the body
// was checked for every value of D.
func (c *checker) forStmt(s *syntax.ForStmt, env *env, out []*Stmt) []*Stmt {
	dom, set := c.domain(s.Domain, env)
	sc := newScope(env.scope)
	o := &object{kind: objBound, name: s.Var.Name, pos: s.Var.Pos, typ: dom, what: "loop variable", used: true}
	c.def(o, &s.Var, ObjQuant, s, nil)
	c.openScope(sc, s, s.Pos, s.Body.End)
	o.slot = c.alloc(max(1, dom.Width))
	c.declare(sc, o)
	nerr := len(c.errs)
	c.block(s.Body, env.with(sc))
	if isInvalid(dom) || len(c.errs) > nerr {
		return out
	}
	values, ok := c.forValues(s, dom, set)
	if !ok {
		if c.forTooMany && c.quiet == 0 {
			c.tooMany(s.Domain.Position())
		}
		return out
	}
	// The outermost loop reports the limit that a loop nested in it,
	// unrolled quietly, passed.
	outer, start := c.quiet == 0, len(out)
	c.quiet++
	for _, v := range values {
		sc := newScope(env.scope)
		c.openScope(sc, s, s.Pos, s.Body.End)
		o := &object{kind: objConstArg, name: s.Var.Name, pos: s.Var.Pos, typ: dom, val: v, dep: true, used: true}
		c.def(o, &s.Var, ObjQuant, s, nil)
		c.declare(sc, o)
		out = append(out, c.block(s.Body, env.with(sc))...)
		if c.forTooMany {
			break
		}
	}
	c.quiet--
	if outer && c.forTooMany {
		c.tooMany(s.Domain.Position())
		return out[:start]
	}
	return out
}

// forValues returns the values a for statement over dom (or over the
// constant set of an enumeration literal, set) runs its body for, in
// order, and counts them against MaxForBodies.
func (c *checker) forValues(s *syntax.ForStmt, dom *Type, set *Expr) ([]int64, bool) {
	var values []int64
	switch {
	case set != nil:
		if set.Op != OpConst {
			c.errorf(s.Domain.Position(), "for cannot range over a set value: need bool, a range, an enum or a list of its members")
			return nil, false
		}
		for m := uint64(set.Val); m != 0; m &= m - 1 {
			values = append(values, dom.Lo+int64(bits.TrailingZeros64(m)))
		}
	case dom.Kind == SymmetricKind:
		c.errorf(s.Domain.Position(), "for cannot range over %s: a symmetric type has no order to run in (use forall, count or choose)", typeString(dom))
		return nil, false
	case dom.Kind == BoolKind:
		values = []int64{0, 1}
	case dom.Kind == RangeKind || dom.Kind == EnumKind:
		if dom.Size() > int64(MaxForBodies-c.forBodies) {
			c.forTooMany = true
			return nil, false
		}
		for v := dom.Lo; v <= dom.Hi; v++ {
			values = append(values, v)
		}
	default:
		c.errorf(s.Domain.Position(), "for cannot range over %s: need bool, a range or an enum", typeString(dom))
		return nil, false
	}
	if len(values) > MaxForBodies-c.forBodies {
		c.forTooMany = true
		return nil, false
	}
	c.forBodies += len(values)
	return values, true
}
