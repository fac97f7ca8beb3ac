package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// maxWidth bounds the number of slots of one value, so that a huge array
// type is an error instead of an out-of-memory crash.
const maxWidth = 1 << 20

// maxRange bounds the values of a range type, so that sizes and
// intermediate arithmetic on bounds cannot overflow.
const maxRange = 1 << 60

// typeString prints t as the front end's messages do: [TypeString] with
// named types by name.
func typeString(t *Type) string { return TypeString(t, 0) }

// TypeString prints t as a spec writes it. A named type that lies expand
// or more levels deep is written by its name, the others are written out:
// expand 0 gives a named t's name, 1 its definition with the types inside
// by name (the values `type Version = 0..MAXV` stands for: 0..3), and a
// negative expand writes out every level. A symmetric type written out
// at a level below expand lists its identities (symmetric 2 {P1, P2}).
// Every package that prints a type calls it.
func TypeString(t *Type, expand int) string {
	if t == nil {
		return "invalid type"
	}
	if t.Name != "" && expand == 0 {
		return t.Name
	}
	inner := expand - 1
	if expand <= 0 {
		inner = expand
	}
	switch t.Kind {
	case BoolKind:
		return "bool"
	case IntKind:
		return "int"
	case RangeKind:
		return fmt.Sprintf("%d..%d", t.Lo, t.Hi)
	case EnumKind:
		return "{" + strings.Join(t.Names, ", ") + "}"
	case SymmetricKind:
		s := "symmetric " + strconv.FormatInt(t.Size(), 10)
		if expand != 0 {
			s += " {" + strings.Join(t.Names, ", ") + "}"
		}
		return s
	case ArrayKind:
		return "[" + TypeString(t.Index, inner) + "]" + TypeString(t.Elem, inner)
	case RecordKind:
		if t.Chan {
			return "chan[" + strconv.FormatInt(chanCap(t), 10) + "] of " + TypeString(chanElem(t), inner)
		}
		if t.Seq {
			return "seq[" + strconv.FormatInt(t.Fields[1].Type.Index.Size(), 10) + "] of " + TypeString(t.Fields[1].Type.Elem, inner)
		}
		var b strings.Builder
		b.WriteString("record { ")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name + ": " + TypeString(f.Type, inner))
		}
		b.WriteString(" }")
		return b.String()
	case SetKind:
		return "set of " + TypeString(t.Elem, inner)
	}
	return "invalid type"
}

func isInt(t *Type) bool { return t.Kind == IntKind || t.Kind == RangeKind }

func isInvalid(t *Type) bool { return t == nil || t.Kind == InvalidKind }

// identical reports whether a and b are the same type. Enum and symmetric
// types are identical only to themselves; integer types are identical when
// both are unbounded or have the same bounds; composite types structurally.
func identical(a, b *Type) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case BoolKind, IntKind:
		return true
	case RangeKind:
		return a.Lo == b.Lo && a.Hi == b.Hi
	case ArrayKind:
		return identical(a.Index, b.Index) && identical(a.Elem, b.Elem)
	case SetKind:
		return identical(a.Elem, b.Elem)
	case RecordKind:
		if len(a.Fields) != len(b.Fields) || a.Seq != b.Seq || a.Chan != b.Chan || a.Chan && !identical(chanElem(a), chanElem(b)) {
			return false
		}
		for i, f := range a.Fields {
			g := b.Fields[i]
			if f.Name != g.Name || !identical(f.Type, g.Type) {
				return false
			}
		}
		return true
	}
	return false
}

// assignableTo reports whether a value of type v may be stored in a
// location of type t: integers mix (a stored value's range is checked at
// runtime), also inside arrays and records; everything else must be
// identical (a set's bitmask depends on its element type's bounds).
func assignableTo(v, t *Type) bool {
	if v == nil || t == nil {
		return false
	}
	if isInt(v) && isInt(t) {
		return true
	}
	if v.Kind != t.Kind {
		return false
	}
	switch t.Kind {
	case ArrayKind:
		return identical(v.Index, t.Index) && assignableTo(v.Elem, t.Elem)
	case RecordKind:
		if len(v.Fields) != len(t.Fields) || v.Seq != t.Seq || v.Chan != t.Chan || v.Chan && !identical(chanElem(v), chanElem(t)) {
			return false
		}
		for i, f := range t.Fields {
			if v.Fields[i].Name != f.Name || !assignableTo(v.Fields[i].Type, f.Type) {
				return false
			}
		}
		return true
	}
	return identical(v, t)
}

