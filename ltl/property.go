package ltl

import (
	"context"
	"fmt"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
)

// FromProperty converts the formula of p to a [Formula]. Every maximal
// non-temporal subexpression becomes an atomic proposition: atom i is the
// state predicate atoms[i] (structurally equal subexpressions share one
// atom). A quantifier whose body is temporal is expanded into a finite
// conjunction (forall) or disjunction (exists) by substituting each value
// of its domain for the bound local. The error reports a temporal operand
// in a position where LTL has no meaning (for example an arithmetic one).
func FromProperty(p *spec.Property) (*Formula, []*spec.Expr, error) {
	return fromProperty(p, newBudget(context.Background(), 0))
}

// fromProperty is [FromProperty] under lim: a quantifier expansion stops
// with lim's error (the context's, or [ErrMemoryBudget]) once it is
// spent.
func fromProperty(p *spec.Property, lim *budget) (*Formula, []*spec.Expr, error) {
	c := &converter{index: map[string]int{}, lim: lim}
	f, err := c.convert(p.Formula)
	if err != nil {
		return nil, nil, fmt.Errorf("property %s: %w", p.Name, err)
	}
	return f, c.atoms, nil
}

type converter struct {
	atoms []*spec.Expr
	index map[string]int
	lim   *budget
}

// isTemporal reports whether e contains a temporal operator.
func isTemporal(e *spec.Expr) bool {
	return spec.Contains(e, func(x *spec.Expr) bool { return x.Op.IsTemporal() })
}

func (c *converter) atom(e *spec.Expr) *Formula {
	if v, ok := constBool(e); ok {
		if v {
			return True()
		}
		return False()
	}
	k := exprKey(e)
	i, ok := c.index[k]
	if !ok {
		i = len(c.atoms)
		c.index[k] = i
		c.atoms = append(c.atoms, e)
	}
	return Atom(i)
}

// convert recurses over e, whose height the front end bounds (see package
// spec, "Depth"); a quantifier becomes one n-ary And or Or, so the
// formula is no taller than e plus a few levels per node.
func (c *converter) convert(e *spec.Expr) (*Formula, error) {
	if !isTemporal(e) {
		return c.atom(e), nil
	}
	args := make([]*Formula, 0, len(e.Args))
	conv := func() error {
		for _, a := range e.Args {
			f, err := c.convert(a)
			if err != nil {
				return err
			}
			args = append(args, f)
		}
		return nil
	}
	switch e.Op {
	case spec.OpForall, spec.OpExists:
		if e.Dom == nil || !e.Dom.IsFinite() || len(e.Args) != 1 {
			return nil, fmt.Errorf("%s: quantifier over a non-finite domain", e.Pos)
		}
		for v := e.Dom.Lo; v <= e.Dom.Hi; v++ {
			if c.lim.tick() {
				return nil, c.lim.err
			}
			body, ok := spec.Substitute(e.Args[0], e.Slot, &spec.Expr{Op: spec.OpConst, Type: e.Dom, Val: v, Pos: e.Pos})
			if !ok {
				return nil, fmt.Errorf("%s: quantified variable read as part of a compound value", e.Pos)
			}
			f, err := c.convert(body)
			if err != nil {
				return nil, err
			}
			args = append(args, f)
		}
		if e.Op == spec.OpForall {
			return And(args...), nil
		}
		return Or(args...), nil
	}
	if err := conv(); err != nil {
		return nil, err
	}
	switch e.Op {
	case spec.OpNot:
		return Not(args[0]), nil
	case spec.OpAnd:
		return And(args...), nil
	case spec.OpOr:
		return Or(args...), nil
	case spec.OpImplies:
		return Implies(args[0], args[1]), nil
	case spec.OpEq:
		if e.Args[0].Type.Kind == spec.BoolKind {
			return Equiv(args[0], args[1]), nil
		}
	case spec.OpNe:
		if e.Args[0].Type.Kind == spec.BoolKind {
			return Not(Equiv(args[0], args[1])), nil
		}
	case spec.OpCond:
		return Or(And(args[0], args[1]), And(Not(args[0]), args[2])), nil
	case spec.OpAlways:
		return Always(args[0]), nil
	case spec.OpEventually:
		return Eventually(args[0]), nil
	case spec.OpNext:
		return Next(args[0]), nil
	case spec.OpUntil:
		return Until(args[0], args[1]), nil
	case spec.OpWeakUntil:
		return WeakUntil(args[0], args[1]), nil
	case spec.OpRelease:
		return Release(args[0], args[1]), nil
	case spec.OpLeadsTo:
		return LeadsTo(args[0], args[1]), nil
	}
	return nil, fmt.Errorf("%s: temporal formula used as an operand of %s", e.Pos, e.Op)
}

// exprKey returns a structural key of e (positions excluded).
func exprKey(e *spec.Expr) string {
	var b strings.Builder
	var walk func(e *spec.Expr)
	walk = func(e *spec.Expr) {
		if e == nil {
			b.WriteString("nil")
			return
		}
		fmt.Fprintf(&b, "(%d %d %d %p %p %v", e.Op, e.Val, e.Slot, e.Dom, e.Type, e.Binds)
		if e.Big != nil {
			fmt.Fprintf(&b, " big=%s", e.Big)
		}
		for _, a := range e.Args {
			b.WriteByte(' ')
			walk(a)
		}
		b.WriteByte(')')
	}
	walk(e)
	return b.String()
}

// constBool folds a constant boolean expression (one that reads no state
// and no local), as left by quantifier expansion (p == 0 with p := 0).
func constBool(e *spec.Expr) (bool, bool) {
	if e.Type == nil || e.Type.Kind != spec.BoolKind {
		return false, false
	}
	v, ok := constInt(e)
	return v != 0, ok
}

func constInt(e *spec.Expr) (int64, bool) {
	switch e.Op {
	case spec.OpConst:
		if e.Type != nil && !e.Type.IsScalar() || e.Big != nil {
			return 0, false
		}
		return e.Val, true
	case spec.OpNot:
		v, ok := constInt(e.Args[0])
		if !ok {
			return 0, false
		}
		return b2i(v == 0), true
	case spec.OpAnd, spec.OpOr, spec.OpImplies:
		l, ok := constInt(e.Args[0])
		if !ok {
			return 0, false
		}
		switch {
		case e.Op == spec.OpAnd && l == 0:
			return 0, true
		case e.Op == spec.OpOr && l != 0:
			return 1, true
		case e.Op == spec.OpImplies && l == 0:
			return 1, true
		}
		r, ok := constInt(e.Args[1])
		if !ok {
			return 0, false
		}
		return b2i(r != 0), true
	case spec.OpEq, spec.OpNe, spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe:
		if e.Args[0].Type == nil || !e.Args[0].Type.IsScalar() {
			return 0, false
		}
		l, ok1 := constInt(e.Args[0])
		r, ok2 := constInt(e.Args[1])
		if !ok1 || !ok2 {
			return 0, false
		}
		switch e.Op {
		case spec.OpEq:
			return b2i(l == r), true
		case spec.OpNe:
			return b2i(l != r), true
		case spec.OpLt:
			return b2i(l < r), true
		case spec.OpLe:
			return b2i(l <= r), true
		case spec.OpGt:
			return b2i(l > r), true
		}
		return b2i(l >= r), true
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
