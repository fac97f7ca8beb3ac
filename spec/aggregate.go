package spec

import (
	"math/bits"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// aggregate checks and lowers `sum|min|max x in D: e` (an extension).
// Like a for statement (forStmt), it is unrolled: the body is checked
// once with x a frame slot (its errors and names, once), then lowered
// quietly once per value of D with x a constant, and the copies are
// combined in a balanced tree of + (sum) or of lets comparing two values
// (min, max), whose height grows with log2 |D|. The IR has no new
// operator: every engine evaluates it exactly, as it does + and if.
// A sum over a set value adds the values of its element type that are
// in the set (an empty set sums to 0); min and max need a type, which is
// never empty.
func (c *checker) aggregate(e *syntax.QuantExpr, env *env) *Expr {
	env = env.flat()
	dom, set := c.domain(e.Domain, env)
	sc := newScope(env.scope)
	o := &object{kind: objBound, name: e.Var.Name, pos: e.Var.Pos, typ: dom, what: "bound variable", used: true}
	c.def(o, &e.Var, ObjQuant, e, nil)
	c.openScope(sc, e, e.Pos, exprEnd(e.Body))
	if !isInvalid(dom) {
		o.slot = c.alloc(max(1, dom.Width))
	}
	c.declare(sc, o)
	nerr := len(c.errs)
	body := c.expr(e.Body, env.with(sc), nil)
	if isInvalid(dom) || isInvalid(body.Type) || len(c.errs) > nerr {
		return c.bad(e.Pos)
	}
	if !isInt(body.Type) {
		c.errorf(e.Body.Position(), "non-integer body of %s: %s (type %s)", e.Kind, exprString(e.Body), typeString(body.Type))
		return c.bad(e.Pos)
	}
	var values []int64
	guard := false // a set value: each term counts when its value is in it
	switch {
	case set != nil && set.Op == OpConst:
		for m := uint64(set.Val); m != 0; m &= m - 1 {
			values = append(values, dom.Lo+int64(bits.TrailingZeros64(m)))
		}
	case set != nil && e.Kind != syntax.Sum:
		c.errorf(e.Domain.Position(), "%s cannot range over a set value, which may be empty: need bool, a range or an enum", e.Kind)
		return c.bad(e.Pos)
	case dom.Kind == SymmetricKind:
		c.errorf(e.Domain.Position(), "%s cannot range over %s: unrolled, it would name its values (use count)", e.Kind, typeString(dom))
		return c.bad(e.Pos)
	case dom.Kind == BoolKind:
		values = []int64{0, 1}
	case dom.Kind == RangeKind || dom.Kind == EnumKind:
		guard = set != nil
		if dom.Size() > int64(MaxForBodies-c.forBodies) {
			c.tooMany(e.Domain.Position())
			return c.bad(e.Pos)
		}
		for v := dom.Lo; v <= dom.Hi; v++ {
			values = append(values, v)
		}
	default:
		c.errorf(e.Domain.Position(), "%s cannot range over %s: need bool, a range or an enum", e.Kind, typeString(dom))
		return c.bad(e.Pos)
	}
	if len(values) > MaxForBodies-c.forBodies {
		c.tooMany(e.Domain.Position())
		return c.bad(e.Pos)
	}
	c.forBodies += len(values)
	if len(values) == 0 {
		if e.Kind != syntax.Sum {
			c.errorf(e.Domain.Position(), "%s over an empty domain %s", e.Kind, exprString(e))
			return c.bad(e.Pos)
		}
		x := c.constExpr(c.tInt, 0, e.Pos)
		c.instDep[x] = true
		return x
	}
	outer := c.quiet == 0
	c.quiet++
	terms := make([]*Expr, 0, len(values))
	for _, v := range values {
		sc := newScope(env.scope)
		c.openScope(sc, e, e.Pos, exprEnd(e.Body))
		o := &object{kind: objConstArg, name: e.Var.Name, pos: e.Var.Pos, typ: dom, val: v, dep: true, used: true}
		c.def(o, &e.Var, ObjQuant, e, nil)
		c.declare(sc, o)
		x := c.expr(e.Body, env.with(sc), nil)
		if isInvalid(x.Type) || c.forTooMany {
			break
		}
		if guard {
			k := c.constExpr(dom, v, e.Pos)
			c.instDep[k] = true
			in := c.inSet(k, set, e.Pos)
			x = c.fold(&Expr{Op: OpCond, Type: c.tInt, Args: []*Expr{in, x, c.constExpr(c.tInt, 0, e.Pos)}, Pos: e.Pos})
		}
		terms = append(terms, x)
	}
	c.quiet--
	if c.forTooMany {
		if outer {
			c.tooMany(e.Domain.Position())
		}
		return c.bad(e.Pos)
	}
	if len(terms) < len(values) {
		return c.bad(e.Pos) // a copy failed to check, which the check of the body reported
	}
	return c.combine(e.Kind, terms, e.Pos)
}

// tooMany reports the limit of unrolled bodies at pos, or leaves it to
// the outermost loop or aggregate when checking quietly.
func (c *checker) tooMany(pos Position) {
	if c.quiet > 0 {
		c.forTooMany = true
		return
	}
	c.forTooMany = false
	c.errorf(pos, "for loops and aggregates unroll to more than %d bodies", MaxForBodies)
}

// combine returns the sum, minimum or maximum of the integer terms, as a
// balanced tree.
func (c *checker) combine(k syntax.QuantKind, terms []*Expr, pos Position) *Expr {
	if len(terms) == 1 {
		return terms[0]
	}
	m := len(terms) / 2
	a, b := c.combine(k, terms[:m], pos), c.combine(k, terms[m:], pos)
	if k == syntax.Sum {
		return c.fold(&Expr{Op: OpAdd, Type: c.tInt, Args: []*Expr{a, b}, Pos: pos})
	}
	cmp := OpLe
	if k == syntax.Max {
		cmp = OpGe
	}
	if a.Op == OpConst && b.Op == OpConst {
		r := a.BigVal().Cmp(b.BigVal())
		if r <= 0 && cmp == OpLe || r >= 0 && cmp == OpGe {
			return a
		}
		return b
	}
	// let s = a, t = b in (if s <= t then s else t): each term once
	s, t := c.alloc(1), c.alloc(1)
	ls := &Expr{Op: OpLocal, Type: c.tInt, Slot: s, Pos: pos}
	lt := &Expr{Op: OpLocal, Type: c.tInt, Slot: t, Pos: pos}
	pick := &Expr{Op: OpCond, Type: c.tInt, Pos: pos, Args: []*Expr{
		{Op: cmp, Type: c.tBool, Args: []*Expr{ls, lt}, Pos: pos}, ls, lt}}
	return &Expr{Op: OpLet, Type: c.tInt, Binds: []int{s, t}, Args: []*Expr{a, b, pick}, Pos: pos}
}
