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

// TestFilterCountsStop checks the filter where a node of the only
// accepting cycle has more predecessors than a count holds (maxCount):
// a hub that all 256 states of a counter enter, each on a cycle through
// it; and one that 300 states enter once, none of them on a cycle, which
// the elimination removes one by one. The hub's count stops at maxCount
// and stays there (a count that wrapped to 0, or went down from maxCount
// to 0, would remove the hub and the cycle with it), and the check finds
// the violation with the filter as without it.
func TestFilterCountsStop(t *testing.T) {
	for _, src := range []string{
		"spec Hub\nvar x: 0..255 = 0\nvar h: bool = false\n" +
			"action inc when not h and x < 255 { x := x + 1 }\n" +
			"action enter when not h {\n  h := true\n  x := 0\n}\n" +
			"action leave when h { h := false }\n" +
			"property Settles: eventually always not h\n",
		"spec Funnel\nvar x: 0..299 = 0\nvar phase: 0..2 = 0\n" +
			"action inc when phase == 0 and x < 299 { x := x + 1 }\n" +
			"action enter when phase == 0 {\n  phase := 1\n  x := 0\n}\n" +
			"action leave when phase == 1 { phase := 2 }\n" +
			"action back when phase == 2 { phase := 1 }\n" +
			"property Settles: eventually always phase != 1\n",
	} {
		m, err := spec.ParseFile("hub.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		filterDiff(t, m.Name, m, Options{})
		saturated := false
		res, err := Check(context.Background(), m, Options{filter: filterOn, onProduct: func(pr *product) {
			for _, c := range pr.indeg {
				saturated = saturated || c == maxCount
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if !saturated {
			t.Errorf("%s: no in-degree reached maxCount: the test does not reach the case", m.Name)
		}
		if res.Verdict != verdict.Violated {
			t.Errorf("%s: verdict %v, want a violation", m.Name, res.Verdict)
		}
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
	// More acceptance sets than one propagation takes (chunkSets): nine
	// weakly fair processes, eight of them in a ring on which the ninth
	// (the one that stops) is enabled and never steps, a cycle fair to
	// the first eight only (the property holds); and all nine in a ring,
	// a fair cycle that never stops (violated).
	for _, ring := range []int{8, 9} {
		var b strings.Builder
		fmt.Fprintf(&b, "spec Ring\nvar x: 0..%d = 0\nvar stop: bool = false\n", ring-1)
		for i := range ring {
			fmt.Fprintf(&b, "process p%d {\n  action a when x == %d { x := %d }\n}\nfairness weak p%d\n", i, i, (i+1)%ring, i)
		}
		if ring == 8 {
			b.WriteString("process p8 {\n  action a when not stop { stop := true }\n}\nfairness weak p8\n")
		}
		b.WriteString("property Stops: eventually stop\n")
		m, err := spec.ParseFile("ring.wrap", []byte(b.String()), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprint("ring of ", ring)
		res, err := Check(context.Background(), m, Options{onProduct: func(pr *product) {
			if sets := pr.aut.NumAcc + len(pr.weakUnits()); sets <= chunkSets {
				t.Errorf("%s: %d acceptance sets, one propagation's", name, sets)
			}
			compare(t, name, pr)
		}})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int]verdict.Verdict{8: verdict.Holds, 9: verdict.Violated}[ring]; res.Verdict != want {
			t.Errorf("%s: %v, want %v", name, res.Verdict, want)
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
