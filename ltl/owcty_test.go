package ltl

import (
	"context"
	"fmt"
	mathrand "math/rand"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// filterModes are the option sets the OWCTY differential tests run with
// and without the filter: every reduction, and cycle searches after 1, 4,
// 16, ... expanded nodes (the filter then runs on partial products).
var filterModes = append([]struct {
	name string
	opts Options
}{{"plain", Options{}}, {"early", Options{firstCheck: 1}}}, reductionModes...)

// checkAll checks every property of m on its own with opts and renders
// the results and the figures of each search (less its time and bytes).
func checkAll(t *testing.T, m *spec.Model, opts Options) string {
	t.Helper()
	var b strings.Builder
	for _, p := range m.Properties {
		o := opts
		o.Only = []string{p.Name}
		var sts []PropertyStats
		o.OnProperty = func(s PropertyStats) {
			s.Seconds, s.Bytes = 0, 0
			sts = append(sts, s)
		}
		res, err := Check(context.Background(), m, o)
		if err != nil {
			fmt.Fprintf(&b, "%s: error %v\n", p.Name, err)
			continue
		}
		res.Stats.Seconds = 0
		fmt.Fprintf(&b, "%s: %v %v %+v %q\n%+v\n%+v\n", p.Name, res.Verdict, res.Stop, res.Stats, res.Notes, res.Violation, sts)
	}
	return b.String()
}

// filterDiff compares the check of every property of m with the OWCTY
// filter and without it (the cycle search on the whole product), in
// every mode of filterModes: verdicts, counts, lassos byte for byte. The
// check without the filter keeps the system's successor lists; the one
// with the default filter computes them again (Options.recompute).
func filterDiff(t *testing.T, name string, m *spec.Model, extra Options) {
	t.Helper()
	for _, mode := range filterModes {
		opts := mode.opts
		opts.MaxStates = extra.MaxStates
		old := opts
		old.filter = filterOff
		want := checkAll(t, m, old)
		for _, fm := range []filterMode{filterAuto, filterOn} {
			opts.filter, opts.recompute = fm, fm == filterAuto
			if diff := cmp.Diff(want, checkAll(t, m, opts)); diff != "" {
				t.Errorf("%s, %s: without the filter and with it (mode %d) (-want +got):\n%s", name, mode.name, fm, diff)
			}
		}
	}
}

// TestFilterRandomSystems compares the check with and without the filter
// on random small systems with random formulas and weak and strong
// fairness (those TestRandomSystems checks against lasso enumeration).
func TestFilterRandomSystems(t *testing.T) {
	n := 400
	if testenv.Short(t) {
		n = 100
	}
	eachRandomSystem(t, n, 7, func(name string, m *spec.Model) { filterDiff(t, name, m, Options{}) })
}

// eachRandomSystem calls diff on n random small systems with random
// formulas and fairness from the given seed, stopping at the first
// failure.
func eachRandomSystem(t *testing.T, n int, seed int64, diff func(name string, m *spec.Model)) {
	t.Helper()
	rng := mathrand.New(mathrand.NewSource(seed))
	for r := range n {
		k := randSystem(rng)
		diff(fmt.Sprint("system ", r, ": ", k), k.model())
		if t.Failed() {
			return
		}
	}
}

// eachRandomSpec calls diff on the random temporal specs of seeds 0..n-1
// that have properties.
func eachRandomSpec(n int, diff func(name string, m *spec.Model)) {
	for seed := range n {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 11)), gen.Config{Shape: gen.Temporal}).Source
		m, err := spec.ParseFile("s.wrap", []byte(src), spec.Options{})
		if err != nil || len(m.Properties) == 0 {
			continue
		}
		diff(fmt.Sprint("seed ", seed), m)
	}
}

// TestFilterRandomSpecs compares the check with and without the filter on
// the random temporal specs (processes, weak and strong fairness,
// symmetric types) in every reduction mode.
func TestFilterRandomSpecs(t *testing.T) {
	n := 24
	if testenv.Short(t) {
		n = 8
	}
	eachRandomSpec(n, func(name string, m *spec.Model) { filterDiff(t, name, m, Options{}) })
}

