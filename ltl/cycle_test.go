package ltl

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// searchModes are the option sets the incremental cycle search is
// compared in: the default checkpoints, a checkpoint after every few
// expanded nodes (most searches start from a few new nodes), without
// the filter (every product, also those without fairness, searched
// incrementally) and with the successor lists computed again.
var searchModes = []struct {
	name string
	opts Options
}{
	{"plain", Options{}},
	{"early", Options{firstCheck: 1}},
	{"early-nofilter", Options{firstCheck: 2, filter: filterOff}},
	{"nofilter", Options{filter: filterOff}},
	{"recompute", Options{recompute: true, firstCheck: 3}},
}

// searchDiff compares the check of every property of m with every cycle
// search starting from every expanded node (fullSearch) and with each
// starting from the nodes expanded since the last one: verdicts, counts,
// fair SCCs, lassos and traces byte for byte.
func searchDiff(t *testing.T, name string, m *spec.Model, extra Options) {
	t.Helper()
	for _, mode := range searchModes {
		opts := mode.opts
		opts.MaxStates = extra.MaxStates
		opts.Symmetry = extra.Symmetry
		full := opts
		full.fullSearch = true
		if diff := cmp.Diff(checkAll(t, m, full), checkAll(t, m, opts)); diff != "" {
			t.Errorf("%s, %s: full and incremental cycle searches (-want +got):\n%s", name, mode.name, diff)
		}
	}
}

// TestSearchRandomSystems compares the full and the incremental cycle
// searches on random small systems with random formulas and weak and
// strong fairness.
func TestSearchRandomSystems(t *testing.T) {
	n := 300
	if testenv.Short(t) {
		n = 80
	}
	eachRandomSystem(t, n, 29, func(name string, m *spec.Model) { searchDiff(t, name, m, Options{}) })
}

// TestSearchRandomSpecs compares the full and the incremental cycle
// searches on the random temporal specs (processes, fairness, symmetric
// types, with and without symmetry reduction).
func TestSearchRandomSpecs(t *testing.T) {
	n := 24
	if testenv.Short(t) {
		n = 8
	}
	eachRandomSpec(n, func(name string, m *spec.Model) {
		searchDiff(t, name, m, Options{})
		searchDiff(t, name+", symmetry", m, Options{Symmetry: true})
	})
}

// TestSearchExamples compares the full and the incremental cycle searches
// on every example property.
func TestSearchExamples(t *testing.T) {
	for i, ex := range exampleProperties(t) {
		if testenv.Short(t) && i%3 != 0 {
			continue
		}
		searchDiff(t, ex.file, ex.model, Options{MaxStates: 100000})
	}
}

// TestSCCSums checks the sums the depth-first search gives each SCC
// (tarjan's sccSum: an edge inside, the acceptance sets and the units of
// the edges inside) against the SCC's edges read again, on the products
// of random systems and random specs, the search started from every node
// and from the later half.
func TestSCCSums(t *testing.T) {
	sccs, inside := 0, 0
	compare := func(name string, pr *product) {
		for _, from := range []int{0, pr.expanded() / 2} {
			c := newCycleSearch(pr)
			c.from = from
			c.tarjan(nil, 1, func(comp []uint32, st int32, sum *sccSum) {
				sccs++
				want := sccSum{taken: make([]uint64, c.uw)}
				for _, v := range comp {
					for _, e := range pr.appendEdges(nil, v) {
						if !c.inComp(e.to, st) {
							continue
						}
						want.inside = true
						want.acc |= e.acc
						if e.act >= 0 {
							for k := range want.taken {
								want.taken[k] |= pr.sys.actionUnits[int(e.act)*c.uw+k]
							}
						}
					}
				}
				if want.inside {
					inside++
				}
				got := sccSum{inside: sum.inside, acc: sum.acc, taken: append(make([]uint64, 0, c.uw), sum.taken...)}
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(sccSum{})); diff != "" {
					t.Fatalf("%s: SCC %v (from %d): sums (-want +got):\n%s", name, comp, from, diff)
				}
			})
		}
	}
	n := 200
	if testenv.Short(t) {
		n = 60
	}
	eachRandomSystem(t, n, 31, func(name string, m *spec.Model) {
		if _, err := Check(context.Background(), m, Options{filter: filterOff, onProduct: func(pr *product) { compare(name, pr) }}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	})
	eachRandomSpec(8, func(name string, m *spec.Model) {
		if _, err := Check(context.Background(), m, Options{filter: filterOff, onProduct: func(pr *product) { compare(name, pr) }}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	})
	if sccs < 300 || inside < 100 {
		t.Fatalf("%d SCCs compared, %d with an edge inside", sccs, inside)
	}
}
