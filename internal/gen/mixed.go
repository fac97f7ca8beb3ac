package gen

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
)

// The Mixed shape: random well-typed specs from the source level up:
// records, arrays, sets (union, minus, intersect, in, subset, card),
// quantifiers and count, sum, min and max, array literals and
// comprehensions, match, if/else, for, let (also reassigned), choose
// with where (over types, enum literals and sets), ask with assume,
// process families with locals read as P[v].x, fn calls, integer
// arithmetic with negative operands (/ truncates, % is its remainder,
// mod is Euclidean), bitwise operators (a negative operand is an error),
// asserts, runtime errors (out-of-range stores, bad indexes, division by
// zero, set elements outside their type), init branching and terminal.
//
// Planted asserts carry messages starting with "planted:": the generator
// computed their truth itself, with Go's arithmetic (the semantics
// docs/language.md gives / and %), so they must hold in every engine.

type kind int

const (
	kBool kind = iota
	kInt       // a range type; intermediate integers are unbounded
	kEnum
	kSym
	kSet
	kArray
	kRecord
)

type gtype struct {
	k       kind
	src     string // written in a type position
	lo, hi  int64  // kInt: the bounds
	members []string
	elem    *gtype // kSet, kArray
	index   *gtype // kArray
	fields  []gfield
}

type gfield struct {
	name string
	t    *gtype
}

// gvar is a name visible in a scope.
type gvar struct {
	name     string
	t        *gtype
	writable bool
	int      bool // a let of an integer: unbounded, any value
}

type gfn struct {
	name   string
	params []*gtype
	result *gtype
}

type gagent struct {
	name   string
	params []*gtype
	result *gtype
}

// mixer writes one spec of the Mixed shape.
type mixer struct {
	r       *rand.Rand
	b       strings.Builder
	tBool   *gtype
	small   *gtype
	wide    *gtype // a range with negative values
	color   *gtype
	mode    *gtype
	id      *gtype // symmetric; nil when the spec has none
	rec     *gtype
	globals []gvar
	fns     []gfn
	agents  []gagent
	fams    []gfam
	n       int  // fresh-name counter
	depth   int  // statement nesting
	noCalls bool // in an fn body or an assumption: call no fn
	// typedCtx is set while writing the right-hand side of an assignment
	// to a set: a literal there has the target's type.
	typedCtx bool
	// bodies holds the source of every fn body and agent assumption, by
	// name, for the planted facts that unfold them.
	bodies map[string]string
	self   string // inside a process: how others name it ("W[w]", "Solo")
}

// gfam is a process family (or single process when index is nil).
type gfam struct {
	name   string
	index  *gtype
	locals []gvar // names as written inside the process
}

func (g *mixer) p(format string, args ...any) { fmt.Fprintf(&g.b, format+"\n", args...) }

func (g *mixer) fresh(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *mixer) chance(num, den int) bool { return g.r.IntN(den) < num }

func pick[T any](g *mixer, xs []T) T { return xs[g.r.IntN(len(xs))] }

