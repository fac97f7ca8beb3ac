package oracle

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// This file tests the past-time operators against their definitions:
// random specs, a random past-time formula F, and
//
//   - on random walks, F as the engine computes it (from the monitors in
//     the state) against F evaluated directly over the whole trace prefix
//     (once: at some j <= k; since: ψ at some j, φ at every state after);
//   - the engine's state and transition counts against a search of the
//     pairs (model state, value of every past-time subformula instance),
//     the values kept by this file's own monitor code.

// pnode is a formula of the test: an atom (a state predicate, "v" in it
// bound by the enclosing exists), a boolean connective, a past-time
// operator, or `exists v in 0..2`.
type pnode struct {
	op   string // "atom", "not", "and", "or", "once", "historically", "previously", "since", "exists"
	atom string
	args []*pnode
}

var pastAtoms = []string{"b", "c", "x == 0", "x == y", "x < y", "y == 2", "not b", "b and x == 1"}
var pastAtomsV = []string{"x == v", "y == v", "x != v", "b and y == v"}

func randomPast(r *rand.Rand, d int, inV, exists bool) *pnode {
	if d == 0 || r.IntN(5) == 0 {
		if inV && r.IntN(2) == 0 {
			return &pnode{op: "atom", atom: pastAtomsV[r.IntN(len(pastAtomsV))]}
		}
		return &pnode{op: "atom", atom: pastAtoms[r.IntN(len(pastAtoms))]}
	}
	switch k := r.IntN(10); {
	case k < 2:
		return &pnode{op: "once", args: []*pnode{randomPast(r, d-1, inV, exists)}}
	case k < 3:
		return &pnode{op: "historically", args: []*pnode{randomPast(r, d-1, inV, exists)}}
	case k < 5:
		return &pnode{op: "previously", args: []*pnode{randomPast(r, d-1, inV, exists)}}
	case k < 6:
		return &pnode{op: "since", args: []*pnode{randomPast(r, d-1, inV, exists), randomPast(r, d-1, inV, exists)}}
	case k < 7:
		return &pnode{op: "not", args: []*pnode{randomPast(r, d-1, inV, exists)}}
	case k < 8 && exists && !inV:
		return &pnode{op: "exists", args: []*pnode{randomPast(r, d, true, false)}}
	default:
		op := "and"
		if r.IntN(2) == 0 {
			op = "or"
		}
		return &pnode{op: op, args: []*pnode{randomPast(r, d-1, inV, exists), randomPast(r, d-1, inV, exists)}}
	}
}

func (n *pnode) String() string {
	switch n.op {
	case "atom":
		return "(" + n.atom + ")"
	case "not", "once", "historically", "previously":
		return "(" + n.op + " " + n.args[0].String() + ")"
	case "exists":
		return "(exists v in V: " + n.args[0].String() + ")"
	}
	return "(" + n.args[0].String() + " " + n.op + " " + n.args[1].String() + ")"
}

// atoms lists every atom instance of n (v replaced by 0, 1, 2).
func (n *pnode) atoms(out map[string]bool) {
	if n.op == "atom" {
		if strings.Contains(" "+n.atom+" ", " v ") {
			for v := 0; v < 3; v++ {
				out[instAtom(n.atom, v)] = true
			}
		} else {
			out[n.atom] = true
		}
	}
	for _, a := range n.args {
		a.atoms(out)
	}
}

func instAtom(a string, v int) string {
	return strings.ReplaceAll(" "+a+" ", " v ", " "+strconv.Itoa(v)+" ")[1 : len(a)+1]
}

// direct evaluates n at step k of a trace by the definitions; atom(a, j)
// is the atom instance a at step j.
func (n *pnode) direct(k, v int, atom func(a string, j int) bool) bool {
	switch n.op {
	case "atom":
		return atom(instAtom(n.atom, v), k)
	case "not":
		return !n.args[0].direct(k, v, atom)
	case "and":
		return n.args[0].direct(k, v, atom) && n.args[1].direct(k, v, atom)
	case "or":
		return n.args[0].direct(k, v, atom) || n.args[1].direct(k, v, atom)
	case "exists":
		for c := 0; c < 3; c++ {
			if n.args[0].direct(k, c, atom) {
				return true
			}
		}
		return false
	case "once":
		for j := 0; j <= k; j++ {
			if n.args[0].direct(j, v, atom) {
				return true
			}
		}
		return false
	case "historically":
		for j := 0; j <= k; j++ {
			if !n.args[0].direct(j, v, atom) {
				return false
			}
		}
		return true
	case "previously":
		return k > 0 && n.args[0].direct(k-1, v, atom)
	case "since":
		for j := k; j >= 0; j-- {
			if n.args[1].direct(j, v, atom) {
				return true
			}
			if !n.args[0].direct(j, v, atom) {
				return false
			}
		}
		return false
	}
	panic("bad node " + n.op)
}

