package gen

import (
	"fmt"
	"regexp"
	"strings"
)

// stmts writes n statements.
func (g *mixer) stmts(sc []gvar, n int, ind string) {
	g.depth++
	defer func() { g.depth-- }()
	for range n {
		sc = g.stmt(sc, ind)
	}
}

// stmt writes one statement and returns the scope after it.
func (g *mixer) stmt(sc []gvar, ind string) []gvar {
	nested := g.depth < 3
	switch g.r.IntN(16) {
	case 0, 1, 2, 3:
		g.assign(sc, ind)
	case 4:
		v := g.fresh("l")
		t := pick(g, []*gtype{g.small, g.tBool, g.color, g.rec})
		switch t.k {
		case kInt:
			g.p("%slet %s = %s", ind, v, g.integer(sc, 2))
			return append(sc, gvar{name: v, t: &gtype{k: kInt, lo: -1 << 40, hi: 1 << 40}, writable: true, int: true})
		case kRecord:
			if vs := vars(sc, t, false); len(vs) > 0 {
				g.p("%slet %s = %s", ind, v, g.name(pick(g, vs), sc))
				return append(sc, gvar{name: v, t: t, writable: true})
			}
			t = g.color
		}
		g.p("%slet %s = %s", ind, v, g.value(t, sc, 2))
		return append(sc, gvar{name: v, t: t, writable: true})
	case 5:
		a := pick(g, g.agents)
		var args []string
		for _, t := range a.params {
			args = append(args, g.arg(t, sc, 1))
		}
		call := fmt.Sprintf("ask %s(%s)", a.name, strings.Join(args, ", "))
		if ts := vars(sc, a.result, true); len(ts) > 0 && g.chance(1, 2) {
			g.p("%s%s := %s", ind, g.name(pick(g, ts), sc), call)
			return sc
		}
		v := g.fresh("l")
		g.p("%slet %s = %s", ind, v, call)
		if as := g.bodies[a.name]; as != "" && g.chance(1, 2) {
			// the answer satisfies the assumption over the arguments
			if cond, ok := unfold(as, append([]string{"result"}, qnames(len(args))...), append([]string{v}, args...)); ok {
				g.fact(ind, cond, "assume")
			}
		}
		return append(sc, gvar{name: v, t: a.result})
	case 6, 7:
		if !nested {
			g.assign(sc, ind)
			return sc
		}
		if g.chance(1, 3) {
			// a bounded for loop (an extension), unrolled by the front end
			t := pick(g, []*gtype{g.tBool, g.mode, {k: kInt, src: "0..2", lo: 0, hi: 2}})
			v := g.fresh("f")
			g.p("%sfor %s in %s {", ind, v, t.src)
			g.stmts(append(append([]gvar(nil), sc...), gvar{name: v, t: t}), 1+g.r.IntN(2), ind+"  ")
			g.p("%s}", ind)
			return sc
		}
		dom, t := g.domain(sc)
		v := g.fresh("c")
		inner := append(append([]gvar(nil), sc...), gvar{name: v, t: t})
		where := ""
		if g.chance(1, 2) {
			where = " where " + g.boolean(inner, 2)
		}
		g.p("%schoose %s in %s%s {", ind, v, dom, where)
		if where != "" && g.chance(1, 2) {
			g.fact(ind+"  ", strings.TrimPrefix(where, " where "), "where")
		}
		if dom != "bool" && dom[0] >= 'a' && dom[0] <= 'z' && !strings.ContainsAny(dom, " [") && g.chance(1, 2) {
			g.fact(ind+"  ", v+" in "+dom, "chosen from a set") // a set variable
		}
		g.stmts(inner, 1+g.r.IntN(2), ind+"  ")
		g.p("%s}", ind)
	case 8, 9:
		if !nested {
			g.assign(sc, ind)
			return sc
		}
		c := g.boolean(sc, 2)
		facts := g.chance(1, 2)
		branch := func(cond string) {
			if facts {
				g.fact(ind+"  ", cond, "if")
			}
		}
		g.p("%sif %s {", ind, c)
		branch(c)
		g.stmts(sc, 1+g.r.IntN(2), ind+"  ")
		switch g.r.IntN(3) {
		case 0:
			g.p("%s}", ind)
		case 1:
			g.p("%s} else {", ind)
			branch("not " + c)
			g.stmts(sc, 1, ind+"  ")
			g.p("%s}", ind)
		case 2:
			c2 := g.boolean(sc, 1)
			g.p("%s} else if %s {", ind, c2)
			branch(fmt.Sprintf("(not %s) and %s", c, c2))
			g.stmts(sc, 1, ind+"  ")
			g.p("%s} else {", ind)
			branch(fmt.Sprintf("not (%s or %s)", c, c2))
			g.stmts(sc, 1, ind+"  ")
			g.p("%s}", ind)
		}
	case 10:
		if !nested {
			g.assign(sc, ind)
			return sc
		}
		t := pick(g, []*gtype{g.color, g.mode, g.tBool})
		if t == g.mode && len(vars(sc, t, false)) == 0 {
			t = g.color
		}
		e := g.value(t, sc, 1)
		g.p("%smatch %s {", ind, e)
		var vals []string
		if t.k == kBool {
			vals = []string{"true", "false"}
		} else {
			vals = append(vals, t.members...)
		}
		g.r.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		cut := 1 + g.r.IntN(len(vals))
		facts := g.chance(1, 2)
		arm := func(vs []string) {
			if facts {
				var eqs []string
				for _, v := range vs {
					eqs = append(eqs, fmt.Sprintf("(%s) == %s", e, v))
				}
				g.fact(ind+"    ", strings.Join(eqs, " or "), "match")
			}
			g.stmts(sc, 1, ind+"    ")
		}
		g.p("%s  %s => {", ind, strings.Join(vals[:cut], ", "))
		arm(vals[:cut])
		g.p("%s  }", ind)
		if cut < len(vals) {
			if g.chance(1, 2) {
				g.p("%s  else => {", ind)
			} else {
				g.p("%s  %s => {", ind, strings.Join(vals[cut:], ", "))
			}
			arm(vals[cut:])
			g.p("%s  }", ind)
		}
		g.p("%s}", ind)
	case 11:
		if g.chance(1, 4) {
			g.p("%sassert %s \"random\"", ind, g.boolean(sc, 2))
		} else {
			g.mutate(sc, ind)
		}
	case 12:
		g.planted(sc, ind)
	case 13:
		g.p("%sskip", ind)
	default:
		g.assign(sc, ind)
	}
	return sc
}

