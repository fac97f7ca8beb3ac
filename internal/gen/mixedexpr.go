package gen

import (
	"fmt"
	"strings"
)

// name returns how to write v, filling in a family index.
func (g *mixer) name(v gvar, sc []gvar) string {
	if !strings.Contains(v.name, "%s") {
		return v.name
	}
	var fam gfam
	for _, f := range g.fams {
		if strings.HasPrefix(v.name, f.name+"[") {
			fam = f
		}
	}
	return fmt.Sprintf(v.name, g.index(fam.index, sc))
}

// index returns an expression of the finite type t, usually in range.
func (g *mixer) index(t *gtype, sc []gvar) string {
	if t.k != kInt {
		return g.value(t, sc, 1)
	}
	if g.chance(1, 8) {
		return g.risky(t, sc) // may be out of range: a runtime error
	}
	return g.inRange(t, sc)
}

// inRange returns a variable of a range type or a literal of t.
func (g *mixer) inRange(t *gtype, sc []gvar) string {
	var vs []gvar
	for _, v := range vars(sc, t, false) {
		if !v.int {
			vs = append(vs, v)
		}
	}
	if len(vs) > 0 && g.chance(1, 2) {
		return g.name(pick(g, vs), sc)
	}
	return g.lit(t)
}

func (g *mixer) lit(t *gtype) string {
	switch t.k {
	case kBool:
		return pick(g, []string{"true", "false"})
	case kInt:
		return fmt.Sprint(t.lo + g.r.Int64N(t.hi-t.lo+1))
	case kEnum:
		return pick(g, t.members)
	}
	panic("no literal")
}

// vars returns the variables of sc of a type like t.
func vars(sc []gvar, t *gtype, writable bool) []gvar {
	var out []gvar
	for _, v := range sc {
		if writable && !v.writable {
			continue
		}
		if same(v.t, t) {
			out = append(out, v)
		}
	}
	return out
}

func same(a, b *gtype) bool {
	if a.k != b.k {
		return false
	}
	switch a.k {
	case kInt, kBool:
		return true
	case kEnum, kSym, kRecord:
		return a.src == b.src
	case kSet:
		return same(a.elem, b.elem) && (a.elem.k != kInt || a.elem.lo == b.elem.lo && a.elem.hi == b.elem.hi)
	case kArray:
		return a.src == b.src
	}
	return false
}

// elements returns generators of the expressions of type t found inside
// compound variables of sc: array elements and record fields. They are
// built only when picked.
func (g *mixer) elements(sc []gvar, t *gtype) []func() string {
	var out []func() string
	// parts adds the components of type t of the value written by expr
	// (of type vt): elements and fields, two levels down at most.
	var parts func(expr func() string, vt *gtype, depth int)
	parts = func(expr func() string, vt *gtype, depth int) {
		if depth == 0 {
			return
		}
		switch vt.k {
		case kArray:
			el := func() string { return fmt.Sprintf("%s[%s]", expr(), g.index(vt.index, sc)) }
			if same(vt.elem, t) {
				out = append(out, el)
			}
			parts(el, vt.elem, depth-1)
		case kRecord:
			for _, f := range vt.fields {
				fe := func() string { return expr() + "." + f.name }
				if same(f.t, t) {
					out = append(out, fe)
				}
				parts(fe, f.t, depth-1)
			}
		}
	}
	for _, v := range sc {
		parts(func() string { return g.name(v, sc) }, v.t, 2)
	}
	return out
}

// typed returns generators of the expressions of sc of type t whose type
// needs no context: variables, array elements, record fields.
func (g *mixer) typed(sc []gvar, t *gtype) []func() string {
	var out []func() string
	for _, v := range vars(sc, t, false) {
		out = append(out, func() string { return g.name(v, sc) })
	}
	return append(out, g.elements(sc, t)...)
}

// risky returns a non-constant integer expression that may fall outside
// the range t (a runtime error when stored), or a literal of t.
func (g *mixer) risky(t *gtype, sc []gvar) string {
	var ints []gvar
	for _, v := range vars(sc, t, false) {
		if !strings.Contains(v.name, "%s") {
			ints = append(ints, v)
		}
	}
	if len(ints) == 0 {
		return g.lit(t)
	}
	return fmt.Sprintf("(%s + %d)", pick(g, ints).name, g.r.IntN(5)-2)
}