// step computes the values of n's past-time instances at a new state from
// their values at the previous one (prev nil: the initial state), into
// cur, and returns n's value.
func (n *pnode) step(id *int, v int, prev, cur map[string]bool, atom func(string) bool) bool {
	my := *id
	*id++
	key := strconv.Itoa(my) + "/" + strconv.Itoa(v)
	switch n.op {
	case "atom":
		return atom(instAtom(n.atom, v))
	case "not":
		return !n.args[0].step(id, v, prev, cur, atom)
	case "and", "or":
		a := n.args[0].step(id, v, prev, cur, atom)
		b := n.args[1].step(id, v, prev, cur, atom)
		if n.op == "and" {
			return a && b
		}
		return a || b
	case "exists":
		start := *id
		any := false
		for c := 0; c < 3; c++ {
			*id = start
			if n.args[0].step(id, c, prev, cur, atom) {
				any = true
			}
		}
		return any
	case "previously":
		now := n.args[0].step(id, v, prev, cur, atom)
		cur["now:"+key] = now // a function of the state: no new pairs
		val := prev != nil && prev["now:"+key]
		cur[key] = val
		return val
	case "once", "historically":
		a := n.args[0].step(id, v, prev, cur, atom)
		val := a
		if prev != nil {
			if n.op == "once" {
				val = a || prev[key]
			} else {
				val = a && prev[key]
			}
		}
		cur[key] = val
		return val
	case "since":
		a := n.args[0].step(id, v, prev, cur, atom)
		b := n.args[1].step(id, v, prev, cur, atom)
		val := b
		if prev != nil {
			val = b || (a && prev[key])
		}
		cur[key] = val
		return val
	}
	panic("bad node " + n.op)
}

const pastBase = `spec Past
type V = 0..2
var x: V
var y: V
var b: bool
var c: bool
`

var pastStmts = []string{
	"x := (x + 1) % 3", "y := x", "b := not b", "c := b", "x := 0", "y := (y + 2) % 3",
	"choose w in V { x := w }", "b := x == y", "c := not c", "y := ask oracle()",
	"x := if x < 2 then x + 1 else 2", "y := 2", "b := true",
}

var pastGuards = []string{"", "b", "not c", "x < 2", "x != y", "c or b", "x < 2 and not b", "x < y", "y != 2"}

// randomPastSpec returns a random spec with the probe invariants, the
// spec without them (model), and the condition that no action is enabled.
func randomPastSpec(r *rand.Rand, f *pnode, atoms []string) (src, model, stuck string) {
	var sb strings.Builder
	sb.WriteString(pastBase)
	sb.WriteString("agent oracle(): V\n")
	na := 2 + r.IntN(3)
	var none []string
	for i := 0; i < na; i++ {
		g := pastGuards[r.IntN(len(pastGuards))]
		if g != "" {
			none = append(none, "not ("+g+")")
			g = " when " + g
		} else {
			none = append(none, "false")
		}
		fmt.Fprintf(&sb, "action a%d%s {\n", i, g)
		for j := 0; j < 1+r.IntN(2); j++ {
			fmt.Fprintf(&sb, "  %s\n", pastStmts[r.IntN(len(pastStmts))])
		}
		sb.WriteString("}\n")
	}
	if r.IntN(2) == 0 {
		sb.WriteString("init { choose w in V { y := w } }\n")
	}
	model = sb.String()
	fmt.Fprintf(&sb, "invariant Probe: %s or not %s\n", f, f)
	for i, a := range atoms {
		fmt.Fprintf(&sb, "invariant A%d: (%s) or not (%s)\n", i, a, a)
	}
	return sb.String(), model, strings.Join(none, " and ")
}

// checkPastProperty checks that `property L: always F` (where a state
// without enabled action repeats, its monitors moving on) has the verdict
// of `invariant L: F` in the spec where that repetition is an explicit
// action, enabled exactly when no other action is.
func checkPastProperty(t *testing.T, name, model, stuck string, f *pnode) {
	t.Helper()
	checkPastAlways(t, name, model, stuck, f.String())
	checkPastAlways(t, name, model, stuck, "not "+f.String())
}

