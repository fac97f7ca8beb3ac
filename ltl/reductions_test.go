package ltl

import (
	"context"
	"fmt"
	mathrand "math/rand"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// reductionModes are the option sets the differential tests compare
// with the plain product.
var reductionModes = []struct {
	name string
	opts Options
}{
	{"symmetry", Options{Symmetry: true}},
	{"por", Options{POR: true}},
	{"both", Options{Symmetry: true, POR: true}},
}

// differentialLTL checks every property of m on its own with each
// reduction mode against the plain product: the same verdict, and every
// reported lasso a fair run of the unreduced system that violates the
// property as written. It returns the number of violated properties.
func differentialLTL(t *testing.T, m *spec.Model) int {
	t.Helper()
	violated := 0
	for _, p := range m.Properties {
		plain, err := Check(context.Background(), m, Options{Only: []string{p.Name}, MaxStates: 400000})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if plain.Verdict == verdict.Unknown {
			continue
		}
		if plain.Verdict == verdict.Violated {
			violated++
			if err := validLasso(m, p, plain.Violation); err != nil {
				t.Errorf("%s plain: %v", p.Name, err)
			}
		}
		for _, mode := range reductionModes {
			opts := mode.opts
			opts.Only = []string{p.Name}
			red, err := Check(context.Background(), m, opts)
			if err != nil {
				t.Fatalf("%s %s: %v", p.Name, mode.name, err)
			}
			if red.Verdict != plain.Verdict {
				t.Errorf("%s: %s says %s, the plain product %s (notes %q)", p.Name, mode.name, red.Verdict, plain.Verdict, red.Notes)
				continue
			}
			if red.Verdict == verdict.Holds && red.Stats.States > plain.Stats.States {
				t.Errorf("%s: %s stored %d states, more than the plain product's %d", p.Name, mode.name, red.Stats.States, plain.Stats.States)
			}
			if red.Verdict == verdict.Violated {
				if plain.Violation.Kind != red.Violation.Kind {
					t.Errorf("%s: %s reports a %s, the plain product a %s", p.Name, mode.name, red.Violation.Kind, plain.Violation.Kind)
				} else if red.Violation.Kind == verdict.Property {
					if err := validLasso(m, p, red.Violation); err != nil {
						t.Errorf("%s %s: %v", p.Name, mode.name, err)
					}
				}
			}
		}
	}
	return violated
}

// validLasso checks that v's trace is a run of the unreduced system of m
// (an initial state, then successors by the recorded actions, the last
// state stepping back to Trace[LoopStart], or a state without successor
// that repeats), that its cycle is fair, and that the run violates p.
func validLasso(m *spec.Model, p *spec.Property, v *verdict.Violation) error {
	prog, err := machine.Compile(m)
	if err != nil {
		return err
	}
	mach := prog.NewMachine()
	tr := v.Trace
	n := len(tr)
	if v.Kind != verdict.Property || v.LoopStart < 0 || v.LoopStart >= n {
		return fmt.Errorf("bad lasso: kind %s, loop %d of %d", v.Kind, v.LoopStart, n)
	}
	pack := func(i int) machine.State {
		s := make(machine.State, prog.Words())
		prog.Pack(s, tr[i].State)
		return s
	}
	type succ struct {
		action int
		to     machine.State
	}
	succs := func(s machine.State) []succ {
		var out []succ
		if err := mach.Successors(s, func(a, _ int, t machine.State) { out = append(out, succ{a, slices.Clone(t)}) }); err != nil {
			return nil
		}
		return out
	}
	isInit := false
	_ = mach.Init(func(_ int, t machine.State) { isInit = isInit || slices.Equal(t, pack(0)) })
	if !isInit {
		return fmt.Errorf("the first state is not initial")
	}
	step := func(from, to int) bool {
		for _, s := range succs(pack(from)) {
			if s.action == tr[to].Action && slices.Equal(s.to, pack(to)) {
				return true
			}
		}
		return false
	}
	for i := 1; i < n; i++ {
		if !step(i-1, i) {
			return fmt.Errorf("step %d (%s) is not a transition of the unreduced system", i, m.Actions[tr[i].Action].Name)
		}
	}
	stutter := len(succs(pack(n-1))) == 0
	var cycleActs []int
	switch {
	case stutter:
		if v.LoopStart != n-1 {
			return fmt.Errorf("a stutter cycle must start at the last entry")
		}
	case !step(n-1, v.LoopStart):
		return fmt.Errorf("the last state does not step back to entry %d", v.LoopStart)
	default:
		for i := v.LoopStart; i < n; i++ {
			cycleActs = append(cycleActs, tr[i].Action)
		}
	}
	// Fairness of the cycle.
	for _, f := range m.Fairness {
		for _, u := range f.Units {
			taken, some, every := false, false, true
			for _, a := range cycleActs {
				taken = taken || slices.Contains(u, a)
			}
			for i := v.LoopStart; i < n; i++ {
				en := false
				for _, s := range succs(pack(i)) {
					en = en || slices.Contains(u, s.action)
				}
				some, every = some || en, every && en
			}
			if !taken && (f.Strong && some || !f.Strong && every) {
				return fmt.Errorf("the cycle is unfair to a unit of fairness %s", f.Name)
			}
		}
	}
	// The run violates the property as written.
	f, atoms, err := FromProperty(p)
	if err != nil {
		return err
	}
	word := make([][]bool, n)
	for i := range word {
		for _, a := range atoms {
			x, err := prog.Eval(a, pack(i))
			if err != nil {
				return err
			}
			word[i] = append(word[i], x != 0)
		}
	}
	if evalLasso(f, word, v.LoopStart)[0] {
		return fmt.Errorf("the lasso satisfies the property")
	}
	return nil
}

// evalLasso returns, per position of the lasso word[:loop]·word[loop:]^ω,
// whether f holds there (fixpoints over the positions).
func evalLasso(f *Formula, word [][]bool, loop int) []bool {
	n := len(word)
	succ := lassoSucc(n, loop)
	out := make([]bool, n)
	switch f.Op {
	case OpTrue:
		for i := range out {
			out[i] = true
		}
		return out
	case OpFalse:
		return out
	case OpAtom, OpNotAtom:
		for i := range out {
			out[i] = word[i][f.Atom] == (f.Op == OpAtom)
		}
		return out
	}
	args := make([][]bool, len(f.Args))
	for k, a := range f.Args {
		args[k] = evalLasso(a, word, loop)
	}
	switch f.Op {
	case OpAnd, OpOr:
		for i := range out {
			out[i] = f.Op == OpAnd
			for _, a := range args {
				if f.Op == OpAnd {
					out[i] = out[i] && a[i]
				} else {
					out[i] = out[i] || a[i]
				}
			}
		}
	case OpNext:
		for i := range out {
			out[i] = args[0][succ(i)]
		}
	case OpUntil:
		return lassoFix(out, false, func(i int) bool { return args[1][i] || args[0][i] && out[succ(i)] })
	case OpRelease:
		return lassoFix(out, true, func(i int) bool { return args[1][i] && (args[0][i] || out[succ(i)]) })
	}
	return out
}

// TestReductionsExamples runs the differential check on every example
// with properties.
func TestReductionsExamples(t *testing.T) {
	for _, ex := range exampleProperties(t) {
		t.Run(strings.TrimPrefix(ex.file, "../examples/"), func(t *testing.T) {
			differentialLTL(t, ex.model)
		})
	}
}

// An example is an example spec that parses and has properties.
type example struct {
	file  string
	model *spec.Model
}

// exampleProperties parses every example spec and returns those with
// properties; fewer than five fails the test (the glob went wrong).
func exampleProperties(t *testing.T) []example {
	t.Helper()
	files, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := spec.ParseFile(file, src, spec.Options{}); err == nil && len(m.Properties) > 0 {
			out = append(out, example{file, m})
		}
	}
	if len(out) < 5 {
		t.Fatalf("only %d examples with properties", len(out))
	}
	return out
}