// mixed returns a random spec of the Mixed shape.
func mixed(r *rand.Rand) string {
	g := &mixer{r: r, bodies: map[string]string{}}
	g.tBool = &gtype{k: kBool, src: "bool", lo: 0, hi: 1}
	n := 1 + r.IntN(2)
	g.p("spec Random")
	g.p("const N = %d", n)
	g.small = &gtype{k: kInt, src: "Small", lo: 0, hi: int64(n)}
	g.p("type Small = 0..N")
	g.wide = &gtype{k: kInt, src: "Wide", lo: -2, hi: 2}
	g.p("type Wide = -2..2")
	g.color = &gtype{k: kEnum, src: "Color", members: []string{"red", "green", "blue"}, lo: 0, hi: 2}
	g.p("type Color = {red, green, blue}")
	g.mode = &gtype{k: kEnum, src: "Mode", members: []string{"idle", "busy"}, lo: 0, hi: 1}
	g.p("type Mode = {idle, busy}")
	if g.chance(1, 3) {
		g.id = &gtype{k: kSym, src: "Id", lo: 0, hi: 1}
		g.p("type Id = symmetric 2")
	}
	setC := &gtype{k: kSet, src: "set of Color", elem: g.color}
	setS := &gtype{k: kSet, src: "set of Small", elem: g.small}
	g.rec = &gtype{k: kRecord, src: "Rec", fields: []gfield{{"a", g.small}, {"b", g.tBool}, {"c", setC}}}
	g.p("type Rec = record { a: Small, b: bool, c: set of Color }")
	g.p("type Box = record { inner: Rec, v: [bool]0..1 }")

	// globals
	cands := []gvar{
		{name: "x", t: g.small}, {name: "y", t: g.wide}, {name: "flag", t: g.tBool},
		{name: "col", t: g.color}, {name: "cs", t: setC}, {name: "ss", t: setS},
		{name: "arr", t: &gtype{k: kArray, src: "[Color]0..2", index: g.color, elem: &gtype{k: kInt, src: "0..2", lo: 0, hi: 2}}},
		{name: "bits", t: &gtype{k: kArray, src: "[Small]bool", index: g.small, elem: g.tBool}},
		{name: "r", t: g.rec}, {name: "m", t: g.mode},
		{name: "recs", t: &gtype{k: kArray, src: "[0..1]Rec", index: &gtype{k: kInt, src: "0..1", lo: 0, hi: 1}, elem: g.rec}},
		{name: "sets", t: &gtype{k: kArray, src: "[Mode]set of Small", index: g.mode, elem: setS}},
		{name: "pair", t: &gtype{k: kArray, src: "[bool]Mode", index: g.tBool, elem: g.mode}},
		{name: "box", t: &gtype{k: kRecord, src: "Box", fields: []gfield{{"inner", g.rec}, {"v", &gtype{k: kArray, src: "[bool]0..1", index: g.tBool, elem: &gtype{k: kInt, src: "0..1", lo: 0, hi: 1}}}}}},
	}
	if g.id != nil {
		cands = append(cands, gvar{name: "owner", t: g.id}, gvar{name: "held", t: &gtype{k: kArray, src: "[Id]bool", index: g.id, elem: g.tBool}},
			gvar{name: "ids", t: &gtype{k: kSet, src: "set of Id", elem: g.id}})
	}
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	nv := 3 + r.IntN(3)
	if g.id != nil {
		for i, v := range cands {
			if v.name == "owner" {
				cands[0], cands[i] = cands[i], cands[0] // Id values need a source
			}
		}
	}
	for _, v := range cands[:nv] {
		v.writable = true
		g.globals = append(g.globals, v)
		switch {
		case v.t.k == kInt && g.chance(1, 2):
			g.p("var %s: %s = %d", v.name, v.t.src, v.t.lo+r.Int64N(v.t.hi-v.t.lo+1))
		case v.t == setC && g.chance(1, 2):
			g.p("var %s: %s = {%s, %s}", v.name, v.t.src, g.lit(g.color), g.lit(g.color))
		case v.t == g.rec && g.chance(1, 2):
			g.p("var %s: %s = record { c: {%s}, a: N, b: true }", v.name, v.t.src, g.lit(g.color))
		default:
			g.p("var %s: %s", v.name, v.t.src)
		}
	}

	// fns and agents
	g.fns = []gfn{
		{name: "fi", params: []*gtype{g.small, g.wide}, result: &gtype{k: kInt, src: "-30..30", lo: -30, hi: 30}},
		{name: "fb", params: []*gtype{setC, g.color}, result: g.tBool},
		{name: "fc", params: []*gtype{g.color}, result: g.color},
		{name: "fr", params: []*gtype{g.rec, g.small}, result: g.tBool},
	}
	for _, f := range g.fns {
		var ps []string
		sc := []gvar{}
		for i, t := range f.params {
			pn := fmt.Sprintf("p%d", i)
			ps = append(ps, pn+": "+t.src)
			sc = append(sc, gvar{name: pn, t: t})
		}
		if g.chance(1, 3) {
			sc = append(sc, g.globals...) // an fn may read state
		}
		g.noCalls = true
		body := g.value(f.result, sc, 2)
		g.noCalls = false
		g.p("fn %s(%s): %s = %s", f.name, strings.Join(ps, ", "), f.result.src, body)
		g.bodies[f.name] = body
	}
	g.agents = []gagent{
		{name: "pickc", params: []*gtype{setC}, result: g.color},
		{name: "judge", params: []*gtype{g.small}, result: g.tBool},
		{name: "num", params: nil, result: g.wide},
		{name: "fill", params: []*gtype{g.tBool}, result: g.rec},
		{name: "sub", params: []*gtype{setC}, result: setC},
		{name: "grid", params: nil, result: &gtype{k: kArray, src: "[Small]bool", index: g.small, elem: g.tBool}},
	}
	for _, a := range g.agents {
		var ps []string
		sc := []gvar{{name: "result", t: a.result}}
		for i, t := range a.params {
			pn := fmt.Sprintf("q%d", i)
			ps = append(ps, pn+": "+t.src)
			sc = append(sc, gvar{name: pn, t: t})
		}
		line := fmt.Sprintf("agent %s(%s): %s", a.name, strings.Join(ps, ", "), a.result.src)
		if g.chance(2, 3) {
			g.noCalls = true
			g.bodies[a.name] = g.boolean(sc, 2)
			g.noCalls = false
			line += " assume " + g.bodies[a.name]
		}
		g.p("%s", line)
	}

	// processes
	switch r.IntN(3) {
	case 0:
		g.fams = append(g.fams, gfam{name: "W", index: g.small})
	case 1:
		if g.id != nil {
			g.fams = append(g.fams, gfam{name: "W", index: g.id})
		} else {
			g.fams = append(g.fams, gfam{name: "W", index: g.tBool})
		}
	}
	if g.chance(1, 2) {
		g.fams = append(g.fams, gfam{name: "Solo"})
	}
	for i := range g.fams {
		f := &g.fams[i]
		t := pick(g, []*gtype{g.mode, {k: kInt, src: "0..2", lo: 0, hi: 2}, g.tBool})
		f.locals = []gvar{{name: "st", t: t, writable: true}}
		if g.chance(1, 3) {
			f.locals = append(f.locals, gvar{name: "seen", t: &gtype{k: kArray, src: "[Color]bool", index: g.color, elem: g.tBool}, writable: true})
		}
	}

	for g.chance(1, 3) {
		g.p("init {")
		g.stmts(g.globals, 1+r.IntN(2), "  ")
		g.p("}")
	}
	nAct := 0
	for _, f := range g.fams {
		idx := ""
		if f.index != nil {
			idx = "[w: " + f.index.src + "]"
		}
		g.p("process %s%s {", f.name, idx)
		for _, l := range f.locals {
			g.p("  var %s: %s", l.name, l.t.src)
		}
		sc := append(append([]gvar(nil), g.globals...), f.locals...)
		sc = append(sc, g.foreign(f.name)...)
		if f.index != nil {
			sc = append(sc, gvar{name: "w", t: f.index})
		}
		g.self = f.name
		if f.index != nil {
			g.self += "[w]"
		}
		for range 1 + r.IntN(2) {
			g.action(sc, "  ")
			nAct++
		}
		g.self = ""
		g.p("}")
	}
	sc := append(append([]gvar(nil), g.globals...), g.foreign("")...)
	for nAct < 4 || g.chance(1, 2) {
		g.action(sc, "")
		nAct++
		if nAct > 6 {
			break
		}
	}
	for i := range r.IntN(3) {
		g.p("invariant Inv%d: %s", i, g.boolean(sc, 3))
	}
	for g.chance(1, 2) { // several terminal lines mean their disjunction
		g.p("terminal %s", g.boolean(sc, 2))
	}
	return g.b.String()
}