// arg returns an argument of type t for an fn or agent: for a range, a
// variable, a literal or a risky expression, never a constant out of it.
func (g *mixer) arg(t *gtype, sc []gvar, d int) string {
	if t.k != kInt {
		return g.value(t, sc, d)
	}
	if g.chance(1, 4) {
		return g.risky(t, sc)
	}
	if vs := vars(sc, t, false); len(vs) > 0 && g.chance(1, 2) {
		return g.name(pick(g, vs), sc)
	}
	return g.lit(t)
}

// value returns an expression of type t (for a range: an integer
// expression, which may lie outside it).
func (g *mixer) value(t *gtype, sc []gvar, d int) string {
	switch t.k {
	case kBool:
		return g.boolean(sc, d)
	case kInt:
		if g.chance(2, 3) {
			if vs := vars(sc, t, false); len(vs) > 0 && g.chance(1, 2) {
				return g.name(pick(g, vs), sc)
			}
			return g.lit(t)
		}
		return g.integer(sc, d)
	}
	opts := g.typed(sc, t)
	switch t.k {
	case kEnum:
		lit := func() string { return g.lit(t) }
		opts = append(opts, lit, lit)
		if t == g.color && d > 0 && !g.noCalls {
			opts = append(opts, func() string { return fmt.Sprintf("fc(%s)", g.value(g.color, sc, d-1)) })
		}
	case kSet:
		if len(opts) > 0 && d > 0 && g.chance(1, 2) {
			// the left operand gives a literal on the right its type
			op := pick(g, []string{"union", "minus", "intersect"})
			return fmt.Sprintf("(%s %s %s)", pick(g, opts)(), op, g.value(t, sc, d-1))
		}
		opts = append(opts, func() string { return g.setLit(t, sc, d) })
	case kRecord:
		if lit, ok := g.recordLit(t, sc); ok && (len(opts) == 0 || g.chance(1, 3)) {
			return lit
		}
	case kArray:
		// an array comprehension or literal (extensions); every value of
		// an array type is asked for where the context gives the type
		if ix := t.index; ix.k != kSym && (len(opts) == 0 || g.chance(1, 3)) {
			if g.chance(1, 2) {
				v := g.fresh("k")
				return fmt.Sprintf("[%s in %s: %s]", v, ix.src, g.value(t.elem, append(sc, gvar{name: v, t: ix}), max(d-1, 0)))
			}
			n := int(ix.hi - ix.lo + 1)
			if ix.k == kEnum {
				n = len(ix.members)
			}
			var el []string
			for range n {
				el = append(el, g.value(t.elem, sc, max(d-1, 0)))
			}
			return "[" + strings.Join(el, ", ") + "]"
		}
	}
	if d > 0 && t.k != kRecord && g.chance(1, 6) {
		return fmt.Sprintf("(if %s then %s else %s)", g.boolean(sc, d-1), g.value(t, sc, d-1), g.value(t, sc, d-1))
	}
	if len(opts) == 0 {
		panic(fmt.Sprintf("no value of type %s", t.src))
	}
	return pick(g, opts)()
}

// setType returns a set type to build a value of: a set of Small only
// when a variable of that type gives literals their type.
func (g *mixer) setType(sc []gvar) *gtype {
	ss := &gtype{k: kSet, src: "set of Small", elem: g.small}
	if len(g.typed(sc, ss)) > 0 && g.chance(1, 2) {
		return ss
	}
	return &gtype{k: kSet, src: "set of Color", elem: g.color}
}

// recordLit returns a record literal of type t, fields in a random
// order; ok is false when a field has no value to give (an array field
// with no array of its type in sc).
func (g *mixer) recordLit(t *gtype, sc []gvar) (string, bool) {
	var fs []string
	for _, f := range t.fields {
		var v string
		switch f.t.k {
		case kArray:
			ts := g.typed(sc, f.t)
			if len(ts) == 0 {
				return "", false
			}
			v = pick(g, ts)()
		case kInt:
			v = g.arg(f.t, sc, 0)
		case kRecord:
			var ok bool
			if v, ok = g.recordLit(f.t, sc); !ok {
				return "", false
			}
		default:
			v = g.value(f.t, sc, 0)
		}
		fs = append(fs, f.name+": "+v)
	}
	g.r.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	return "record { " + strings.Join(fs, ", ") + " }", true
}

// setLit returns a non-empty set literal of type t.
func (g *mixer) setLit(t *gtype, sc []gvar, d int) string {
	var el []string
	for range 1 + g.r.IntN(2) {
		switch {
		case t.elem.k == kInt && g.typedCtx && g.chance(1, 5):
			el = append(el, g.risky(t.elem, sc)) // may fall outside: a runtime error
		case t.elem.k == kInt:
			el = append(el, g.inRange(t.elem, sc))
		default:
			el = append(el, g.value(t.elem, sc, max(d-1, 0)))
		}
	}
	return "{" + strings.Join(el, ", ") + "}"
}

