package quant_test

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
)

// symmetricRuns loads testdata/symmetric_runs.wrap with K runs.
func symmetricRuns(t *testing.T, k int64) *spec.Model {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "symmetric_runs.wrap"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile("symmetric_runs.wrap", src, spec.Options{Defines: map[string]int64{"K": k}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// values lists every value of res exactly, by name: the min and max of
// each query and expected cost, their boxes (infinity as "inf"), and
// the ranges of the sensitivity.
func values(res *quant.Result) []string {
	str := func(r *big.Rat, inf bool) string {
		switch {
		case inf:
			return "inf"
		case r == nil:
			return "-"
		}
		return r.RatString()
	}
	var out []string
	for _, q := range res.Queries {
		v := fmt.Sprintf("%s %s %s", q.Query.Name, str(q.Min, false), str(q.Max, false))
		if q.Box != nil {
			v += fmt.Sprintf(" box %s %s", str(q.Box.Lo, false), str(q.Box.Hi, false))
		}
		for _, s := range q.Sensitivity {
			v += fmt.Sprintf(" %s:%s %s", s.Rate.Pos, str(s.Box.Lo, false), str(s.Box.Hi, false))
		}
		out = append(out, v)
	}
	for _, e := range res.Expectations {
		v := fmt.Sprintf("%s %s %s", e.Expectation.Name, str(e.Min, e.MinInf), str(e.Max, e.MaxInf))
		if e.Box != nil {
			v += fmt.Sprintf(" box %s %s", str(e.Box.Lo, e.BoxLoInf), str(e.Box.Hi, e.BoxHiInf))
		}
		for _, s := range e.Sensitivity {
			v += fmt.Sprintf(" %s:%s %s", s.Rate.Pos, str(s.Box.Lo, s.LoInf), str(s.Box.Hi, s.HiInf))
		}
		out = append(out, v)
	}
	return out
}

// checkSymmetry computes the queries of m (only, when not empty) with and
// without symmetry reduction and compares every value exactly; it
// returns the state counts.
func checkSymmetry(t *testing.T, m *spec.Model, opts quant.Options) (sym, full int) {
	t.Helper()
	canon, notes, err := reduce.ForQuant(m)
	if err != nil || canon == nil || len(notes) > 0 {
		t.Fatalf("ForQuant: %v, %v, notes %q", canon, err, notes)
	}
	plain, err := quant.Check(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Canon = canon.Func()
	reduced, err := quant.Check(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reduced.Stats.Symmetry || plain.Stats.Symmetry {
		t.Errorf("Stats.Symmetry: %v with the hook, %v without", reduced.Stats.Symmetry, plain.Stats.Symmetry)
	}
	if w, g := values(plain), values(reduced); !slices.Equal(w, g) {
		t.Errorf("values differ:\nwithout symmetry %q\nwith symmetry    %q", w, g)
	}
	return reduced.Stats.States, plain.Stats.States
}

// binomial returns n choose k.
func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// TestSymmetry checks symmetry reduction on K interchangeable runs of the
// gate (testdata/symmetric_runs.wrap: exact rates and a count, a chaotic
// executor, the interleaving): every probability, expected cost, range
// over the counts and sensitivity is the same, exactly, with and without
// it; the runs being independent, the states are S^K without it (S the
// states of one run) and the multisets of K of them, C(S+K-1, K), with
// it; the witnesses under symmetry replay as real runs.
func TestSymmetry(t *testing.T) {
	res, err := quant.Check(context.Background(), symmetricRuns(t, 1), quant.Options{})
	if err != nil {
		t.Fatal(err)
	}
	one := res.Stats.States
	if one != 29 {
		t.Fatalf("one run: %d states, want 29", one)
	}
	sym, full := checkSymmetry(t, symmetricRuns(t, 2), quant.Options{Sensitivity: true})
	if full != one*one || sym != binomial(one+1, 2) {
		t.Errorf("K=2: %d states with symmetry, %d without; want %d and %d", sym, full, binomial(one+1, 2), one*one)
	}
}

// TestSymmetryThree is TestSymmetry with three runs, on the queries that
// exact mode solves within its limit once raised (24389 states without
// symmetry: about 10 s on one machine, where symmetry's 4495 take 2).
func TestSymmetryThree(t *testing.T) {
	testenv.Slow(t, "exact solution of 24389 states")
	sym, full := checkSymmetry(t, symmetricRuns(t, 3), quant.Options{MaxExact: 30000, Only: []string{"AnyCaveat", "TwoStopped", "CaveatSoon", "Calls"}})
	if full != 29*29*29 || sym != binomial(31, 3) {
		t.Errorf("K=3: %d states with symmetry, %d without; want %d and %d", sym, full, binomial(31, 3), 29*29*29)
	}
}

// TestSymmetryWitness checks that a witness under symmetry is a run of
// the spec: its first state an initial state, each later state a
// successor of the one before by the step's action and answers; and that
// the path's probability is the product of its steps'.
func TestSymmetryWitness(t *testing.T) {
	m := symmetricRuns(t, 2)
	canon, _, err := reduce.ForQuant(m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{Canon: canon.Func(), Witness: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mach := p.NewMachine()
	mach.RecordAnswers(true)
	paths := 0
	for _, q := range res.Queries {
		for _, w := range []*quant.Witness{q.MinWitness, q.MaxWitness} {
			if w == nil || !w.Orbits {
				t.Fatalf("%s: witness %+v, want one over orbits", q.Query.Name, w)
			}
			if len(w.Steps) == 0 {
				continue
			}
			paths++
			prod := big.NewRat(1, 1)
			for _, s := range w.Steps {
				prod.Mul(prod, s.Prob)
			}
			if prod.Cmp(w.Prob) != 0 {
				t.Errorf("%s: path %s, steps' product %s", q.Query.Name, w.Prob.RatString(), prod.RatString())
			}
			slots := make([]int64, len(m.Slots))
			found := false
			if err := mach.Init(func(_ int, st machine.State) {
				p.Unpack(slots, st)
				found = found || slices.Equal(slots, w.Steps[0].State)
			}); err != nil {
				t.Fatal(err)
			}
			vec := make(machine.State, p.Words())
			for i := 1; found && i < len(w.Steps); i++ {
				p.Pack(vec, w.Steps[i-1].State)
				found = false
				next := w.Steps[i]
				if err := mach.Successors(vec, func(a, _ int, st machine.State) {
					p.Unpack(slots, st)
					found = found || a == next.Action && slices.Equal(slots, next.State) && machine.AnswersInclude(mach.Asked(), next.Asked)
				}); err != nil {
					t.Fatal(err)
				}
				if !found {
					t.Errorf("%s: step %d of the witness is no successor of step %d", q.Query.Name, i, i-1)
				}
			}
			if len(w.Steps) > 0 && !found {
				t.Errorf("%s: the witness is not a run", q.Query.Name)
			}
		}
	}
	if paths == 0 {
		t.Error("no witness has a path")
	}
}
