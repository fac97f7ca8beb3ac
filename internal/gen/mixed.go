package gen

import (
	"fmt"
	"math/rand/v2"
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
	// Color and Mode both have green (enum members scoped by their type,
	// an extension): its bare use would be ambiguous, so the members are
	// kept as they are written, green as Color.green or Mode.green
	g.color = &gtype{k: kEnum, src: "Color", members: []string{"red", "Color.green", "blue"}, lo: 0, hi: 2}
	g.p("type Color = {red, green, blue}")
	g.mode = &gtype{k: kEnum, src: "Mode", members: []string{"idle", "Mode.green"}, lo: 0, hi: 1}
	g.p("type Mode = {idle, green}")
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
	if g.chance(1, 3) {
		g.sequence(sc)
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

// sequence declares hist, a sequence of colours (an extension), with
// actions that append to it, drop its head and run statements for each
// of its elements, and an invariant over its membership.
func (g *mixer) sequence(sc []gvar) {
	g.p("var hist: seq[2] of Color")
	g.p("action histPush when len(hist) < %d {", 1+g.r.IntN(2))
	g.p("  hist := append(hist, %s)", g.value(g.color, sc, 1))
	g.p("}")
	g.p("action histPop when len(hist) > 0 and head(hist) != %s {", g.lit(g.color))
	g.p("  hist := tail(hist)")
	g.p("}")
	g.p("action histScan {")
	g.p("  for h in hist {")
	g.stmts(append(append([]gvar(nil), sc...), gvar{name: "h", t: g.color}), 1, "    ")
	g.p("  }")
	g.p("}")
	c := g.lit(g.color)
	g.p("invariant HistIn: (%s in hist) == (exists k in 0..1: k < len(hist) and hist[k] == %s)", c, c)
}