// domain returns a choose or quantifier domain with its element type.
func (g *mixer) domain(sc []gvar) (string, *gtype) {
	switch g.r.IntN(9) {
	case 6:
		// every subset of a type (issue 15)
		return "set of Color", &gtype{k: kSet, src: "set of Color", elem: g.color}
	case 7:
		// every array of a type: the functions from bool to Mode
		return "[bool]Mode", &gtype{k: kArray, src: "[bool]Mode", elem: g.mode, index: g.tBool}
	case 0:
		return "bool", g.tBool
	case 1:
		return "Color", g.color
	case 2:
		return "{red, blue}", g.color
	case 3:
		if vs := vars(sc, &gtype{k: kSet, elem: g.color}, false); len(vs) > 0 {
			if v := pick(g, vs); !strings.Contains(v.name, ".") {
				return v.name, g.color
			}
		}
		return "Mode", g.mode
	case 4:
		return "-1..1", &gtype{k: kInt, lo: -1, hi: 1}
	case 5:
		if g.id != nil {
			return "Id", g.id
		}
	}
	return "Small", g.small
}

func (g *mixer) integer(sc []gvar, d int) string {
	atoms := []func() string{
		func() string { return fmt.Sprint(g.r.IntN(9) - 3) },
		func() string { return pick(g, []string{"N", fmt.Sprint(g.r.IntN(9) - 3)}) },
	}
	for _, v := range sc {
		if v.t.k == kInt {
			f := func() string { return g.name(v, sc) }
			atoms = append(atoms, f, f) // state is more interesting than constants
		}
	}
	for _, e := range g.elements(sc, &gtype{k: kInt}) {
		atoms = append(atoms, e, e)
	}
	if d <= 0 || g.chance(1, 3) {
		return pick(g, atoms)()
	}
	switch g.r.IntN(10) {
	case 0:
		ctx := g.typedCtx
		g.typedCtx = false
		defer func() { g.typedCtx = ctx }()
		return fmt.Sprintf("card(%s)", g.value(g.setType(sc), sc, d-1))
	case 1:
		if g.chance(1, 2) {
			// an aggregate (an extension), unrolled by the front end
			agg := pick(g, []string{"sum", "min", "max"})
			t := pick(g, []*gtype{g.tBool, g.mode, {k: kInt, src: "0..2", lo: 0, hi: 2}})
			v := g.fresh("k")
			return fmt.Sprintf("(%s %s in %s: %s)", agg, v, t.src, g.integer(append(sc, gvar{name: v, t: t}), d-1))
		}
		dom, t := g.domain(sc)
		v := g.fresh("k")
		return fmt.Sprintf("(count %s in %s: %s)", v, dom, g.boolean(append(sc, gvar{name: v, t: t}), d-1))
	case 2:
		if !g.noCalls {
			return fmt.Sprintf("fi(%s, %s)", g.arg(g.small, sc, d-1), g.arg(g.wide, sc, d-1))
		}
		return g.integer(sc, d-1)
	case 3:
		return fmt.Sprintf("(-%s)", g.integer(sc, d-1))
	case 4:
		return fmt.Sprintf("(if %s then %s else %s)", g.boolean(sc, d-1), g.integer(sc, d-1), g.integer(sc, d-1))
	case 7:
		// bitwise operators (an extension): a negative operand is a
		// runtime error, so the operands are mostly reduced mod 8
		nonNeg := func() string {
			if g.chance(1, 4) {
				return g.integer(sc, d-1)
			}
			return fmt.Sprintf("(%s mod %d)", g.integer(sc, d-1), pick(g, []int{8, -5}))
		}
		op := pick(g, []string{"&", "|", "^", "<<", ">>"})
		if op == "<<" || op == ">>" {
			return fmt.Sprintf("(%s %s %s)", nonNeg(), op, pick(g, []string{"0", "1", "3", "63", nonNeg()}))
		}
		return fmt.Sprintf("(%s %s %s)", nonNeg(), op, nonNeg())
	case 5, 6:
		op := pick(g, []string{"/", "%", "mod"})
		div := fmt.Sprint(pick(g, []int{-3, -2, 2, 3}))
		if g.chance(1, 4) {
			div = g.integer(sc, d-1) // may be zero: a runtime error
		}
		return fmt.Sprintf("(%s %s %s)", g.integer(sc, d-1), op, div)
	}
	op := pick(g, []string{"+", "-", "*", "+", "-"})
	return fmt.Sprintf("(%s %s %s)", g.integer(sc, d-1), op, g.integer(sc, d-1))
}

