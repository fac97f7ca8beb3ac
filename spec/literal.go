package spec

import (
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func (c *checker) setLit(e *syntax.SetLit, env *env, want *Type) *Expr {
	env = env.flat()
	var elem *Type
	if want != nil && want.Kind == SetKind {
		elem = want.Elem
	}
	elems := make([]*Expr, len(e.Elems))
	bad := false
	for i, el := range e.Elems {
		elems[i] = c.expr(el, env, elem)
		if isInvalid(elems[i].Type) {
			bad = true
		}
	}
	if bad {
		return c.bad(e.Pos)
	}
	if elem == nil {
		elem = c.inferElem(e, elems)
		if elem == nil {
			return c.bad(e.Pos)
		}
	}
	st := &Type{Kind: SetKind, Elem: elem, Width: 1}
	if want != nil && want.Kind == SetKind {
		st = want
	}
	mask := int64(0)
	allConst := true
	for i, x := range elems {
		if !c.assignable(x, elem, e.Elems[i], "set literal") {
			bad = true
			continue
		}
		if x.Op == OpConst {
			if x.Val < elem.Lo || x.Val > elem.Hi {
				allConst = false // instance-dependent: checked at runtime
				continue
			}
			mask |= 1 << (x.Val - elem.Lo)
		} else {
			allConst = false
		}
	}
	if bad {
		return c.bad(e.Pos)
	}
	if allConst {
		return c.constExpr(st, mask, e.Pos)
	}
	return &Expr{Op: OpSetLit, Type: st, Args: elems, Pos: e.Pos}
}

// inferElem infers the element type of a set literal without context.
func (c *checker) inferElem(e *syntax.SetLit, elems []*Expr) *Type {
	if len(elems) == 0 {
		c.errorf(e.Pos, "cannot infer the type of the empty set literal {}: use it where a set type is expected")
		return nil
	}
	first := elems[0].Type
	if !isInt(first) {
		for i, x := range elems[1:] {
			if !identical(x.Type, first) {
				c.errorf(e.Elems[i+1].Position(), "mismatched types %s and %s in set literal", typeString(first), typeString(x.Type))
				return nil
			}
		}
		if !first.IsFinite() {
			c.errorf(e.Pos, "invalid set element type %s: must be bool, a range, an enum or a symmetric type", typeString(first))
			return nil
		}
		return first
	}
	lo, hi := int64(1<<62), int64(-1<<62)
	for i, x := range elems {
		switch {
		case !isInt(x.Type):
			c.errorf(e.Elems[i].Position(), "mismatched types %s and %s in set literal", typeString(first), typeString(x.Type))
			return nil
		case x.Big != nil:
			c.errorf(e.Elems[i].Position(), "set element %s (constant %s) does not fit a 64-bit integer", exprString(e.Elems[i]), IntString(x.Big))
			return nil
		case x.Op == OpConst:
			lo, hi = min(lo, x.Val), max(hi, x.Val)
		case x.Type.Kind == RangeKind:
			lo, hi = min(lo, x.Type.Lo), max(hi, x.Type.Hi)
		default:
			c.errorf(e.Pos, "cannot infer the element type of set literal %s: use it where a set type is expected", exprString(e))
			return nil
		}
	}
	if hi-lo+1 > 64 || hi-lo+1 <= 0 {
		c.errorf(e.Pos, "set literal %s spans %d..%d: a set may have at most 64 values", exprString(e), lo, hi)
		return nil
	}
	return &Type{Kind: RangeKind, Lo: lo, Hi: hi, Width: 1}
}

func (c *checker) recordLit(e *syntax.RecordLit, env *env, want *Type) *Expr {
	env = env.flat()
	if want == nil || want.Kind != RecordKind {
		for _, f := range e.Fields {
			c.expr(f.Value, env, nil)
		}
		if want == nil || isInvalid(want) {
			if want == nil {
				c.errorf(e.Pos, "cannot infer the type of record literal %s: use it where a record type is expected", exprString(e))
			}
			return c.bad(e.Pos)
		}
		c.errorf(e.Pos, "cannot use record literal %s as %s value", exprString(e), typeString(want))
		return c.bad(e.Pos)
	}
	vals := make([]*Expr, len(want.Fields))
	given := map[string]Position{}
	bad := false
	for _, fi := range e.Fields {
		f := want.FieldByName(fi.Name.Name)
		c.useField(&fi.Name, f)
		if f == nil {
			c.expr(fi.Value, env, nil)
			names := make([]string, len(want.Fields))
			for i, f := range want.Fields {
				names[i] = f.Name
			}
			c.errorf(fi.Name.Pos, "unknown field %s in record literal of type %s%s", fi.Name.Name, typeString(want), didYouMean(nearest(fi.Name.Name, names)))
			bad = true
			continue
		}
		if prev, ok := given[f.Name]; ok {
			c.expr(fi.Value, env, nil)
			c.errorNotes(fi.Name.Pos, []syntax.Note{note(prev, "first value of %s", f.Name)}, "duplicate field %s in record literal", f.Name)
			bad = true
			continue
		}
		given[f.Name] = fi.Name.Pos
		x := c.expr(fi.Value, env, f.Type)
		if !c.assignable(x, f.Type, fi.Value, "field "+f.Name+" of record literal") {
			bad = true
			continue
		}
		for i, g := range want.Fields {
			if g == f {
				vals[i] = x
			}
		}
	}
	if bad {
		return c.bad(e.Pos)
	}
	var missing []string
	for i, f := range want.Fields {
		if vals[i] == nil {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		s := "field"
		if len(missing) > 1 {
			s = "fields"
		}
		c.errorf(e.Pos, "missing %s %s in record literal of type %s", s, strings.Join(missing, ", "), typeString(want))
		return c.bad(e.Pos)
	}
	return &Expr{Op: OpRecordLit, Type: want, Args: vals, Pos: e.Pos}
}