// mutate writes a statement that moves the state along: a counter step,
// a toggle, an element added to or removed from a set, an agent's answer
// stored, a chosen value stored.
func (g *mixer) mutate(sc []gvar, ind string) {
	var locs []gvar
	for _, v := range sc {
		if v.writable && !v.int && !strings.Contains(v.name, "%s") {
			locs = append(locs, v)
		}
	}
	if len(locs) == 0 {
		g.assign(sc, ind)
		return
	}
	v := pick(g, locs)
	target, t := v.name, v.t
	if t.k == kArray {
		c := g.fresh("c")
		g.p("%schoose %s in %s {", ind, c, t.index.src)
		g.depth++
		g.mutate(append([]gvar{{name: target + "[" + c + "]", t: t.elem, writable: true}}, gvar{name: c, t: t.index}), ind+"  ")
		g.depth--
		g.p("%s}", ind)
		return
	}
	if t.k == kRecord {
		f := pick(g, t.fields)
		target, t = target+"."+f.name, f.t
	}
	switch t.k {
	case kBool:
		g.p("%s%s := not %s", ind, target, target)
	case kInt:
		switch g.r.IntN(3) {
		case 0:
			g.p("%s%s := if %s < %d then %s + 1 else %d", ind, target, target, t.hi, target, t.lo)
		case 1:
			g.p("%s%s := if %s > %d then %s - 1 else %d", ind, target, target, t.lo, target, t.hi)
		case 2:
			g.p("%s%s := %s + 1", ind, target, target) // overflows at the top: a runtime error
		}
	case kEnum, kSym:
		if t == g.color && g.chance(1, 2) {
			g.p("%s%s := ask pickc(%s)", ind, target, g.value(&gtype{k: kSet, src: "set of Color", elem: g.color}, sc, 1))
			return
		}
		c := g.fresh("c")
		g.p("%schoose %s in %s where %s != %s {", ind, c, t.src, c, target)
		g.p("%s  %s := %s", ind, target, c)
		g.p("%s}", ind)
	case kSet:
		c := g.fresh("c")
		if g.chance(1, 2) {
			g.p("%schoose %s in %s where not (%s in %s) { %s := %s union {%s} }", ind, c, t.elem.src, c, target, target, target, c)
		} else {
			g.p("%schoose %s in %s where %s in %s { %s := %s minus {%s} }", ind, c, t.elem.src, c, target, target, target, c)
		}
	}
}

