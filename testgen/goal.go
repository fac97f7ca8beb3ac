package testgen

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Kind is the kind of a coverage [Goal].
type Kind uint8

// Goal kinds, in the order the report lists them.
const (
	ActionFires Kind = iota // an action fires
	Branch                  // an arm of a branching statement of an action is taken
	Write                   // an assignment of an action runs where it changes its variable
	Answer                  // an agent gives an answer of one class
	GuardEdge               // an action fires from a state where a comparison of its guard is at its edge
	GuardOff                // one conjunct of an action's guard is the only false one
	Antecedent              // the antecedent of an `implies` invariant or property holds
	Terminal                // a disjunct of the terminal condition holds
)

var kindNames = [...]string{"action", "branch", "write", "answer", "guard edge", "guard off", "antecedent", "terminal"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Goal is one thing a test suite must make the wrapper do. A goal on a
// step (ActionFires, Branch, Write, Answer, GuardEdge) is met by a step of a
// trace; a goal on a state (GuardOff, Antecedent, Terminal) by a state.
type Goal struct {
	Kind Kind
	// Name says what the goal is, as the report prints it: "wrapper.plan
	// fires", "wrapper.verify: if not wellformed(v): else", "verifier
	// answers status = outage", ...
	Name string
	Pos  spec.Position
	// Test is the index in Result.Tests of the first test that meets the
	// goal, -1 when none does.
	Test int
	// Reachable is set when some run of the spec meets the goal (within
	// the states explored).
	Reachable bool
	// Why says, for a goal no run meets, why not.
	Why string

	// What the search tests.
	action int          // ActionFires, Branch, GuardEdge, GuardOff: the action
	arm    int          // Branch, Write: index into instrumented.all
	agent  int          // Answer: the agent
	off    int          // Answer: the slot of the answer compared
	val    int64        // Answer: its value (for a set, the bit mask)
	pred   *spec.Expr   // GuardEdge, GuardOff, Antecedent, Terminal: the state predicate
	conj   []*spec.Expr // GuardOff: the other conjuncts, which must hold
	static string       // why no run meets it, known before the search
}

func (g *Goal) onStep() bool {
	switch g.Kind {
	case ActionFires, Branch, Write, Answer, GuardEdge:
		return true
	}
	return false
}

// goals lists the goals of m, with the arms of its instrumented copy.
func goals(m *spec.Model, in *instrumented, intType *spec.Type) []*Goal {
	var gs []*Goal
	add := func(g *Goal) { g.Test = -1; gs = append(gs, g) }
	for i, a := range m.Actions {
		add(&Goal{Kind: ActionFires, Name: a.Name + " fires", Pos: a.Pos, action: i})
	}
	for i, a := range m.Actions {
		for _, k := range in.arms[i] {
			if !in.all[k].write {
				add(&Goal{Kind: Branch, Name: a.Name + ": " + in.all[k].name, Pos: in.all[k].pos, action: i, arm: k, static: in.all[k].dead})
			}
		}
	}
	for i, a := range m.Actions {
		for _, k := range in.arms[i] {
			if in.all[k].write {
				add(&Goal{Kind: Write, Name: a.Name + ": " + in.all[k].name, Pos: in.all[k].pos, action: i, arm: k, static: in.all[k].dead})
			}
		}
	}
	for i, ag := range m.Agents {
		for _, c := range answerClasses(ag.Result, 0, "") {
			name := ag.Name + " answers " + c.name
			add(&Goal{Kind: Answer, Name: name, Pos: ag.Pos, agent: i, off: c.off, val: c.val})
		}
	}
	for i, a := range m.Actions {
		if a.Guard == nil {
			continue
		}
		cs := conjuncts(a.Guard)
		for j, c := range cs {
			if _, ok := constant(c); ok {
				continue // a constant conjunct is never the edge nor alone false
			}
			if e := edge(c, intType); e != nil {
				add(&Goal{Kind: GuardEdge, Name: fmt.Sprintf("%s fires with %s at its edge (%s)", a.Name,
					report.ExprString(m, c, "a comparison"), report.ExprString(m, e, "…")), Pos: c.Pos, action: i, pred: e})
			}
			var others []*spec.Expr
			for k, o := range cs {
				if k != j {
					others = append(others, o)
				}
			}
			name := fmt.Sprintf("%s is disabled by %s alone", a.Name, report.ExprString(m, c, "a conjunct of its guard"))
			if len(cs) == 1 {
				name = a.Name + " is disabled"
			}
			add(&Goal{Kind: GuardOff, Name: name, Pos: c.Pos, action: i, pred: c, conj: others})
		}
	}
	for _, inv := range m.Invariants {
		if a := spec.Antecedent(inv.Expr); a != nil {
			add(&Goal{Kind: Antecedent, Name: fmt.Sprintf("invariant %s: %s", inv.Name, report.ExprString(m, a, "its antecedent")), Pos: inv.Pos, pred: a})
		}
	}
	for _, p := range m.Properties {
		if a := propertyAntecedent(p.Formula); a != nil {
			add(&Goal{Kind: Antecedent, Name: fmt.Sprintf("property %s: %s", p.Name, report.ExprString(m, a, "its antecedent")), Pos: p.Pos, pred: a})
		}
	}
	if m.Terminal != nil {
		for _, d := range disjuncts(m.Terminal) {
			g := &Goal{Kind: Terminal, Name: "terminal: " + report.ExprString(m, d, "a disjunct"), Pos: m.TerminalPos, pred: d}
			if v, ok := constant(d); ok && v == 0 {
				g.static = "it is the constant false"
			}
			add(g)
		}
	}
	return gs
}

// class is one class of an agent's answers: slot off of the answer holds
// val.
type class struct {
	name string
	off  int
	val  int64
}

// answerClasses returns the classes of the values of t (at slot off of
// the answer, named after path): each boolean, each enum member or
// identity, both ends of a range, the empty and the full set; for a
// record, those of each field; for an array, those of each element.
func answerClasses(t *spec.Type, off int, path string) []class {
	name := func(v string) string {
		if path == "" {
			return v
		}
		return path + " = " + v
	}
	switch t.Kind {
	case spec.BoolKind:
		return []class{{name("false"), off, 0}, {name("true"), off, 1}}
	case spec.EnumKind, spec.SymmetricKind:
		var cs []class
		for v := t.Lo; v <= t.Hi; v++ {
			cs = append(cs, class{name(report.ValueText(t, []int64{v})), off, v})
		}
		return cs
	case spec.RangeKind:
		if t.Lo == t.Hi {
			return []class{{name(fmt.Sprint(t.Lo)), off, t.Lo}}
		}
		return []class{{name(fmt.Sprint(t.Lo)), off, t.Lo}, {name(fmt.Sprint(t.Hi)), off, t.Hi}}
	case spec.SetKind:
		n := t.Elem.Size()
		full := int64(-1)
		if n < 64 {
			full = 1<<uint(n) - 1
		}
		all := make([]int64, 1)
		all[0] = full
		return []class{{name("{}"), off, 0}, {name(report.ValueText(t, all)), off, full}}
	case spec.RecordKind:
		var cs []class
		for _, f := range t.Fields {
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			cs = append(cs, answerClasses(f.Type, off+f.Offset, p)...)
		}
		return cs
	case spec.ArrayKind:
		var cs []class
		for i := int64(0); i < t.Index.Size(); i++ {
			p := path + "[" + report.ValueText(t.Index, []int64{t.Index.Lo + i}) + "]"
			cs = append(cs, answerClasses(t.Elem, off+int(i)*t.Elem.Width, p)...)
		}
		return cs
	}
	return nil
}

func conjuncts(e *spec.Expr) []*spec.Expr {
	if e.Op == spec.OpAnd {
		return append(conjuncts(e.Args[0]), conjuncts(e.Args[1])...)
	}
	return []*spec.Expr{e}
}

func disjuncts(e *spec.Expr) []*spec.Expr {
	if e.Op == spec.OpOr {
		return append(disjuncts(e.Args[0]), disjuncts(e.Args[1])...)
	}
	return []*spec.Expr{e}
}

// edge returns, for an integer comparison c, the predicate that holds
// where c is true but would be false one unit further: a + 1 == b for
// a < b, a == b for a <= b (and the mirrors); nil for any other c.
func edge(c *spec.Expr, intType *spec.Type) *spec.Expr {
	switch c.Op {
	case spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe:
	default:
		return nil
	}
	a, b := c.Args[0], c.Args[1]
	if !isInt(a.Type) || !isInt(b.Type) {
		return nil
	}
	one := &spec.Expr{Op: spec.OpConst, Type: intType, Val: 1, Pos: c.Pos}
	plus := func(x *spec.Expr) *spec.Expr {
		return &spec.Expr{Op: spec.OpAdd, Type: intType, Args: []*spec.Expr{x, one}, Pos: c.Pos}
	}
	eq := func(x, y *spec.Expr) *spec.Expr {
		return &spec.Expr{Op: spec.OpEq, Type: c.Type, Args: []*spec.Expr{x, y}, Pos: c.Pos}
	}
	switch c.Op {
	case spec.OpLt:
		return eq(plus(a), b)
	case spec.OpGt:
		return eq(a, plus(b))
	}
	return eq(a, b)
}

func isInt(t *spec.Type) bool { return t.Kind == spec.IntKind || t.Kind == spec.RangeKind }

// propertyAntecedent returns the state antecedent of a property of the
// form `always (a implies F)` or `a leadsto F` (a without temporal
// operators), or nil.
func propertyAntecedent(f *spec.Expr) *spec.Expr {
	if f.Op == spec.OpAlways {
		f = f.Args[0]
	}
	switch f.Op {
	case spec.OpImplies, spec.OpLeadsTo:
		if !temporal(f.Args[0]) {
			return f.Args[0]
		}
	}
	return nil
}

func temporal(e *spec.Expr) bool {
	if e.Op.IsTemporal() {
		return true
	}
	for _, a := range e.Args {
		if temporal(a) {
			return true
		}
	}
	return false
}