func checkPastAlways(t *testing.T, name, model, stuck, f string) {
	t.Helper()
	prop := model + fmt.Sprintf("property L: always %s\n", f)
	inv := model + fmt.Sprintf("action stutter when %s { skip }\ninvariant L: %s\n", stuck, f)
	verdict := func(src string, opts verify.Options) string {
		m, err := spec.ParseFile("past.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		opts.NoDeadlock = true
		res, err := verify.Run(context.Background(), m, opts)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		return res.Verdict.String()
	}
	for _, opts := range []verify.Options{{NoSymmetry: true, NoPOR: true, Workers: 1}, {Workers: 2}} {
		want, got := verdict(inv, opts), verdict(prop, opts)
		if want != got {
			t.Errorf("%s: always %s: property %s, invariant with an explicit stutter action %s\n%s", name, f, got, want, prop)
			return
		}
	}
}

func TestPastTimeOracle(t *testing.T) {
	seed, n := uint64(15), 150
	if v := os.Getenv("WRAPCHECK_ORACLE_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
		n = 1500
	}
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range n {
		f := randomPast(r, 1+r.IntN(4), false, true)
		set := map[string]bool{}
		f.atoms(set)
		var atoms []string
		for _, a := range append(append([]string(nil), pastAtoms...), atomsV()...) {
			if set[a] {
				atoms = append(atoms, a)
			}
		}
		src, model, stuck := randomPastSpec(r, f, atoms)
		name := fmt.Sprintf("past %d", i)
		m, err := spec.ParseFile("past.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		checkPastSpec(t, name, src, m, f, atoms, r)
		checkPastProperty(t, name, model, stuck, f)
		if t.Failed() {
			return
		}
	}
}

func atomsV() []string {
	var out []string
	for _, a := range pastAtomsV {
		for v := 0; v < 3; v++ {
			out = append(out, instAtom(a, v))
		}
	}
	return out
}

func checkPastSpec(t *testing.T, name, src string, m *spec.Model, f *pnode, atoms []string, r *rand.Rand) {
	t.Helper()
	p, err := machine.Compile(m)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	probe, err := p.CompileExpr(m.Invariants[0].Expr.Args[0])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	atomPred := map[string]*machine.Pred{}
	for i, a := range atoms {
		pr, err := p.CompileExpr(m.Invariants[1+i].Expr.Args[0])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		atomPred[a] = pr
	}
	mc := p.NewMachine()
	eval := func(pr *machine.Pred, s machine.State) bool {
		v, err := mc.Eval(pr, s)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		return v != 0
	}
	copyState := func(s machine.State) machine.State { return append(machine.State(nil), s...) }
	var inits []machine.State
	if err := mc.Init(func(_ int, s machine.State) { inits = append(inits, copyState(s)) }); err != nil {
		t.Fatalf("%s: %v", name, err)
	}

	// random walks: the monitors against the definitions
	for w := 0; w < 6; w++ {
		trace := []machine.State{inits[r.IntN(len(inits))]}
		for k := 0; k < 12; k++ {
			s := trace[k]
			want := f.direct(k, 0, func(a string, j int) bool { return eval(atomPred[a], trace[j]) })
			if got := eval(probe, s); got != want {
				t.Errorf("%s: %s at step %d of a walk: engine %v, definition %v\n%s", name, f, k, got, want, src)
				return
			}
			var succ []machine.State
			if err := mc.Successors(s, func(_, _ int, t machine.State) { succ = append(succ, copyState(t)) }); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(succ) == 0 {
				break
			}
			trace = append(trace, succ[r.IntN(len(succ))])
		}
	}

	// a search of (model state, this file's monitor values)
	user := 0
	for _, v := range m.Vars {
		if v.Monitor == nil {
			user += v.Type.Width
		}
	}
	buf := make([]int64, len(m.Slots))
	userKey := func(s machine.State) string {
		p.Unpack(buf, s)
		return fmt.Sprint(buf[:user])
	}
	type node struct {
		s   machine.State
		mon map[string]bool
	}
	monKey := func(mon map[string]bool) string {
		var parts []string
		for k, v := range mon {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
		sort.Strings(parts)
		return strings.Join(parts, ",")
	}
	seen := map[string]bool{}
	var queue []node
	var transitions int64
	visit := func(s machine.State, prev node, first bool) {
		cur := map[string]bool{}
		id := 0
		atom := func(a string) bool { return eval(atomPred[a], s) }
		var pm map[string]bool
		if !first {
			pm = prev.mon
		}
		val := f.step(&id, 0, pm, cur, atom)
		if got := eval(probe, s); got != val {
			t.Errorf("%s: %s: engine %v, the test's monitors %v\n%s", name, f, got, val, src)
		}
		k := userKey(s) + "|" + monKey(cur)
		if !seen[k] {
			seen[k] = true
			queue = append(queue, node{s, cur})
		}
	}
	for _, s := range inits {
		visit(s, node{}, true)
	}
	for len(queue) > 0 && len(seen) < 20000 && !t.Failed() {
		nd := queue[0]
		queue = queue[1:]
		if err := mc.Successors(nd.s, func(_, _ int, t machine.State) {
			transitions++
			visit(copyState(t), nd, false)
		}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if t.Failed() || len(seen) >= 20000 {
		return
	}
	res, err := verify.Safety(context.Background(), m, verify.Options{Workers: 1, NoSymmetry: true, NoPOR: true, NoDeadlock: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	type counts struct{ States, Transitions int64 }
	if diff := cmp.Diff(counts{int64(len(seen)), transitions}, counts{res.Stats.States, res.Stats.Transitions}); diff != "" {
		t.Errorf("%s: %s: counts (-test's monitors +engine):\n%s\n%s", name, f, diff, src)
	}
	res2, err := verify.Safety(context.Background(), m, verify.Options{Workers: 3, NoDeadlock: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res2.Verdict != res.Verdict {
		t.Errorf("%s: reductions on: verdict %v, off: %v", name, res2.Verdict, res.Verdict)
	}
}
