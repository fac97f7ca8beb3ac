package gen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The Past shape: a random past-time formula and a small spec over
// x, y: 0..2 and b, c: bool that probes it: an invariant `F or not F`
// (Probe) and one `a or not a` per atom instance of F (A0, A1, ...), so
// that a test can evaluate F and its atoms in the engine's states.

// Formula is a past-time formula of a [Past] spec: an atom (a state
// predicate; "v" in it is bound by the enclosing exists), a boolean
// connective, a past-time operator, or `exists v in 0..2`.
type Formula struct {
	Op   string // "atom", "not", "and", "or", "once", "historically", "previously", "since", "exists"
	Atom string // for "atom"
	Args []*Formula
}

// pastAtoms returns the atoms that do not read v.
func pastAtoms() []string {
	return []string{"b", "c", "x == 0", "x == y", "x < y", "y == 2", "not b", "b and x == 1"}
}

// pastAtomsV returns the atoms that read v.
func pastAtomsV() []string { return []string{"x == v", "y == v", "x != v", "b and y == v"} }

func randomPast(r *rand.Rand, d int, inV, exists bool) *Formula {
	if d == 0 || r.IntN(5) == 0 {
		if inV && r.IntN(2) == 0 {
			as := pastAtomsV()
			return &Formula{Op: "atom", Atom: as[r.IntN(len(as))]}
		}
		as := pastAtoms()
		return &Formula{Op: "atom", Atom: as[r.IntN(len(as))]}
	}
	switch k := r.IntN(10); {
	case k < 2:
		return &Formula{Op: "once", Args: []*Formula{randomPast(r, d-1, inV, exists)}}
	case k < 3:
		return &Formula{Op: "historically", Args: []*Formula{randomPast(r, d-1, inV, exists)}}
	case k < 5:
		return &Formula{Op: "previously", Args: []*Formula{randomPast(r, d-1, inV, exists)}}
	case k < 6:
		return &Formula{Op: "since", Args: []*Formula{randomPast(r, d-1, inV, exists), randomPast(r, d-1, inV, exists)}}
	case k < 7:
		return &Formula{Op: "not", Args: []*Formula{randomPast(r, d-1, inV, exists)}}
	case k < 8 && exists && !inV:
		return &Formula{Op: "exists", Args: []*Formula{randomPast(r, d, true, false)}}
	default:
		op := "and"
		if r.IntN(2) == 0 {
			op = "or"
		}
		return &Formula{Op: op, Args: []*Formula{randomPast(r, d-1, inV, exists), randomPast(r, d-1, inV, exists)}}
	}
}

// String returns f in the language's syntax, fully parenthesised; the
// domain of exists is the spec's type V.
func (f *Formula) String() string {
	switch f.Op {
	case "atom":
		return "(" + f.Atom + ")"
	case "not", "once", "historically", "previously":
		return "(" + f.Op + " " + f.Args[0].String() + ")"
	case "exists":
		return "(exists v in V: " + f.Args[0].String() + ")"
	}
	return "(" + f.Args[0].String() + " " + f.Op + " " + f.Args[1].String() + ")"
}

// atoms adds every atom instance of f (v replaced by 0, 1, 2) to out.
func (f *Formula) atoms(out map[string]bool) {
	if f.Op == "atom" {
		if strings.Contains(" "+f.Atom+" ", " v ") {
			for v := 0; v < 3; v++ {
				out[AtomInstance(f.Atom, v)] = true
			}
		} else {
			out[f.Atom] = true
		}
	}
	for _, a := range f.Args {
		a.atoms(out)
	}
}

// AtomInstance returns the atom a of a [Formula] with v replaced by the
// value v (a itself when it does not read v).
func AtomInstance(a string, v int) string {
	return strings.ReplaceAll(" "+a+" ", " v ", " "+strconv.Itoa(v)+" ")[1 : len(a)+1]
}

const pastBase = `spec Past
type V = 0..2
var x: V
var y: V
var b: bool
var c: bool
`

func pastStmts() []string {
	return []string{
		"x := (x + 1) % 3", "y := x", "b := not b", "c := b", "x := 0", "y := (y + 2) % 3",
		"choose w in V { x := w }", "b := x == y", "c := not c", "y := ask oracle()",
		"x := if x < 2 then x + 1 else 2", "y := 2", "b := true",
	}
}

func pastGuards() []string {
	return []string{"", "b", "not c", "x < 2", "x != y", "c or b", "x < 2 and not b", "x < y", "y != 2"}
}

// past returns a spec of the Past shape.
func past(r *rand.Rand) Spec {
	f := randomPast(r, 1+r.IntN(4), false, true)
	set := map[string]bool{}
	f.atoms(set)
	var atoms []string
	all := pastAtoms()
	for _, a := range pastAtomsV() {
		for v := 0; v < 3; v++ {
			all = append(all, AtomInstance(a, v))
		}
	}
	for _, a := range all {
		if set[a] {
			atoms = append(atoms, a)
		}
	}

	var sb strings.Builder
	sb.WriteString(pastBase)
	sb.WriteString("agent oracle(): V\n")
	na := 2 + r.IntN(3)
	guards, stmts := pastGuards(), pastStmts()
	var none []string
	for i := 0; i < na; i++ {
		g := guards[r.IntN(len(guards))]
		if g != "" {
			none = append(none, "not ("+g+")")
			g = " when " + g
		} else {
			none = append(none, "false")
		}
		fmt.Fprintf(&sb, "action a%d%s {\n", i, g)
		for j := 0; j < 1+r.IntN(2); j++ {
			fmt.Fprintf(&sb, "  %s\n", stmts[r.IntN(len(stmts))])
		}
		sb.WriteString("}\n")
	}
	if r.IntN(2) == 0 {
		sb.WriteString("init { choose w in V { y := w } }\n")
	}
	base := sb.String()
	fmt.Fprintf(&sb, "invariant Probe: %s or not %s\n", f, f)
	for i, a := range atoms {
		fmt.Fprintf(&sb, "invariant A%d: (%s) or not (%s)\n", i, a, a)
	}
	return Spec{Source: sb.String(), Base: base, Stuck: strings.Join(none, " and "), Formula: f, Atoms: atoms}
}
