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
	"github.com/wrapcheck/wrapcheck/internal/gen"
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

// direct evaluates n at step k of a trace by the definitions; atom(a, j)
// is the atom instance a at step j.
func direct(n *gen.Formula, k, v int, atom func(a string, j int) bool) bool {
	switch n.Op {
	case "atom":
		return atom(gen.AtomInstance(n.Atom, v), k)
	case "not":
		return !direct(n.Args[0], k, v, atom)
	case "and":
		return direct(n.Args[0], k, v, atom) && direct(n.Args[1], k, v, atom)
	case "or":
		return direct(n.Args[0], k, v, atom) || direct(n.Args[1], k, v, atom)
	case "exists":
		for c := 0; c < 3; c++ {
			if direct(n.Args[0], k, c, atom) {
				return true
			}
		}
		return false
	case "once":
		for j := 0; j <= k; j++ {
			if direct(n.Args[0], j, v, atom) {
				return true
			}
		}
		return false
	case "historically":
		for j := 0; j <= k; j++ {
			if !direct(n.Args[0], j, v, atom) {
				return false
			}
		}
		return true
	case "previously":
		return k > 0 && direct(n.Args[0], k-1, v, atom)
	case "since":
		for j := k; j >= 0; j-- {
			if direct(n.Args[1], j, v, atom) {
				return true
			}
			if !direct(n.Args[0], j, v, atom) {
				return false
			}
		}
		return false
	}
	panic("bad node " + n.Op)
}

// step computes the values of n's past-time instances at a new state from
// their values at the previous one (prev nil: the initial state), into
// cur, and returns n's value.
func step(n *gen.Formula, id *int, v int, prev, cur map[string]bool, atom func(string) bool) bool {
	my := *id
	*id++
	key := strconv.Itoa(my) + "/" + strconv.Itoa(v)
	switch n.Op {
	case "atom":
		return atom(gen.AtomInstance(n.Atom, v))
	case "not":
		return !step(n.Args[0], id, v, prev, cur, atom)
	case "and", "or":
		a := step(n.Args[0], id, v, prev, cur, atom)
		b := step(n.Args[1], id, v, prev, cur, atom)
		if n.Op == "and" {
			return a && b
		}
		return a || b
	case "exists":
		start := *id
		any := false
		for c := 0; c < 3; c++ {
			*id = start
			if step(n.Args[0], id, c, prev, cur, atom) {
				any = true
			}
		}
		return any
	case "previously":
		now := step(n.Args[0], id, v, prev, cur, atom)
		cur["now:"+key] = now // a function of the state: no new pairs
		val := prev != nil && prev["now:"+key]
		cur[key] = val
		return val
	case "once", "historically":
		a := step(n.Args[0], id, v, prev, cur, atom)
		val := a
		if prev != nil {
			if n.Op == "once" {
				val = a || prev[key]
			} else {
				val = a && prev[key]
			}
		}
		cur[key] = val
		return val
	case "since":
		a := step(n.Args[0], id, v, prev, cur, atom)
		b := step(n.Args[1], id, v, prev, cur, atom)
		val := b
		if prev != nil {
			val = b || (a && prev[key])
		}
		cur[key] = val
		return val
	}
	panic("bad node " + n.Op)
}

// checkPastProperty checks that `property L: always F` (where a state
// without enabled action repeats, its monitors moving on) has the verdict
// of `invariant L: F` in the spec where that repetition is an explicit
// action, enabled exactly when no other action is.
func checkPastProperty(t *testing.T, name, model, stuck string, f *gen.Formula) {
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
		g := gen.Generate(r, gen.Config{Shape: gen.Past})
		src, f, atoms := g.Source, g.Formula, g.Atoms
		name := fmt.Sprintf("past %d", i)
		m, err := spec.ParseFile("past.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		checkPastSpec(t, name, src, m, f, atoms, r)
		checkPastProperty(t, name, g.Base, g.Stuck, f)
		if t.Failed() {
			return
		}
	}
}

func checkPastSpec(t *testing.T, name, src string, m *spec.Model, f *gen.Formula, atoms []string, r *rand.Rand) {
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
			want := direct(f, k, 0, func(a string, j int) bool { return eval(atomPred[a], trace[j]) })
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
		val := step(f, &id, 0, pm, cur, atom)
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
