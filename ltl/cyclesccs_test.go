package ltl

import (
	"context"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// cycleSCCsOracle is Automaton.CycleSCCs by its definition: state q's
// component is the states q reaches that reach q, and q may hold an
// accepting cycle when an edge between two of them exists and those
// edges take every acceptance set. It returns, per state, whether it
// may, and per pair, whether the two share a component.
func cycleSCCsOracle(a *Automaton) (may []bool, same [][]bool) {
	n := len(a.States)
	reach := make([][]bool, n) // reach[q][r]: a path of length >= 0
	for q := range reach {
		reach[q] = make([]bool, n)
		reach[q][q] = true
		for _, e := range a.States[q].Edges {
			reach[q][e.To] = true
		}
	}
	for k := range n {
		for q := range n {
			for r := range n {
				reach[q][r] = reach[q][r] || reach[q][k] && reach[k][r]
			}
		}
	}
	may, same = make([]bool, n), make([][]bool, n)
	for q := range n {
		same[q] = make([]bool, n)
		for r := range n {
			same[q][r] = reach[q][r] && reach[r][q]
		}
		inner, acc := false, uint64(0)
		for x, s := range a.States {
			for _, e := range s.Edges {
				if same[q][x] && same[q][e.To] {
					inner, acc = true, acc|e.Acc
				}
			}
		}
		may[q] = inner && acc == a.AllAcc()
	}
	return may, same
}

// TestCycleSCCs compares Automaton.CycleSCCs with its definition on the
// automata of random formulas, and asks for some that leave states out
// and some that do not.
func TestCycleSCCs(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	left, whole := 0, 0
	for k := 0; k < 400; k++ {
		r := randFormula(rng, 2+rng.Intn(2), 1+rng.Intn(5))
		a, err := translate(r.formula(), newBudget(context.Background(), 0), false)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		scc, all := a.CycleSCCs()
		may, same := cycleSCCsOracle(a)
		gotAll := true
		for q := range a.States {
			if (scc[q] >= 0) != may[q] {
				t.Fatalf("%s: state %d: component %d, want one: %v\n%s", r, q, scc[q], may[q], a)
			}
			gotAll = gotAll && may[q]
			for w := range a.States {
				if scc[q] >= 0 && scc[w] >= 0 && (scc[q] == scc[w]) != same[q][w] {
					t.Fatalf("%s: states %d and %d: components %d and %d, want the same: %v\n%s", r, q, w, scc[q], scc[w], same[q][w], a)
				}
			}
		}
		if all != gotAll {
			t.Fatalf("%s: all = %v, want %v\n%s", r, all, gotAll, a)
		}
		if all {
			whole++
		} else {
			left++
		}
	}
	t.Logf("%d automata leave states out, %d do not", left, whole)
	if left == 0 || whole == 0 {
		t.Errorf("%d automata leave states out, %d do not: want some of each", left, whole)
	}
}

// cycleDiff compares the check of the properties of m, all in one call,
// with every node in the filter and the cycle search and with those on no
// accepting cycle by their automaton state left out: verdicts, counts,
// lassos and traces byte for byte. It returns the number of products
// that left nodes out.
func cycleDiff(t *testing.T, name string, m *spec.Model, extra Options) int {
	t.Helper()
	plain := extra
	plain.noCycleSCCs = true
	left := 0
	counted := extra
	counted.onProduct = func(pr *product) {
		if pr.cyc != nil {
			left++
		}
	}
	if diff := cmp.Diff(checkTogether(t, m, plain, nil), checkTogether(t, m, counted, nil)); diff != "" {
		t.Errorf("%s: every node searched and the automaton's components' alone (-want +got):\n%s", name, diff)
	}
	return left
}

// TestCycleSCCsExamples compares the check with and without the nodes
// left out by their automaton state on every example property, with the
// filter and without it, and asks that some products left nodes out.
func TestCycleSCCsExamples(t *testing.T) {
	left := 0
	for i, ex := range exampleProperties(t) {
		if testenv.Short(t) && i%3 != 0 {
			continue
		}
		left += cycleDiff(t, ex.file, ex.model, Options{MaxStates: 200000})
		left += cycleDiff(t, ex.file+" (filter off)", ex.model, Options{MaxStates: 200000, filter: filterOff})
		left += cycleDiff(t, ex.file+" (filter on)", ex.model, Options{MaxStates: 200000, filter: filterOn})
	}
	t.Logf("%d products left nodes out", left)
	if left == 0 {
		t.Error("no product left a node out")
	}
}

// TestCycleSCCsRandom compares the check with and without the nodes left
// out by their automaton state on random small systems (random formulas
// and fairness), also with early checkpoints and with the filter forced
// on and off, with the successor lists computed again (a memory
// budget's) and under hash compaction, and on random temporal specs, also
// with the reductions.
func TestCycleSCCsRandom(t *testing.T) {
	n, specs := 300, 40
	if testenv.Short(t) {
		n, specs = 80, 12
	}
	left := 0
	eachRandomSystem(t, n, 47, func(name string, m *spec.Model) {
		left += cycleDiff(t, name, m, Options{})
		left += cycleDiff(t, name+" (first check 1)", m, Options{firstCheck: 1})
		left += cycleDiff(t, name+" (first check 1, filter off)", m, Options{firstCheck: 1, filter: filterOff})
		left += cycleDiff(t, name+" (first check 1, filter on)", m, Options{firstCheck: 1, filter: filterOn})
		left += cycleDiff(t, name+" (lists computed again)", m, Options{recompute: true})
		left += cycleDiff(t, name+" (hash compaction)", m, Options{HashCompact: true})
	})
	eachRandomSpec(specs, func(name string, m *spec.Model) {
		left += cycleDiff(t, name, m, Options{MaxStates: 100000})
		left += cycleDiff(t, name+" (reduced)", m, Options{MaxStates: 100000, Symmetry: true, POR: true})
	})
	t.Logf("%d products left nodes out", left)
	if left == 0 {
		t.Error("no product left a node out")
	}
}