// TestFilterExamples compares the check with and without the filter on
// every example property.
func TestFilterExamples(t *testing.T) {
	for _, ex := range exampleProperties(t) {
		filterDiff(t, ex.file, ex.model, Options{MaxStates: 200000})
	}
}

// TestFilterExact checks the filter, run to its fixpoint, against the SCCs of the product on
// random systems and specs: its remainder is empty exactly when some SCC
// holds an edge of every acceptance set and of every plain weakly fair
// unit (edges taking it or leaving a state where it is disabled), it
// holds every node of such an SCC (each lies on a cycle through all of
// it), and every node of every fair SCC the cycle search finds without
// it.
func TestFilterExact(t *testing.T) {
	n := 800
	if testenv.Short(t) {
		n = 300
	}
	empty, nonEmpty := 0, 0
	compare := func(t *testing.T, name string, pr *product) {
		t.Helper()
		f := newOWCTYFilter(pr, false)
		f.fixpoint = true
		rest := f.run()
		kept := make([]bool, pr.expanded())
		for _, v := range rest {
			kept[v] = true
		}
		c := newCycleSearch(pr)
		for _, comp := range c.search(nil) {
			for _, v := range comp {
				if !kept[v] {
					t.Fatalf("%s: node %d of a fair SCC was filtered out", name, v)
				}
			}
		}
		// Generalised Büchi emptiness by SCCs, with the filter's sets.
		g := newOWCTYFilter(pr, false)
		sets := pr.aut.NumAcc + len(g.weak)
		exists := false
		c = newCycleSearch(pr)
		c.tarjan(nil, 1, func(comp []uint32, st int32, _ *sccSum) {
			covered := make([]bool, sets)
			edges := false
			for _, v := range comp {
				cur := pr.edges(v)
				for e, ok := pr.next(&cur); ok; e, ok = pr.next(&cur) {
					if !c.inComp(e.to, st) {
						continue
					}
					edges = true
					for i := range sets {
						covered[i] = covered[i] || g.inSet(i, v, e)
					}
				}
			}
			ok := edges
			for _, x := range covered {
				ok = ok && x
			}
			exists = exists || ok
			for _, v := range comp {
				if ok && !kept[v] {
					t.Fatalf("%s: node %d of an accepting weakly fair SCC was filtered out", name, v)
				}
			}
		})
		if exists != (len(rest) > 0) {
			t.Fatalf("%s: an accepting weakly fair SCC exists: %v; the filter keeps %d nodes", name, exists, len(rest))
		}
		if exists {
			nonEmpty++
		} else {
			empty++
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for r := range n {
		k := randSystem(mathrand.New(mathrand.NewSource(int64(rng.Uint64()))))
		name := fmt.Sprint("system ", r, ": ", k)
		if _, err := Check(context.Background(), k.model(), Options{onProduct: func(pr *product) { compare(t, name, pr) }}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for seed := range n / 10 {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 11)), gen.Config{Shape: gen.Temporal}).Source
		m, err := spec.ParseFile("s.wrap", []byte(src), spec.Options{})
		if err != nil || len(m.Properties) == 0 {
			continue
		}
		for _, mode := range filterModes {
			name := fmt.Sprintf("spec seed %d, %s", seed, mode.name)
			opts := mode.opts
			opts.onProduct = func(pr *product) { compare(t, name, pr) }
			if _, err := Check(context.Background(), m, opts); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	if empty == 0 || nonEmpty == 0 {
		t.Errorf("the filter emptied %d products and kept nodes of %d: both cases must occur", empty, nonEmpty)
	}
	t.Logf("filter: %d products emptied, %d kept nodes", empty, nonEmpty)
}

// TestFilterDefault checks when the filter runs by default: on a property
// that holds without fairness, where it empties the product and the
// search keeps about what the cycle search would (PropertyStats.Bytes,
// at most 8 bytes a node more: the filter's counters and the predecessors
// counted, against the cycle search's index and depth-first path); with
// weakly fair units it is off, and the figures are those without it.
func TestFilterDefault(t *testing.T) {
	tests := []struct {
		file      string
		heartbeat int64
		filtered  bool // the filter runs by default
	}{
		{"pipeline_ltl.wrap", 0, true},
		{"pipeline_ltl_fair.wrap", 1, false},
	}
	for _, tt := range tests {
		path := "../examples/peers/" + tt.file
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(path, src, spec.Options{Defines: map[string]int64{"HEARTBEAT": tt.heartbeat}})
		if err != nil {
			t.Fatal(err)
		}
		var ran bool
		bytes := func(fm filterMode) PropertyStats {
			var st PropertyStats
			res, err := Check(context.Background(), m, Options{Only: []string{"AllRunsEnd"}, filter: fm, OnProperty: func(s PropertyStats) { st = s },
				onProduct: func(p *product) { ran = p.useFilter }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Holds {
				t.Fatalf("%s: AllRunsEnd %s, want holds", tt.file, res.Verdict)
			}
			return st
		}
		def := bytes(filterAuto)
		if ran != tt.filtered {
			t.Errorf("%s: the filter ran by default: %v, want %v", tt.file, ran, tt.filtered)
		}
		off := bytes(filterOff)
		if tt.filtered && def.Bytes > off.Bytes+8*def.ProductNodes || !tt.filtered && def.Bytes != off.Bytes {
			t.Errorf("%s: %d bytes by default, %d without the filter, %d nodes (filter by default: %v)", tt.file, def.Bytes, off.Bytes, def.ProductNodes, tt.filtered)
		}
		if def.FairSCCs != 0 || def.ProductNodes != off.ProductNodes {
			t.Errorf("%s: %d fair SCCs, %d nodes by default, %d nodes without the filter", tt.file, def.FairSCCs, def.ProductNodes, off.ProductNodes)
		}
	}
}

// TestEliminateBatches checks the elimination, whose removals are taken
// a batch at a time while the scan goes on, against removals one at a
// time from a work list, for batches of 1 to elimBatch: on random
// systems and on CoffeeCan, whose chains of removals the scan does not
// reach in order, so that batches are drained in the middle of the scan.
func TestEliminateBatches(t *testing.T) {
	batches := []int{1, 2, 5, elimBatch}
	products := 0
	compare := func(t *testing.T, name string, pr *product) {
		t.Helper()
		products++
		n := pr.expanded()
		// The set starts with the nodes whose automaton states have a
		// component (every node without pr.cyc).
		want := make([]bool, n)
		count := make([]int, n)
		var targets []uint32
		for v := range n {
			want[v] = pr.cyc == nil || pr.cycOf(uint32(v)) >= 0
		}
		for v := range n {
			for _, w := range pr.appendTargets(targets[:0], uint32(v)) {
				if want[v] && int(w) < n && want[w] {
					count[w]++
				}
			}
		}
		var work []uint32
		for v := range n {
			if want[v] && count[v] == 0 {
				work = append(work, uint32(v))
			}
		}
		for len(work) > 0 {
			v := work[len(work)-1]
			work = work[:len(work)-1]
			want[v] = false
			for _, w := range pr.appendTargets(targets[:0], v) {
				if int(w) < n && want[w] {
					if count[w]--; count[w] == 0 {
						work = append(work, w)
					}
				}
			}
		}
		for _, first := range []bool{false, pr.useFilter} {
			for _, b := range batches {
				f := newOWCTYFilter(pr, false)
				f.batchN = b
				f.eliminate(first)
				size := 0
				for v := range n {
					if f.has(uint32(v)) != want[v] {
						t.Fatalf("%s, batch %d, first %v: node %d kept %v, want %v", name, b, first, v, f.has(uint32(v)), want[v])
					}
					if want[v] {
						size++
					}
				}
				if f.size != size {
					t.Fatalf("%s, batch %d: size %d, want %d", name, b, f.size, size)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 7))
	for r := range 300 {
		k := randSystem(mathrand.New(mathrand.NewSource(int64(rng.Uint64()))))
		name := fmt.Sprint("system ", r, ": ", k)
		if _, err := Check(context.Background(), k.model(), Options{onProduct: func(pr *product) { compare(t, name, pr) }}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	m := coffeeCanModel(t, 60)
	if _, err := Check(context.Background(), m, Options{onProduct: func(pr *product) { compare(t, "CoffeeCan", pr) }}); err != nil {
		t.Fatal(err)
	}
	if products < 300 {
		t.Fatalf("%d products compared", products)
	}
}
