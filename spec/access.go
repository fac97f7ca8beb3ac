package spec

import (
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func unparen(e syntax.Expr) syntax.Expr {
	for {
		p, ok := e.(*syntax.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func (c *checker) index(e *syntax.IndexExpr, env *env) *Expr {
	env = env.flat()
	if id, ok := unparen(e.X).(*syntax.IdentExpr); ok {
		if o := c.lookup(env.scope, id.Ident()); o != nil && o.kind == objProcess {
			c.errorf(e.Pos, "%s is a process, not a value: read its locals as %s.x", exprString(e), exprString(e))
			return c.bad(e.Pos)
		}
	}
	return c.indexInto(c.expr(e.X, env, nil), e, env)
}

// indexInto checks e.Index against the array x (e.X already checked, as a
// value or as an assignment target) and builds the element access.
func (c *checker) indexInto(x *Expr, e *syntax.IndexExpr, env *env) *Expr {
	if isInvalid(x.Type) {
		c.expr(e.Index, env, nil)
		return c.bad(e.Pos)
	}
	if isSeq(x.Type) {
		i := c.expr(e.Index, env, nil)
		if isInvalid(i.Type) {
			return c.bad(e.Pos)
		}
		if !isInt(i.Type) {
			c.errorf(e.Index.Position(), "cannot use %s (type %s) as int value in index of %s", exprString(e.Index), typeString(i.Type), exprString(e.X))
			return c.bad(e.Pos)
		}
		return c.seqIndex(x, i, e.Pos)
	}
	if x.Type.Kind != ArrayKind {
		c.expr(e.Index, env, nil)
		c.errorf(e.Pos, "invalid operation: cannot index %s (type %s)", exprString(e.X), typeString(x.Type))
		return c.bad(e.Pos)
	}
	i := c.expr(e.Index, env, x.Type.Index)
	if isInvalid(i.Type) {
		return c.bad(e.Pos)
	}
	if !assignableTo(i.Type, x.Type.Index) {
		c.errorf(e.Index.Position(), "cannot use %s (type %s) as %s value in index of %s", exprString(e.Index), typeString(i.Type), typeString(x.Type.Index), exprString(e.X))
		return c.bad(e.Pos)
	}
	return &Expr{Op: OpIndex, Type: x.Type.Elem, Args: []*Expr{x, i}, Pos: e.Pos}
}

func (c *checker) selector(e *syntax.SelectorExpr, env *env) *Expr {
	env = env.flat()
	// P.x and P[v].x
	switch x := unparen(e.X).(type) {
	case *syntax.IdentExpr:
		if o := c.lookup(env.scope, x.Ident()); o != nil && o.kind == objProcess {
			o.used = true
			return c.procLocal(e, o.proc, nil, env)
		} else if o != nil && o.kind == objType {
			return c.typeMember(e, x, env)
		}
	case *syntax.IndexExpr:
		if id, ok := unparen(x.X).(*syntax.IdentExpr); ok {
			if o := c.lookup(env.scope, id.Ident()); o != nil && o.kind == objProcess {
				o.used = true
				return c.procLocal(e, o.proc, x.Index, env)
			}
		}
	}
	x := c.expr(e.X, env, nil)
	if isInvalid(x.Type) {
		return x
	}
	if x.Type.Kind != RecordKind || x.Type.Seq {
		c.errorf(e.Field.Pos, "%s.%s undefined (type %s has no field %s)", exprString(e.X), e.Field.Name, typeString(x.Type), e.Field.Name)
		return c.bad(e.Pos)
	}
	f := x.Type.FieldByName(e.Field.Name)
	if f == nil {
		names := make([]string, len(x.Type.Fields))
		for i, f := range x.Type.Fields {
			names[i] = f.Name
		}
		c.errorf(e.Field.Pos, "%s.%s undefined (type %s has no field %s)%s", exprString(e.X), e.Field.Name, typeString(x.Type), e.Field.Name, didYouMean(nearest(e.Field.Name, names)))
		return c.bad(e.Pos)
	}
	c.useField(&e.Field, f)
	return &Expr{Op: OpField, Type: f.Type, Args: []*Expr{x}, Val: int64(f.Offset), Pos: e.Pos}
}

func nearest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// procLocal lowers P.x (idx nil) or P[idx].x.
func (c *checker) procLocal(e *syntax.SelectorExpr, p *procInfo, idx syntax.Expr, env *env) *Expr {
	o := p.scope.names[e.Field.Name]
	if o == nil || o.kind != objLocalVar {
		names := make([]string, len(p.locals))
		for i, l := range p.locals {
			names[i] = l.name
		}
		c.errorf(e.Field.Pos, "process %s has no variable %s%s", p.name, e.Field.Name, didYouMean(nearest(e.Field.Name, names)))
		c.resolveOnly(env, idx)
		return c.bad(e.Pos)
	}
	c.use(&e.Field, o)
	o.used = true
	if p.idxType == nil && idx != nil {
		c.errorf(e.Pos, "process %s is not a family: write %s.%s", p.name, p.name, e.Field.Name)
		c.resolveOnly(env, idx)
		return c.bad(e.Pos)
	}
	if p.idxType != nil && idx == nil {
		c.errorf(e.Pos, "%s is a family of processes: write %s[v].%s", p.name, p.name, e.Field.Name)
		return c.bad(e.Pos)
	}
	name := exprString(e)
	if !c.stateAccess(e.Pos, name, env) || isInvalid(o.typ) {
		if idx != nil {
			c.expr(idx, env, nil)
		}
		return c.bad(e.Pos)
	}
	if idx == nil {
		return &Expr{Op: OpVar, Type: o.typ, Slot: o.slot, Pos: e.Pos}
	}
	if isInvalid(p.idxType) {
		return c.bad(e.Pos)
	}
	v := c.expr(idx, env, p.idxType)
	if isInvalid(v.Type) {
		return c.bad(e.Pos)
	}
	if !assignableTo(v.Type, p.idxType) {
		c.errorf(idx.Position(), "cannot use %s (type %s) as %s value in index of process family %s", exprString(idx), typeString(v.Type), typeString(p.idxType), p.name)
		return c.bad(e.Pos)
	}
	if v.Op == OpConst && v.Val >= p.idxType.Lo && v.Val <= p.idxType.Hi {
		k := int(v.Val - p.idxType.Lo)
		return &Expr{Op: OpVar, Type: o.typ, Slot: o.slot + k*o.typ.Width, Pos: e.Pos}
	}
	if v.Op == OpConst && !c.instDep[v] {
		c.errorf(idx.Position(), "index %s out of range for process family %s (%s)", exprString(idx), p.name, typeString(p.idxType))
		return c.bad(e.Pos)
	}
	arr := &Type{Kind: ArrayKind, Index: p.idxType, Elem: o.typ, Width: p.n * o.typ.Width}
	base := &Expr{Op: OpVar, Type: arr, Slot: o.slot, Pos: e.Pos}
	return &Expr{Op: OpIndex, Type: o.typ, Args: []*Expr{base, v}, Pos: e.Pos}
}