// assign writes an assignment to a writable location of sc.
func (g *mixer) assign(sc []gvar, ind string) {
	var locs []gvar
	for _, v := range sc {
		if v.writable {
			locs = append(locs, v)
		}
	}
	if len(locs) == 0 {
		g.p("%sskip", ind)
		return
	}
	v := pick(g, locs)
	target, t := g.name(v, sc), v.t
	for {
		// a whole array now and then: its value may be a literal or a
		// comprehension (extensions)
		if t.k == kArray && !g.chance(1, 4) {
			target = fmt.Sprintf("%s[%s]", target, g.index(t.index, sc))
			t = t.elem
			continue
		}
		if t.k == kRecord && g.chance(1, 2) {
			f := pick(g, t.fields)
			target, t = target+"."+f.name, f.t
			continue
		}
		break
	}
	if v.int {
		g.p("%s%s := %s", ind, target, g.integer(sc, 2))
		return
	}
	if t.k == kInt && g.chance(3, 4) {
		// clamp through a let, so that most stores fit
		l := g.fresh("t")
		g.p("%slet %s = %s", ind, l, g.integer(sc, 2))
		g.p("%s%s := if %s < %d then %d else if %s > %d then %d else %s", ind, target, l, t.lo, t.lo, l, t.hi, t.hi, l)
		return
	}
	if t.k == kInt {
		g.p("%s%s := %s", ind, target, g.risky(t, sc))
		return
	}
	g.typedCtx = t.k == kSet
	if t.k == kSet && g.chance(1, 6) {
		g.p("%s%s := {}", ind, target)
	} else {
		g.p("%s%s := %s", ind, target, g.value(t, sc, 2))
	}
	g.typedCtx = false
}

// planted writes an assert whose truth the generator knows: integer
// arithmetic on constants (folded by the front end) or on lets (evaluated
// by the engine), or set algebra on literals.
func (g *mixer) planted(sc []gvar, ind string) {
	a, b := int64(g.r.IntN(21)-10), int64(g.r.IntN(11)-5)
	if b == 0 {
		b = 3
	}
	type op struct {
		s string
		f func(a, b int64) int64
	}
	ops := []op{
		{"+", func(a, b int64) int64 { return a + b }},
		{"-", func(a, b int64) int64 { return a - b }},
		{"*", func(a, b int64) int64 { return a * b }},
		{"/", func(a, b int64) int64 { return a / b }},
		{"%", func(a, b int64) int64 { return a % b }},
		{"mod", func(a, b int64) int64 { return (a%b + max(b, -b)) % max(b, -b) }},
		{"&", func(a, b int64) int64 { return a & b }},
		{"|", func(a, b int64) int64 { return a | b }},
		{"^", func(a, b int64) int64 { return a ^ b }},
		{"<<", func(a, b int64) int64 { return a << b }},
		{">>", func(a, b int64) int64 { return a >> b }},
	}
	o := pick(g, ops)
	switch o.s {
	case "&", "|", "^", "<<", ">>":
		a, b = max(a, -a), max(b, -b) // the operands of a bitwise operator are non-negative
	}
	want := o.f(a, b)
	switch g.r.IntN(8) {
	case 6:
		// integers are exact: a product past int64 divided back
		e := g.integer(sc, 2)
		k := pick(g, []string{"9223372036854775807", "4000000000", "123456789012345678901234567890"})
		g.p("%sassert (%s) * %s * %s / %s / %s == (%s) \"planted: exact product\"", ind, e, k, k, k, k, e)
	case 7:
		e := g.integer(sc, 2)
		l := g.fresh("big")
		g.p("%slet %s = (%s) - 9223372036854775807 - 9223372036854775807", ind, l, e)
		g.p("%sassert %s < (%s) - 9223372036854775806 and %s + 18446744073709551614 == (%s) \"planted: exact difference\"", ind, l, e, l, e)
	case 3, 4:
		g.identity(sc, ind)
	case 5:
		g.unfoldCall(sc, ind)
	case 0:
		g.p("%sassert (%d) %s (%d) == %d \"planted: constants\"", ind, a, o.s, b, want)
	case 1:
		la, lb := g.fresh("n"), g.fresh("n")
		g.p("%slet %s = %d", ind, la, a)
		g.p("%slet %s = %d", ind, lb, b)
		cmp := pick(g, []string{"==", "<=", ">="})
		g.p("%sassert %s %s %s %s %d \"planted: lets\"", ind, la, o.s, lb, cmp, want)
	case 2:
		x, y := g.r.IntN(8), g.r.IntN(8)
		lit := func(m int) string {
			var el []string
			for i, c := range g.color.members {
				if m>>i&1 != 0 {
					el = append(el, c)
				}
			}
			return "{" + strings.Join(el, ", ") + "}"
		}
		if x == 0 || y == 0 {
			x, y = x|1, y|2
		}
		op := pick(g, []string{"union", "minus", "intersect"})
		res := map[string]int{"union": x | y, "minus": x &^ y, "intersect": x & y}[op]
		cnt := 0
		for m := res; m > 0; m >>= 1 {
			cnt += m & 1
		}
		g.p("%sassert card(%s %s %s) == %d \"planted: sets\"", ind, lit(x), op, lit(y), cnt)
	}
}