// comparable reports whether values of a and b may be compared with ==.
func comparable(a, b *Type) bool { return assignableTo(a, b) }

// constInt evaluates e as an integer constant expression.
func (c *checker) constInt(e syntax.Expr, env *env, what string) (int64, bool) {
	x := c.expr(e, env.constEnv(), nil)
	if isInvalid(x.Type) {
		return 0, false
	}
	c.lastDep = c.instDep[x]
	if x.Op != OpConst || !isInt(x.Type) {
		if x.Op == OpConst {
			c.errorf(e.Position(), "%s must be an integer, not %s (type %s)", what, exprString(e), typeString(x.Type))
		} else {
			c.errorf(e.Position(), "%s must be a constant: %s is not constant", what, exprString(e))
		}
		return 0, false
	}
	if x.Big != nil {
		// Values are int64 in the engine: a bound must be one.
		c.errorf(e.Position(), "%s %s = %s does not fit a 64-bit integer (%d..%d)", what, exprString(e), IntString(x.Big), int64(math.MinInt64), int64(math.MaxInt64))
		return 0, false
	}
	return x.Val, true
}

// resolveType resolves a type expression; it returns c.tInvalid after
// reporting an error.
func (c *checker) resolveType(te syntax.TypeExpr, env *env) *Type {
	switch t := te.(type) {
	case *syntax.NamedType:
		o := c.lookup(c.global, t.Ident())
		if o == nil {
			c.errorf(t.Pos, "undefined: %s%s", t.Name, didYouMean(c.suggestKind(t.Name, objType)))
			return c.tInvalid
		}
		if c.dupNames[t.Name] {
			return c.tInvalid
		}
		if o.kind != objType {
			c.errorNotes(t.Pos, []syntax.Note{note(o.pos, "%s declared here", o.name)}, "%s is not a type", t.Name)
			return c.tInvalid
		}
		o.used = true
		return c.typeOfDecl(o)
	case *syntax.BoolType:
		return c.tBool
	case *syntax.RangeType:
		lo, ok1 := c.constInt(t.Lo, env, "range bound")
		dep := c.lastDep
		hi, ok2 := c.constInt(t.Hi, env, "range bound")
		dep = dep || c.lastDep
		if !ok1 || !ok2 {
			return c.tInvalid
		}
		if lo > hi && dep && lo > -maxRange && lo < maxRange {
			// a domain like 0..i-1 in a family instance may be empty
			return &Type{Kind: RangeKind, Lo: lo, Hi: lo - 1, Width: 1}
		}
		if lo > hi {
			c.errorf(t.Pos, "empty range %d..%d", lo, hi)
			return c.tInvalid
		}
		if lo < -maxRange || hi > maxRange {
			c.errorf(t.Pos, "range %d..%d is too large: bounds must lie within -%d..%d", lo, hi, int64(maxRange), int64(maxRange))
			return c.tInvalid
		}
		return &Type{Kind: RangeKind, Lo: lo, Hi: hi, Width: 1}
	case *syntax.EnumType:
		et := c.enums[t]
		if et == nil {
			c.errorf(t.Pos, "an enumeration may be declared only in a declaration's type")
			return c.tInvalid
		}
		if len(t.Members) == 0 {
			return c.tInvalid
		}
		return et
	case *syntax.SymmetricType:
		if st, ok := c.syms[t]; ok {
			return st
		}
		c.syms[t] = c.tInvalid // a cycle through N resolves to invalid
		n, ok := c.constInt(t.N, env, "size of symmetric type")
		if !ok {
			return c.tInvalid
		}
		if n < 1 {
			c.errorf(t.N.Position(), "symmetric type must have at least 1 identity, not %d", n)
			return c.tInvalid
		}
		if n > 64 {
			c.errorf(t.N.Position(), "symmetric type has %d identities; at most 64 are allowed", n)
			return c.tInvalid
		}
		st := &Type{Kind: SymmetricKind, Lo: 0, Hi: n - 1, Width: 1}
		setSymNames(st, "Id")
		c.syms[t] = st
		return st
	case *syntax.ArrayType:
		idx := c.resolveType(t.Index, env)
		elem := c.resolveType(t.Elem, env)
		if isInvalid(idx) || isInvalid(elem) {
			return c.tInvalid
		}
		if !idx.IsFinite() {
			c.errorf(t.Index.Position(), "invalid array index type %s: must be bool, a range, an enum or a symmetric type", typeString(idx))
			return c.tInvalid
		}
		w := idx.Size() * int64(elem.Width)
		if idx.Size() > maxWidth || w > maxWidth {
			c.errorf(t.Pos, "array type %s is too large (%d slots)", typeString(&Type{Kind: ArrayKind, Index: idx, Elem: elem}), w)
			return c.tInvalid
		}
		return &Type{Kind: ArrayKind, Index: idx, Elem: elem, Width: int(w)}
	case *syntax.RecordType:
		rt := &Type{Kind: RecordKind}
		seen := map[string]Position{}
		bad := false
		for _, f := range t.Fields {
			fo := c.defName(&f.Name, ObjField, f, t)
			ft := c.noChan(c.resolveType(f.Type, env), f.Type.Position(), "field "+f.Name.Name)
			if prev, ok := seen[f.Name.Name]; ok {
				c.errorNotes(f.Name.Pos, []syntax.Note{note(prev, "%s declared here", f.Name.Name)}, "duplicate field %s in record type", f.Name.Name)
				bad = true
				continue
			}
			seen[f.Name.Name] = f.Name.Pos
			if isInvalid(ft) {
				bad = true
				continue
			}
			fd := &Field{Name: f.Name.Name, Type: ft, Offset: rt.Width}
			c.defField(fo, fd)
			rt.Fields = append(rt.Fields, fd)
			rt.Width += ft.Width
			if rt.Width > maxWidth {
				c.errorf(t.Pos, "record type is too large")
				return c.tInvalid
			}
		}
		if bad {
			return c.tInvalid
		}
		if len(rt.Fields) == 0 {
			c.errorf(t.Pos, "record type has no fields")
			return c.tInvalid
		}
		return rt
	case *syntax.SeqType:
		return c.seqType(t, env)
	case *syntax.SetType:
		elem := c.resolveType(t.Elem, env)
		if isInvalid(elem) {
			return c.tInvalid
		}
		if !elem.IsFinite() {
			c.errorf(t.Elem.Position(), "invalid set element type %s: must be bool, a range, an enum or a symmetric type", typeString(elem))
			return c.tInvalid
		}
		if elem.Size() > 64 {
			c.errorf(t.Pos, "set of %s is too large: %s has %d values, a set may have at most 64", typeString(elem), typeString(elem), elem.Size())
			return c.tInvalid
		}
		return &Type{Kind: SetKind, Elem: elem, Width: 1}
	}
	if te == nil {
		c.errorf(Position{Filename: c.file.Filename}, "missing type")
	} else {
		c.errorf(te.Position(), "unexpected type")
	}
	return c.tInvalid
}

