package spec

import (
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// domain resolves the domain of a quantifier or choose: a finite type, or
// a set-valued expression (then set is non-nil and dom its element type).
func (c *checker) domain(te syntax.TypeExpr, env *env) (dom *Type, set *Expr) {
	if et, ok := te.(*syntax.EnumType); ok {
		// `forall c in {red, green}`: the listed values, not a new enum
		lit := &syntax.SetLit{Pos: et.Pos}
		for i := range et.Members {
			// the members' own identifiers, so that their uses are recorded
			lit.Elems = append(lit.Elems, (*syntax.IdentExpr)(&et.Members[i]))
		}
		x := c.setLit(lit, env.flat(), nil)
		if isInvalid(x.Type) {
			return c.tInvalid, nil
		}
		return x.Type.Elem, x
	}
	if nt, ok := te.(*syntax.NamedType); ok {
		o := c.lookup(env.scope, nt.Ident())
		if o != nil && o.kind != objType {
			x := c.expr((*syntax.IdentExpr)(nt), env.flat(), nil)
			if isInvalid(x.Type) {
				return c.tInvalid, nil
			}
			if x.Type.Kind != SetKind {
				c.errorf(nt.Pos, "cannot range over %s (type %s): need a finite type or a set", nt.Name, typeString(x.Type))
				return c.tInvalid, nil
			}
			return x.Type.Elem, x
		}
	}
	t := c.resolveType(te, env)
	if isInvalid(t) {
		return t, nil
	}
	if !t.IsFinite() {
		switch t.Kind {
		case SetKind, ArrayKind, RecordKind:
			// every value of the type: subsets, arrays, records
			n, ok := DomainSize(t)
			if !ok {
				c.errorf(te.Position(), "cannot range over %s: its values are not enumerable", typeString(t))
				return c.tInvalid, nil
			}
			if n > MaxDomainValues {
				c.errorf(te.Position(), "cannot range over %s: it has more than %d values", typeString(t), MaxDomainValues)
				return c.tInvalid, nil
			}
			return t, nil
		}
		c.errorf(te.Position(), "cannot range over %s: need bool, a range, an enum, a symmetric type, a set, or a set, array or record type", typeString(t))
		return c.tInvalid, nil
	}
	return t, nil
}

// domainSize returns the number of values a quantifier or choose over
// dom ranges over.
func domainSize(dom *Type) int64 {
	if dom.IsFinite() {
		return dom.Size()
	}
	n, _ := DomainSize(dom)
	return n
}

func (c *checker) quant(e *syntax.QuantExpr, env *env) *Expr {
	if e.Kind.IsAggregate() {
		return c.aggregate(e, env)
	}
	if e.Kind == syntax.Count {
		env = env.flat()
	}
	dom, set := c.domain(e.Domain, env)
	sc := newScope(env.scope)
	o := &object{kind: objBound, name: e.Var.Name, pos: e.Var.Pos, typ: dom, what: "quantified variable", used: true}
	c.def(o, &e.Var, ObjQuant, e, nil)
	c.openScope(sc, e, e.Pos, exprEnd(e.Body))
	if !isInvalid(dom) {
		o.slot = c.alloc(max(1, dom.Width))
		if !dom.IsFinite() {
			// over a set, array or record type: a state expression (the
			// LTL translation expands only quantifiers over scalar types)
			env = env.flat()
		}
	}
	c.declare(sc, o)
	body := c.boolExpr(e.Body, env.with(sc), "body of "+e.Kind.String())
	if isInvalid(dom) || isInvalid(body.Type) {
		return c.bad(e.Pos)
	}
	if set != nil {
		in := c.inSet(&Expr{Op: OpLocal, Type: dom, Slot: o.slot, Pos: e.Pos}, set, e.Pos)
		op := OpAnd
		if e.Kind == syntax.Forall {
			op = OpImplies
		}
		body = &Expr{Op: op, Type: c.tBool, Args: []*Expr{in, body}, Pos: e.Pos}
	}
	op, t := OpForall, c.tBool
	switch e.Kind {
	case syntax.Exists:
		op = OpExists
	case syntax.Count:
		op, t = OpCount, c.tInt
	}
	if size := domainSize(dom); size <= 0 || body.Op == OpConst {
		// an empty domain (0..i-1 in instance 0), or a constant body
		v := int64(0)
		switch {
		case size <= 0:
			v = boolInt(op == OpForall)
		case op == OpCount:
			v = body.Val * size
		default:
			v = body.Val
		}
		x := c.constExpr(t, v, e.Pos)
		c.instDep[x] = true
		return x
	}
	return &Expr{Op: op, Type: t, Args: []*Expr{body}, Slot: o.slot, Dom: dom, Pos: e.Pos}
}