// TestReductionsRandom runs the differential check on random specs.
func TestReductionsRandom(t *testing.T) {
	n := 40
	if testenv.Short(t) {
		n = 12
	}
	checked, violated := 0, 0
	for seed := range n {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 11)), gen.Config{Shape: gen.Temporal}).Source
		name := fmt.Sprintf("seed%d", seed)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Logf("%s does not check: %v\n%s", name, err, src)
			continue
		}
		if len(m.Properties) == 0 {
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			violated += differentialLTL(t, m)
			if t.Failed() {
				t.Logf("spec:\n%s", src)
			}
		})
	}
	if checked < n/2 {
		t.Errorf("only %d of %d random specs check statically", checked, n)
	}
	if violated == 0 {
		t.Errorf("no random property is violated: the lasso checks never ran")
	}
	t.Logf("%d specs, %d violated properties", checked, violated)
}

// TestPlans checks which reductions each property shape gets.
func TestPlans(t *testing.T) {
	const base = `spec Plans
type Id = symmetric 3
var flags: [Id]bool
var cnt: 0..2 = 0
process worker[i: Id] {
  var st: 0..2 = 0
  action step when st < 2 { st := st + 1 }
  action grab when not flags[i] { flags[i] := true }
}
process counter {
  action tick when cnt < 2 { cnt := cnt + 1 }
}
property Pinned: forall j in Id: always (worker[j].st == 1 implies eventually worker[j].st == 2)
property Symmetric: eventually (exists j in Id: flags[j])
property Nested: eventually (forall j in Id: always worker[j].st == 2)
property Hoisted: always (forall j in Id: eventually worker[j].st == 2)
property Next: always (cnt == 1 implies next cnt >= 1)
`
	type want struct {
		Pinned, Canon, Ample bool
		Threads              int
		Notes                []string
	}
	tests := []struct {
		name  string
		extra string
		init  string
		want  map[string]want
	}{
		{"no fairness", "", "", map[string]want{
			"Pinned":    {Pinned: true, Canon: true, Ample: true},
			"Symmetric": {Canon: true, Ample: true},
			"Nested":    {Ample: true, Notes: []string{"symmetry over Id is off for property Nested: its formula applies temporal operators to single identities (a quantifier over Id inside a temporal operator)"}},
			"Next":      {Canon: true, Notes: []string{"partial-order reduction is off for property Next: it uses next"}},
		}},
		{"fair counter", "fairness weak counter\n", "", map[string]want{
			"Pinned":    {Pinned: true, Canon: true},
			"Symmetric": {Canon: true},
		}},
		{"fair workers", "fairness weak worker\n", "", map[string]want{
			"Pinned":    {Pinned: true, Canon: true, Threads: 1},
			"Symmetric": {Canon: true, Threads: 1},
		}},
		{"asymmetric init", "", "init { worker[i].st := 0 }\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := base + tt.extra
			if tt.init != "" {
				src = strings.Replace(base, "var cnt: 0..2 = 0", "var cnt: 0..2 = 0\nvar leader: Id", 1) + tt.extra
			}
			m, err := spec.ParseFile("plans.wrap", []byte(src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prog, err := machine.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			pl, err := newPlanner(m, prog, Options{Symmetry: true, POR: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range m.Properties {
				pn, err := pl.plan(p)
				if err != nil {
					t.Fatal(err)
				}
				if tt.want == nil { // leader starts at Id1: the initial state is not symmetric
					if pn.pinned != nil {
						t.Errorf("%s pinned although the initial state is not symmetric", p.Name)
					}
					continue
				}
				w, ok := tt.want[p.Name]
				if !ok {
					continue
				}
				got := want{Pinned: pn.pinned != nil, Canon: pn.canon != nil, Ample: pn.ample != nil, Threads: len(pn.threads), Notes: pn.notes}
				if !slices.Equal(got.Notes, w.Notes) || got.Pinned != w.Pinned || got.Canon != w.Canon || got.Ample != w.Ample || got.Threads != w.Threads {
					t.Errorf("%s: got %+v, want %+v", p.Name, got, w)
				}
			}
		})
	}
}

// TestThreads checks fairness per instance of a family under symmetry on
// specs where following instances through the permutations decides the
// verdict: each worker is continuously enabled (stop) and takes `go` only
// when another worker went last, so in the quotient (last worker = the
// first identity) the worker that takes the step is always the second
// one, and only the permutations show that every worker takes steps.
func TestThreads(t *testing.T) {
	src := func(k int, strength string, prop string) string {
		return fmt.Sprintf(`spec Threads
type Id = symmetric %d
var last: Id
var stopped: bool = false
init {
  choose j in Id {
    last := j
  }
}
process w[i: Id] {
  action go when not stopped and last != i { last := i }
  action stop when not stopped { stopped := true }
}
fairness %s w
%s
`, k, strength, prop)
	}
	tests := []struct {
		k        int
		strength string
		prop     string
		want     verdict.Verdict
	}{
		{2, "weak", "property Stops: eventually stopped", verdict.Violated},
		{3, "weak", "property Stops: eventually stopped", verdict.Violated},
		{3, "strong", "property Stops: eventually stopped", verdict.Violated},
		{3, "weak", "property Turns: forall j in Id: always eventually (stopped or last == j)", verdict.Holds},
		{4, "strong", "property Turns: forall j in Id: always eventually (stopped or last == j)", verdict.Holds},
		{3, "weak", "property Settles: eventually always (stopped or last == last)", verdict.Holds},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s/K=%d/%s", tt.prop[9:strings.Index(tt.prop, ":")], tt.k, tt.strength)
		t.Run(name, func(t *testing.T) {
			m, err := spec.ParseFile("threads.wrap", []byte(src(tt.k, tt.strength, tt.prop)), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			pl, err := newPlanner(m, mustCompile(t, m), Options{Symmetry: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			pn, err := pl.plan(m.Properties[0])
			if err != nil {
				t.Fatal(err)
			}
			if len(pn.threads) == 0 {
				t.Fatalf("no thread tracking (notes %q)", pn.notes)
			}
			var st PropertyStats
			res, err := Check(context.Background(), m, Options{Symmetry: true, OnProperty: func(s PropertyStats) { st = s }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s", res.Verdict, tt.want)
			}
			if res.Verdict == verdict.Violated {
				if err := validLasso(m, m.Properties[0], res.Violation); err != nil {
					t.Error(err)
				}
			}
			t.Logf("%d product nodes", st.ProductNodes)
			differentialLTL(t, m)
			filterDiff(t, name, m, Options{})
		})
	}
}

func mustCompile(t *testing.T, m *spec.Model) *machine.Program {
	t.Helper()
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// TestIgnoreFairness checks that checking with a fairness declaration
// ignored, on a Checker that already checked the model (sharing its
// explored systems), gives the verdict of the model without that
// declaration, with and without reductions.
func TestIgnoreFairness(t *testing.T) {
	var models []*spec.Model
	for _, ex := range exampleProperties(t) {
		if len(ex.model.Fairness) > 0 {
			models = append(models, ex.model)
		}
	}
	for seed := range 40 {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 11)), gen.Config{Shape: gen.Temporal}).Source
		if m, err := spec.ParseFile("r.wrap", []byte(src), spec.Options{}); err == nil && len(m.Properties) > 0 && len(m.Fairness) > 0 {
			models = append(models, m)
		}
	}
	if len(models) < 10 {
		t.Fatalf("only %d models with properties and fairness", len(models))
	}
	for _, m := range models {
		for _, mode := range append([]struct {
			name string
			opts Options
		}{{"plain", Options{}}}, reductionModes...) {
			lc, err := NewChecker(m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := lc.Check(context.Background(), mode.opts); err != nil {
				t.Fatal(err)
			}
			for i := range m.Fairness {
				opts := mode.opts
				opts.IgnoreFairness = []int{i}
				got, err := lc.Check(context.Background(), opts)
				if err != nil {
					t.Fatal(err)
				}
				without := *m
				without.Fairness = append(append([]*spec.Fairness(nil), m.Fairness[:i]...), m.Fairness[i+1:]...)
				want, err := Check(context.Background(), &without, mode.opts)
				if err != nil {
					t.Fatal(err)
				}
				if got.Verdict != want.Verdict || (got.Violation == nil) != (want.Violation == nil) ||
					got.Violation != nil && got.Violation.Name != want.Violation.Name {
					t.Errorf("%s %s without fairness %d: got %s, want %s", m.Name, mode.name, i, got.Verdict, want.Verdict)
				}
			}
		}
	}
}

// TestEdgesRecomputed checks that the edges the cycle search computes
// again from the system's successors and the automaton (and the targets
// the filter's eliminations take, appendTargets) are, node by
// node and in order, those the expansion found, with the system's
// successor lists kept and computed again from the machine (the cache
// emptied first): on random systems and on the random specs under every
// reduction (partial-order reduction gives full nodes, symmetry
// permutations).
func TestEdgesRecomputed(t *testing.T) {
	n := 300
	if testenv.Short(t) {
		n = 60
	}
	nodes := 0
	compare := func(t *testing.T, name string, pr *product) {
		t.Helper()
		clear(pr.sys.cache) // every successor list is computed again
		for v := range pr.expanded() {
			var want []edge
			if v+1 < len(pr.recordOff) && pr.recordOff[v] < pr.recordOff[v+1] {
				want = pr.recorded[pr.recordOff[v]:pr.recordOff[v+1]]
			}
			var got []edge
			cur := pr.edges(uint32(v))
			for e, ok := pr.next(&cur); ok; e, ok = pr.next(&cur) {
				got = append(got, e)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(edge{})); diff != "" {
				t.Fatalf("%s: edges of node %d (-recorded +recomputed):\n%s", name, v, diff)
			}
			if diff := cmp.Diff(want, pr.actEdges(nil, uint32(v)), cmp.AllowUnexported(edge{}), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s: edges of node %d (-recorded +actEdges):\n%s", name, v, diff)
			}
			// Without the actions where the system keeps only targets.
			noActs := slices.Clone(want)
			if pr.sys.keep && !pr.sys.keepAct {
				for i := range noActs {
					noActs[i].act = noAct
				}
			}
			if diff := cmp.Diff(noActs, pr.appendEdges(nil, uint32(v)), cmp.AllowUnexported(edge{}), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s: edges of node %d (-recorded +appendEdges):\n%s", name, v, diff)
			}
			var targets []uint32
			for _, e := range want {
				targets = append(targets, e.to)
			}
			if diff := cmp.Diff(targets, pr.appendTargets(nil, uint32(v)), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("%s: targets of node %d (-recorded +appendTargets):\n%s", name, v, diff)
			}
			nodes++
		}
		// The parents found again (parentOf): a node's is the first
		// expanded node with a recorded edge to it (which made it), an
		// initial node's none (the first nodes, one per initial state).
		parent := make([]uint32, pr.nodeN)
		for w := range parent {
			parent[w] = noParent
		}
		for v := 0; v+1 < len(pr.recordOff); v++ {
			for _, e := range pr.recorded[pr.recordOff[v]:pr.recordOff[v+1]] {
				if int(e.to) >= pr.sys.inits.len() && parent[e.to] == noParent {
					parent[e.to] = uint32(v)
				}
			}
		}
		for w := range parent {
			if got := pr.parentOf(uint32(w)); got != parent[w] {
				t.Fatalf("%s: parent of node %d: found %d, the exploration's %d", name, w, got, parent[w])
			}
		}
		// The targets of batches of nodes (the eliminations'
		// appendTargetsOf, which decodes a batch's lists once): those
		// of its nodes one after the other. Batches of 1 to elimBatch
		// nodes, the ids in steps of 1 and of 3.
		for step := 1; step <= 3; step += 2 {
			for at, size := 0, 1; at < pr.expanded(); at, size = at+size*step, size%elimBatch+1 {
				var vs []uint32
				var want []uint32
				for v := at; v < pr.expanded() && len(vs) < size; v += step {
					vs = append(vs, uint32(v))
					want = pr.appendTargets(want, uint32(v))
				}
				if diff := cmp.Diff(want, pr.appendTargetsOf(nil, vs), cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s: targets of nodes %v (-appendTargets +appendTargetsOf):\n%s", name, vs, diff)
				}
			}
		}
		if !pr.useFilter {
			return
		}
		// The predecessors the exploration counted for the filter: with
		// pr.cyc, only the edges between nodes whose automaton states
		// have a component.
		want := make([]uint8, len(pr.indeg))
		inSet := func(v uint32) bool { return pr.cyc == nil || pr.cycOf(v) >= 0 }
		for v := 0; v+1 < len(pr.recordOff); v++ {
			for _, e := range pr.recorded[pr.recordOff[v]:pr.recordOff[v+1]] {
				if inSet(uint32(v)) && inSet(e.to) && want[e.to] != maxCount {
					want[e.to]++
				}
			}
		}
		if diff := cmp.Diff(want, pr.indeg, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: predecessors (-recorded +counted):\n%s", name, diff)
		}
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for r := range n {
		k := randSystem(mathrand.New(mathrand.NewSource(int64(rng.Uint64()))))
		name := fmt.Sprint("system ", r, ": ", k)
		for _, re := range []bool{false, true} {
			if _, err := Check(context.Background(), k.model(), Options{recompute: re, onProduct: func(pr *product) { compare(t, name, pr) }}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	for seed := range n / 10 {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 11)), gen.Config{Shape: gen.Temporal}).Source
		m, err := spec.ParseFile("s.wrap", []byte(src), spec.Options{})
		if err != nil || len(m.Properties) == 0 {
			continue
		}
		for _, mode := range append([]struct {
			name string
			opts Options
		}{{"plain", Options{}}}, reductionModes...) {
			name := fmt.Sprintf("spec seed %d, %s", seed, mode.name)
			for _, re := range []bool{false, true} {
				opts := mode.opts
				opts.recompute = re
				opts.onProduct = func(pr *product) { compare(t, name, pr) }
				if _, err := Check(context.Background(), m, opts); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
	}
	t.Logf("%d nodes compared", nodes)
}
