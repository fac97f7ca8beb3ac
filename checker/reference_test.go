package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/oracle"
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

// referenceBFS checks m with the naive second semantics of package
// oracle (a sequential search with a Go map as the visited set, which
// shares no code with the engine): the differential reference for the
// parallel engine (store, keys, frontier order, level handling). A
// failing step's state is compared by position only, as in engineResult.
func referenceBFS(t *testing.T, m *spec.Model, noDeadlock bool) refResult {
	t.Helper()
	r, err := oracle.Check(m, oracle.Options{NoDeadlock: noDeadlock})
	if err != nil {
		t.Fatal(err)
	}
	out := refResult{Verdict: "holds", States: r.States, Transitions: r.Transitions}
	if v := r.Violation; v != nil {
		out.Verdict, out.Kind = "violated", v.Kind
		for _, s := range v.Trace {
			out.Trace = append(out.Trace, s.State)
		}
		if (v.Kind == "assertion" || v.Kind == "runtime-error") && !isInvariant(m, v.Name) {
			out.Trace[len(out.Trace)-1] = nil
		}
	}
	return out
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
