package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// refResult is what the reference search computes.
type refResult struct {
	Verdict     string
	States      int64
	Transitions int64
	Kind        string
	Trace       [][]int64 // states; for a failure, the failing state last
}

// referenceBFS is a deliberately simple sequential BFS over the public
// Machine API with a Go map as the visited set: the differential oracle
// for the parallel engine (store, keys, frontier order, level handling).
func referenceBFS(t *testing.T, m *spec.Model, noDeadlock bool) refResult {
	p, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mach := p.NewMachine()
	var invs []*machine.Pred
	for _, inv := range m.Invariants {
		pr, err := p.CompileExpr(inv.Expr)
		if err != nil {
			t.Fatal(err)
		}
		invs = append(invs, pr)
	}
	var term *machine.Pred
	if m.Terminal != nil {
		term, _ = p.CompileExpr(m.Terminal)
	}
	key := func(s machine.State) string { return fmt.Sprint(s) }
	seen := map[string]int{}
	var states []machine.State
	var parent []int
	unpack := func(s machine.State) []int64 {
		u := make([]int64, p.Slots())
		p.Unpack(u, s)
		return u
	}
	path := func(i int) [][]int64 {
		var out [][]int64
		for ; i >= 0; i = parent[i] {
			out = append([][]int64{unpack(states[i])}, out...)
		}
		return out
	}
	// bad reports whether state i violates an invariant (or fails one).
	bad := func(i int) (string, bool) {
		for _, pr := range invs {
			v, err := mach.Eval(pr, states[i])
			if err != nil {
				return "runtime-error", true
			}
			if v == 0 {
				return "invariant", true
			}
		}
		return "", false
	}
	var frontier []int
	add := func(s machine.State, from int) (int, bool) {
		k := key(s)
		if i, ok := seen[k]; ok {
			return i, false
		}
		seen[k] = len(states)
		states = append(states, append(machine.State(nil), s...))
		parent = append(parent, from)
		return len(states) - 1, true
	}
	// A failing branch makes no state and is a violation; the other
	// branches still make theirs. Among the violations of one length, the
	// first in (state, ordinal) order is reported; a successor emitted
	// before the state's first failure (ordinal mach.FailOrdinal()) comes
	// before it, one emitted after it comes after it.
	var found *refResult
	badFirst := -1 // init branch of the first bad initial state
	initErr := mach.Init(func(b int, s machine.State) {
		if i, isNew := add(s, -1); isNew {
			frontier = append(frontier, i)
			if k, ok := bad(i); ok && found == nil {
				found = &refResult{Verdict: "violated", Kind: k, Trace: path(i)}
				badFirst = b
			}
		}
	})
	if initErr != nil && (found == nil || mach.FailOrdinal() < badFirst) {
		found = &refResult{Verdict: "violated", Kind: initErr.(*machine.ExecError).Kind.String(), Trace: [][]int64{nil}}
	}
	var trans int64
	for len(frontier) > 0 {
		var next []int
		deadlock := -1
		var first *refResult // the level's first failure or bad new state
		for _, i := range frontier {
			n := 0
			var badAt int // visit index of the state's first bad successor
			var badRes *refResult
			err := mach.Successors(states[i], func(_, _ int, s machine.State) {
				trans++
				j, isNew := add(s, i)
				if isNew {
					next = append(next, j)
					if k, ok := bad(j); ok && badRes == nil {
						badAt, badRes = n, &refResult{Verdict: "violated", Kind: k, Trace: path(j)}
					}
				}
				n++
			})
			ev := badRes
			if err != nil {
				if ev == nil || badAt >= mach.FailOrdinal() {
					ev = &refResult{Verdict: "violated", Kind: err.(*machine.ExecError).Kind.String(), Trace: append(path(i), nil)} // the failing step; state compared by length only
				}
			} else if n == 0 && !noDeadlock && deadlock < 0 {
				isTerm := false
				if term != nil {
					v, _ := mach.Eval(term, states[i])
					isTerm = v != 0
				}
				if !isTerm {
					deadlock = i
				}
			}
			if first == nil {
				first = ev
			}
		}
		if found == nil {
			switch {
			case deadlock >= 0:
				found = &refResult{Verdict: "violated", Kind: "deadlock", Trace: path(deadlock)}
			case first != nil:
				found = first
			}
		}
		frontier = next
	}
	if found != nil {
		found.States, found.Transitions = int64(len(states)), trans
		return *found
	}
	return refResult{Verdict: "holds", States: int64(len(states)), Transitions: trans}
}

func engineResult(m *spec.Model, r *Result) refResult {
	out := refResult{Verdict: r.Verdict.String(), States: r.Stats.States, Transitions: r.Stats.Transitions}
	if v := r.Violation; v != nil {
		out.Kind = v.Kind.String()
		for _, s := range v.Trace {
			out.Trace = append(out.Trace, s.State)
		}
		if (v.Kind == Assertion || v.Kind == RuntimeError) && !isInvariant(m, v.Name) {
			out.Trace[len(out.Trace)-1] = nil // the failing step: compared by position only
		}
	}
	return out
}