// foreign returns the process locals visible from outside process self,
// read as P.x or P[v].x (v a constant or an expression).
func (g *mixer) foreign(self string) []gvar {
	var out []gvar
	for _, f := range g.fams {
		if f.name == self {
			continue
		}
		for _, l := range f.locals {
			if f.index == nil {
				out = append(out, gvar{name: f.name + "." + l.name, t: l.t})
				continue
			}
			// the index is filled in when the name is used; some
			// actions write another process's locals
			out = append(out, gvar{name: f.name + "[%s]." + l.name, t: l.t, writable: g.chance(1, 3)})
		}
	}
	return out
}

func (g *mixer) action(sc []gvar, ind string) {
	name := g.fresh("a")
	guard := ""
	if g.chance(1, 2) {
		guard = " when " + g.boolean(sc, g.r.IntN(3))
	}
	g.p("%saction %s%s {", ind, name, guard)
	if guard != "" && g.chance(1, 2) {
		g.fact(ind+"  ", strings.TrimPrefix(guard, " when "), "guard")
	}
	if g.self != "" && g.chance(1, 3) {
		g.fact(ind+"  ", "st == "+g.self+".st", "local") // a local read bare and as P[w].st
	}
	g.depth++
	g.mutate(sc, ind+"  ")
	g.depth--
	g.stmts(sc, g.r.IntN(3), ind+"  ")
	g.p("%s}", ind)
}

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
		fmt.Sprintf("(%s in (%s union %s)) == ((%s in %s) or (%s in %s))", x, s1, s2, x, s1, x, s2),
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