func setSymNames(t *Type, base string) {
	t.Names = t.Names[:0]
	for i := int64(0); i < t.Size(); i++ {
		t.Names = append(t.Names, base+strconv.FormatInt(i+1, 10))
	}
}

// typeOfDecl resolves a type declaration, once.
func (c *checker) typeOfDecl(o *object) *Type {
	switch o.state {
	case 2:
		return o.typ
	case 1:
		c.errorNotes(o.pos, nil, "invalid recursive type %s", o.name)
		o.typ = c.tInvalid
		return c.tInvalid
	}
	o.state = 1
	t := c.resolveType(o.tdecl.Type, c.globalEnv())
	if o.state == 2 { // a cycle was reported and resolved meanwhile
		return o.typ
	}
	if !isInvalid(t) {
		switch t.Kind {
		case EnumKind:
			if t.Name == "" {
				t.Name = o.name
			}
		case SymmetricKind:
			if t.Name == "" {
				t.Name = o.name
				setSymNames(t, o.name)
			}
		case BoolKind, IntKind:
		default:
			if t.Name == "" {
				cp := *t
				cp.Name = o.name
				t = &cp
			}
		}
	}
	o.typ = t
	o.state = 2
	return t
}

// flatten appends the scalar slot descriptions of a value of type t.
func flatten(t *Type, v int, out []Slot) []Slot {
	switch t.Kind {
	case ArrayKind:
		for i := int64(0); i < t.Index.Size(); i++ {
			out = flatten(t.Elem, v, out)
		}
		return out
	case RecordKind:
		for _, f := range t.Fields {
			out = flatten(f.Type, v, out)
		}
		return out
	case SetKind:
		return append(out, Slot{Var: v, Bits: int(t.Elem.Size()), Set: true, Type: t})
	}
	s := Slot{Var: v, Lo: t.Lo, Hi: t.Hi, Type: t}
	s.Bits = bitsFor(t.Hi - t.Lo + 1)
	return append(out, s)
}

// bitsFor returns ceil(log2(n)) (0 for n <= 1).
func bitsFor(n int64) int {
	b := 0
	for int64(1)<<b < n && b < 63 {
		b++
	}
	return b
}