func (g *mixer) boolean(sc []gvar, d int) string {
	if d <= 0 || g.chance(1, 4) {
		opts := g.typed(sc, g.tBool)
		opts = append(opts, func() string { return pick(g, []string{"true", "false"}) },
			func() string {
				return fmt.Sprintf("(%s %s %d)", g.integer(sc, 0), pick(g, []string{"<", "<=", "==", "!=", ">"}), g.r.IntN(5)-1)
			},
			func() string {
				t := pick(g, []*gtype{g.color, g.mode})
				if ts := g.typed(sc, t); len(ts) > 0 {
					return fmt.Sprintf("(%s %s %s)", pick(g, ts)(), pick(g, []string{"==", "!="}), g.lit(t))
				}
				return fmt.Sprintf("(%s < %s)", g.integer(sc, 0), g.integer(sc, 0))
			})
		return pick(g, opts)()
	}
	switch g.r.IntN(14) {
	case 0:
		return fmt.Sprintf("(not %s)", g.boolean(sc, d-1))
	case 1, 2:
		op := pick(g, []string{"and", "or", "implies"})
		return fmt.Sprintf("(%s %s %s)", g.boolean(sc, d-1), op, g.boolean(sc, d-1))
	case 3, 4:
		op := pick(g, []string{"<", "<=", ">", ">=", "==", "!="})
		return fmt.Sprintf("(%s %s %s)", g.integer(sc, d-1), op, g.integer(sc, d-1))
	case 5:
		t := pick(g, []*gtype{g.color, g.mode, g.rec, g.setType(sc)})
		if t == g.mode && len(vars(sc, t, false)) == 0 {
			t = g.color
		}
		if t == g.rec && len(vars(sc, t, false)) == 0 {
			t = g.color
		}
		op := pick(g, []string{"==", "!="})
		l := g.value(t, sc, d-1)
		if t.k == kRecord || t.k == kSet {
			if ts := g.typed(sc, t); len(ts) > 0 {
				l = pick(g, ts)() // a literal needs the other side's type
			}
		}
		return fmt.Sprintf("(%s %s %s)", l, op, g.value(t, sc, d-1))
	case 6:
		t := g.setType(sc)
		l := g.value(t, sc, d-1)
		if ts := g.typed(sc, t); len(ts) > 0 {
			l = pick(g, ts)()
		}
		if g.chance(1, 2) {
			return fmt.Sprintf("(%s in %s)", g.value(t.elem, sc, d-1), l)
		}
		return fmt.Sprintf("(%s subset %s)", l, g.value(t, sc, d-1))
	case 7:
		q := pick(g, []string{"forall", "exists"})
		dom, t := g.domain(sc)
		v := g.fresh("k")
		return fmt.Sprintf("(%s %s in %s: %s)", q, v, dom, g.boolean(append(sc, gvar{name: v, t: t}), d-1))
	case 8:
		if g.noCalls {
			return g.boolean(sc, d-1)
		}
		if ts := g.typed(sc, g.rec); len(ts) > 0 && g.chance(1, 2) {
			return fmt.Sprintf("fr(%s, %s)", pick(g, ts)(), g.arg(g.small, sc, d-1))
		}
		return fmt.Sprintf("fb(%s, %s)", g.value(&gtype{k: kSet, src: "set of Color", elem: g.color}, sc, d-1), g.value(g.color, sc, d-1))
	case 9:
		return fmt.Sprintf("(%s in {%s, %s})", g.value(g.color, sc, d-1), g.lit(g.color), g.lit(g.color))
	case 10:
		if g.id != nil {
			if vs := vars(sc, g.id, false); len(vs) > 0 {
				return fmt.Sprintf("(%s %s %s)", g.name(pick(g, vs), sc), pick(g, []string{"==", "!="}), g.value(g.id, sc, d-1))
			}
		}
	case 11:
		return fmt.Sprintf("(if %s then %s else %s)", g.boolean(sc, d-1), g.boolean(sc, d-1), g.boolean(sc, d-1))
	}
	return fmt.Sprintf("(%s %s %s)", g.integer(sc, d-1), pick(g, []string{"<", "==", ">="}), g.integer(sc, d-1))
}
