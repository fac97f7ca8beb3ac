package checker

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/gen"
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

func TestReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	shapes := []gen.ModelShape{gen.Counters, gen.Rich}
	kinds := map[string]int{}
	defer func() { t.Logf("outcomes: %v", kinds) }()
	for i := range 400 {
		m := gen.GenerateModel(r, shapes[i%2])
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
		shape := gen.Counters
		if rich {
			shape = gen.Rich
		}
		m := gen.GenerateModel(r, shape)
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