// fact writes an assert of cond, which the language guarantees where it
// stands (the generator wrote it so): a failure is the front end's or the
// engine's, whatever the state.
func (g *mixer) fact(ind, cond, what string) {
	g.p("%sassert (%s) \"planted: %s\"", ind, cond, what)
}

// unfold replaces each whole-word name in src by its (parenthesised)
// value; ok is false when a name is a quantifier's domain there, where
// only a name may stand.
func unfold(src string, names, values []string) (string, bool) {
	for i, n := range names {
		if regexp.MustCompile(`\bin ` + n + `:`).MatchString(src) {
			return "", false
		}
		src = regexp.MustCompile(`\b`+n+`\b`).ReplaceAllString(src, "("+values[i]+")")
	}
	return src, true
}

// qnames returns the parameter names of an agent with n parameters.
func qnames(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("q%d", i))
	}
	return out
}

// unfoldCall writes an assert that a call of an fn equals its body with
// the arguments substituted: inlining must not change a value.
func (g *mixer) unfoldCall(sc []gvar, ind string) {
	f := pick(g, g.fns)
	var args, names []string
	for i, t := range f.params {
		if t.k == kRecord {
			ts := g.typed(sc, t)
			if len(ts) == 0 {
				return
			}
			args = append(args, pick(g, ts)())
		} else {
			args = append(args, g.arg(t, sc, 1))
		}
		names = append(names, fmt.Sprintf("p%d", i))
	}
	if body, ok := unfold(g.bodies[f.name], names, args); ok {
		g.fact(ind, fmt.Sprintf("%s(%s) == %s", f.name, strings.Join(args, ", "), body), "inlined "+f.name)
	}
}

// identity writes an assert of a law of the language over random
// operands: quantifiers, count, set algebra, integer division, process
// locals read in two ways.
func (g *mixer) identity(sc []gvar, ind string) {
	dom, t := g.domain(sc)
	k := g.fresh("k")
	body := g.boolean(append(sc, gvar{name: k, t: t}), 1)
	st := g.setType(sc)
	s1, s2 := g.value(st, sc, 1), g.value(st, sc, 1)
	if ts := g.typed(sc, st); len(ts) > 0 {
		s1 = pick(g, ts)() // gives the literals their type
	}
	x := g.value(st.elem, sc, 0)
	n, d := g.integer(sc, 1), pick(g, []string{"3", "-2", "2", "-3"})
	laws := []string{
		fmt.Sprintf("(forall %s in %s: %s) == (not (exists %s in %s: not %s))", k, dom, body, k, dom, body),
		fmt.Sprintf("(exists %s in %s: %s) == ((count %s in %s: %s) > 0)", k, dom, body, k, dom, body),
		fmt.Sprintf("(%s minus %s) subset %s", s1, s2, s1),
		fmt.Sprintf("card(%s union %s) == card(%s) + card(%s) - card(%s intersect %s)", s1, s2, s1, s2, s1, s2),
		// s2 minus s1, not s2 alone: a literal s2 takes s1's element
		// type beside it, while alone it spans its elements, so an x of
		// a wider range (x in {x} is true) is a member on one side only
		fmt.Sprintf("(%s in (%s union %s)) == ((%s in %s) or (%s in (%s minus %s)))", x, s1, s2, x, s1, x, s2, s1),
		fmt.Sprintf("(%s in {%s}) and ((%s) / %s) * %s + (%s) %% %s == %s", x, x, n, d, d, n, d, n),
		fmt.Sprintf("(-(%s)) %% %s == -((%s) %% %s) and (-(%s)) / %s == -((%s) / %s)", n, d, n, d, n, d, n, d),
	}
	if g.self != "" {
		for _, v := range sc {
			if v.name == "st" {
				laws = append(laws, fmt.Sprintf("st == %s.st", g.self))
			}
		}
	}
	g.fact(ind, pick(g, laws), "identity")
}
