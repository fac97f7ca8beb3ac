package spec

import (
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// Array literals and comprehensions (extensions). Both lower to
// OpRecordLit over the array type: one value per element, in index
// order, which is the array's layout. A comprehension is unrolled as a
// for statement is (forStmt): its body is checked once with the
// variable a frame slot, then once per index value with it a constant.

// arrayLit checks `[e1, e2, ...]`, whose array type comes from its
// context (want).
func (c *checker) arrayLit(e *syntax.ArrayLit, env *env, want *Type) *Expr {
	env = env.flat()
	if isSeq(want) {
		return c.seqLit(e, env, want)
	}
	if want == nil || want.Kind != ArrayKind {
		for _, x := range e.Elems {
			c.expr(x, env, nil)
		}
		if want == nil {
			c.errorf(e.Pos, "cannot infer the type of array literal %s: use it where an array type is expected", exprString(e))
		} else if !isInvalid(want) {
			c.errorf(e.Pos, "cannot use array literal %s as %s value", exprString(e), typeString(want))
		}
		return c.bad(e.Pos)
	}
	n := want.Index.Size()
	vals := make([]*Expr, 0, len(e.Elems))
	bad := false
	for _, x := range e.Elems {
		v := c.expr(x, env, want.Elem)
		if !c.assignable(v, want.Elem, x, "array literal") {
			bad = true
		}
		vals = append(vals, v)
	}
	if bad {
		return c.bad(e.Pos)
	}
	if int64(len(e.Elems)) != n {
		c.errorf(e.Pos, "array literal of type %s has %d elements, want %d", typeString(want), len(e.Elems), n)
		return c.bad(e.Pos)
	}
	if want.Index.Kind == SymmetricKind && !startsState(env) && !sameConsts(vals) {
		c.errorf(e.Pos, "array literal %s tells the identities of symmetric type %s apart: only a start value or init may (symmetry reduction needs the rest of a spec to treat them alike); give every element the same value", exprString(e), typeString(want.Index))
		return c.bad(e.Pos)
	}
	return &Expr{Op: OpRecordLit, Type: want, Args: vals, Pos: e.Pos}
}

// startsState reports whether env checks what only builds the initial
// states (a start value, init) or is only shown (a watch, eval's
// expression): there a value may tell the identities of a symmetric type
// apart, since the initial states need not be symmetric (docs/language.md,
// Symmetry) and a watch is no check. Everywhere else (actions, guards,
// fns, assumes, invariants, properties) the transition relation and the
// checks must be invariant under every permutation of the identities.
func startsState(env *env) bool {
	return env.kind == uState && (env.where == "init" || env.where == "watch" || strings.HasPrefix(env.where, "initial value of "))
}

// sameConsts reports whether vals are constants of one value: a literal
// that gives every identity the same value is symmetric.
func sameConsts(vals []*Expr) bool {
	for _, v := range vals {
		if v.Op != OpConst || v.Big != nil || !v.Type.IsScalar() && v.Type.Kind != SetKind || v.Val != vals[0].Val {
			return false
		}
	}
	return true
}

// arrayComp checks `[x in τ: e]`: an array indexed by τ (bool, a range
// or an enum), whose element type is the context's (want) or else e's
// when that is finite.
func (c *checker) arrayComp(e *syntax.ArrayComp, env *env, want *Type) *Expr {
	env = env.flat()
	dom, set := c.domain(e.Domain, env)
	sc := newScope(env.scope)
	o := &object{kind: objBound, name: e.Var.Name, pos: e.Var.Pos, typ: dom, what: "bound variable", used: true}
	c.def(o, &e.Var, ObjQuant, e, nil)
	c.openScope(sc, e, e.Pos, e.End)
	if !isInvalid(dom) {
		o.slot = c.alloc(max(1, dom.Width))
	}
	c.declare(sc, o)
	var elemWant *Type
	if want != nil && want.Kind == ArrayKind {
		elemWant = want.Elem
	}
	nerr := len(c.errs)
	body := c.expr(e.Body, env.with(sc), elemWant)
	if isInvalid(dom) || isInvalid(body.Type) || len(c.errs) > nerr {
		return c.bad(e.Pos)
	}
	switch {
	case set != nil:
		c.errorf(e.Domain.Position(), "an array comprehension cannot range over a set value: need bool, a range or an enum")
		return c.bad(e.Pos)
	case dom.Kind == SymmetricKind:
		c.errorf(e.Domain.Position(), "an array comprehension cannot range over %s: unrolled, it would name its values", typeString(dom))
		return c.bad(e.Pos)
	case dom.Kind != BoolKind && dom.Kind != RangeKind && dom.Kind != EnumKind:
		c.errorf(e.Domain.Position(), "an array comprehension cannot range over %s: need bool, a range or an enum", typeString(dom))
		return c.bad(e.Pos)
	}
	t := &Type{Kind: ArrayKind, Index: dom, Elem: elemWant}
	if want != nil && want.Kind == ArrayKind {
		if !identical(want.Index, dom) {
			c.errorf(e.Pos, "cannot use array comprehension %s (index type %s) as %s value", exprString(e), typeString(dom), typeString(want))
			return c.bad(e.Pos)
		}
		t = want
	} else {
		if body.Type.Kind == IntKind {
			c.errorf(e.Pos, "cannot infer the element type of array comprehension %s (its body is of type %s): use it where an array type is expected", exprString(e), typeString(body.Type))
			return c.bad(e.Pos)
		}
		t.Elem = body.Type
		t.Width = int(dom.Size()) * max(1, body.Type.Width)
	}
	if !c.assignable(body, t.Elem, e.Body, "array comprehension") {
		return c.bad(e.Pos)
	}
	values := make([]int64, 0, dom.Size())
	if dom.Kind == BoolKind {
		values = append(values, 0, 1)
	} else {
		for v := dom.Lo; v <= dom.Hi; v++ {
			values = append(values, v)
		}
	}
	if len(values) > MaxForBodies-c.forBodies {
		c.tooMany(e.Domain.Position())
		return c.bad(e.Pos)
	}
	c.forBodies += len(values)
	outer := c.quiet == 0
	c.quiet++
	vals := make([]*Expr, 0, len(values))
	for _, v := range values {
		sc := newScope(env.scope)
		c.openScope(sc, e, e.Pos, e.End)
		o := &object{kind: objConstArg, name: e.Var.Name, pos: e.Var.Pos, typ: dom, val: v, dep: true, used: true}
		c.def(o, &e.Var, ObjQuant, e, nil)
		c.declare(sc, o)
		x := c.expr(e.Body, env.with(sc), t.Elem)
		if isInvalid(x.Type) || c.forTooMany {
			break
		}
		vals = append(vals, x)
	}
	c.quiet--
	if c.forTooMany {
		if outer {
			c.tooMany(e.Domain.Position())
		}
		return c.bad(e.Pos)
	}
	if len(vals) < len(values) {
		return c.bad(e.Pos)
	}
	return &Expr{Op: OpRecordLit, Type: t, Args: vals, Pos: e.Pos}
}