func isInvariant(m *spec.Model, name string) bool {
	for _, inv := range m.Invariants {
		if inv.Name == name {
			return true
		}
	}
	return false
}

// richModel builds a random model with counters, a set, a record, an
// agent with an assumption, choose, if and assert.
func richModel(r *rand.Rand) *spec.Model {
	b := newBuilder("rich")
	abc := enumT("a", "b", "c")
	var ints []*spec.Expr
	for i := range 1 + r.IntN(3) {
		ints = append(ints, b.global(fmt.Sprintf("v%d", i), rangeT(0, int64(1+r.IntN(4)))))
	}
	set := b.global("s", setT(abc))
	rec := b.global("r", recordT([]string{"f", "g"}, boolT, rangeT(0, 2)))
	anInt := func() *spec.Expr { return ints[r.IntN(len(ints))] }
	ag := b.agent("ag", recordT([]string{"ok", "e"}, boolT, abc), []*spec.Type{setT(abc)},
		func(res *spec.Expr, ps []*spec.Expr) *spec.Expr {
			// an ok answer names an element of the parameter
			return implies(field(res, "ok"), &spec.Expr{Op: spec.OpIn, Type: boolT, Args: []*spec.Expr{field(res, "e"), ps[0]}})
		})
	b.local(0, recordT([]string{"ok", "e"}, boolT, abc)) // ask result
	for a := range 2 + r.IntN(4) {
		x := anInt()
		var guard *spec.Expr
		if r.IntN(3) > 0 {
			guard = lt(x, num(x.Type.Hi))
		}
		var body []*spec.Stmt
		switch r.IntN(6) {
		case 0:
			body = append(body, assign(x, add(x, num(1))))
		case 1:
			y := b.local(2, rangeT(0, 2))
			body = append(body, choose(2, abc, ne(y, num(int64(r.IntN(3)))),
				assign(set, bin(spec.OpUnion, set.Type, set, setLit(set.Type, cnst(abc, 0), y)))))
		case 2:
			res := &spec.Expr{Op: spec.OpLocal, Type: b.m.Agents[ag].Result, Slot: 0}
			body = append(body, askLet(0, ag, set),
				ifElse(field(res, "ok"), []*spec.Stmt{assign(field(rec, "f"), tru())}, []*spec.Stmt{assign(field(rec, "g"), mod(add(field(rec, "g"), num(1)), num(3)))}))
		case 3:
			body = append(body, assign(x, add(anInt(), num(1))))
		case 4:
			body = append(body, ifElse(field(rec, "f"), []*spec.Stmt{assign(set, setLit(set.Type))}, []*spec.Stmt{assign(field(rec, "f"), tru()), assign(x, num(0))}))
		case 5:
			body = append(body, assign(field(rec, "g"), add(field(rec, "g"), num(1))))
		}
		if r.IntN(8) == 0 {
			body = append(body, assert(ne(card(set), num(3)), "full"))
		}
		b.action(fmt.Sprintf("a%d", a), guard, body...)
	}
	if r.IntN(2) == 0 {
		b.invariant("Inv", implies(field(rec, "f"), lt(card(set), num(int64(2+r.IntN(2))))))
	}
	if r.IntN(2) == 0 {
		b.m.Terminal = eq(anInt(), num(0))
	}
	return b.build()
}

func TestReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	gens := []func(*rand.Rand) *spec.Model{randomModel, richModel}
	kinds := map[string]int{}
	defer func() { t.Logf("outcomes: %v", kinds) }()
	for i := range 400 {
		m := gens[i%2](r)
		noDL := r.IntN(3) == 0
		want := referenceBFS(t, m, noDL)
		for _, workers := range []int{1, 3} {
			res, err := run(context.Background(), m, Options{Workers: workers, NoDeadlock: noDL, Continue: true}, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := engineResult(m, res)
			kinds[got.Verdict+" "+got.Kind]++
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("model %d, workers %d (-reference +engine):\n%s", i, workers, diff)
			}
		}
	}
}

// FuzzCheck builds a random model from the fuzzer's seed and checks that
// 1 and 4 workers give the same Result (outcome, stats and violation) as
// each other and as the reference search.
func FuzzCheck(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*7+1, i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64, rich bool) {
		r := rand.New(rand.NewPCG(s1, s2))
		var m *spec.Model
		if rich {
			m = richModel(r)
		} else {
			m = randomModel(r)
		}
		want := referenceBFS(t, m, false)
		var first *Result
		for _, workers := range []int{1, 4} {
			res, err := run(context.Background(), m, Options{Workers: workers, Continue: true}, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := engineResult(m, res)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("workers %d (-reference +engine):\n%s", workers, diff)
			}
			if first == nil {
				first = res
				continue
			}
			if diff := cmp.Diff(first.Violation, res.Violation); diff != "" {
				t.Fatalf("violation, workers 1 vs 4 (-w1 +w4):\n%s", diff)
			}
		}
	})
}
