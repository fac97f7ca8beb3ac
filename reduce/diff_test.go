package reduce

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/oracle"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// maxDiffStates bounds the unreduced searches of the differential tests.
const maxDiffStates = 300000

// exampleFiles returns every examples/**/*.wrap.
func exampleFiles(t *testing.T) []string {
	var files []string
	err := filepath.WalkDir("../examples", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".wrap") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// outcome is what the reductions must not change.
type outcome struct {
	Verdict string
	Kind    string
	Name    string
}

func outcomeOf(r *verdict.Result) outcome {
	o := outcome{Verdict: r.Verdict.String()}
	if v := r.Violation; v != nil {
		o.Kind, o.Name = v.Kind.String(), v.Name
	}
	return o
}

// TestDifferentialExamples checks every example with each reduction on
// and off: same verdict and violation, replayable counterexamples, and
// (with symmetry) no more states than without.
func TestDifferentialExamples(t *testing.T) {
	forExamples(t, func(t *testing.T, m *spec.Model) {
		differential(t, m)
	})
}

// forExamples runs f as a subtest on every example that checks
// statically.
func forExamples(t *testing.T, f func(t *testing.T, m *spec.Model)) {
	for _, file := range exampleFiles(t) {
		t.Run(strings.TrimPrefix(file, "../examples/"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.ParseFile(file, src, spec.Options{})
			if err != nil {
				t.Skipf("does not check statically: %v", err)
			}
			f(t, m)
		})
	}
}

// TestDifferentialDefines runs the differential checks on the peer
// translations with parameters that make their symmetry non-trivial,
// including violated variants.
func TestDifferentialDefines(t *testing.T) {
	tests := []struct {
		file string
		defs map[string]int64
	}{
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 2, "N": 2, "BUG": 1}},
		{"../examples/peers/pipeline.wrap", map[string]int64{"K": 3, "N": 1, "BUG": 1}},
		{"../examples/peers/toctou.wrap", map[string]int64{"D": 2, "M": 2}},
		{"../examples/peers/toctou.wrap", map[string]int64{"D": 3, "M": 1, "FIXED": 1}},
		{"../examples/peers/mutex_sym.wrap", map[string]int64{"N": 4}},
	}
	for _, tt := range tests {
		name := strings.TrimPrefix(tt.file, "../examples/")
		for _, k := range slices.Sorted(maps.Keys(tt.defs)) {
			name += fmt.Sprintf(",%s=%d", k, tt.defs[k])
		}
		t.Run(name, func(t *testing.T) {
			m := load(t, tt.file, tt.defs)
			differential(t, m)
			checkOrbits(t, m, 30000)
		})
	}
}

// differential runs m unreduced and with every combination of the
// reductions, and compares.
func differential(t *testing.T, m *spec.Model) {
	t.Helper()
	ctx := context.Background()
	// The verdicts and traces are compared: a violated spec need not be
	// explored to its end (the search stops at the violation's level).
	base, err := checker.Run(ctx, m, checker.Options{MaxStates: maxDiffStates})
	if err != nil {
		t.Fatal(err)
	}
	if base.Verdict == verdict.Unknown {
		t.Skipf("unreduced search incomplete (%s)", base.Reason())
	}
	canon := symmetry(t, m)
	ample := POR(m, Visible(m, nil))
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	configs := []struct {
		name string
		opts checker.Options
	}{
		{"symmetry", checker.Options{Canon: canon}},
		{"por", checker.Options{Ample: ample}},
		{"both", checker.Options{Canon: canon, Ample: ample}},
		{"both-1worker", checker.Options{Canon: canon, Ample: ample, Workers: 1}},
	}
	for _, c := range configs {
		if c.opts.Canon == nil && c.opts.Ample == nil {
			continue
		}
		r, err := checker.Run(ctx, m, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		want, got := outcomeOf(base), outcomeOf(r)
		if want != got && !sameDepthAlternative(t, m, base, r) {
			t.Errorf("%s: outcome (-unreduced +reduced):\n%s", c.name, cmp.Diff(want, got))
		}
		t.Logf("%s: %s, %d states (unreduced %d)", c.name, got.Verdict, r.Stats.States, base.Stats.States)
		// A violation may be met later with ample sets (the reduced graph
		// has other shortest paths), so compare the counts of complete
		// searches, and of every symmetry-only search (same BFS levels).
		if (r.Verdict == verdict.Holds || c.opts.Ample == nil) && r.Stats.States > base.Stats.States {
			t.Errorf("%s: %d states stored, more than the %d unreduced", c.name, r.Stats.States, base.Stats.States)
		}
		if r.Violation != nil {
			// Shortest traces with ample sets too: the checker's search
			// keeps the guarantee (checker.Options.Ample).
			if base.Violation != nil && len(r.Violation.Trace) != len(base.Violation.Trace) {
				t.Errorf("%s: trace of %d steps, unreduced %d", c.name, len(r.Violation.Trace)-1, len(base.Violation.Trace)-1)
			}
			if err := replay(prog, r.Violation); err != nil {
				t.Errorf("%s: counterexample does not replay on the unreduced system: %v", c.name, err)
			}
		}
	}
}

// sameDepthAlternative reports whether the reduced run found another
// violation that is also real: when several invariants fail, which one a
// search reports first may depend on the order in which it meets states.
// The unreduced search restricted to the reported invariant must find it.
func sameDepthAlternative(t *testing.T, m *spec.Model, base, red *verdict.Result) bool {
	if base.Violation == nil || red.Violation == nil || red.Violation.Kind != verdict.Invariant {
		return false
	}
	r, err := checker.Run(context.Background(), m, checker.Options{Only: []string{red.Violation.Name}, MaxStates: maxDiffStates})
	if err != nil {
		t.Fatal(err)
	}
	ok := r.Verdict == verdict.Violated && r.Violation.Kind == verdict.Invariant && r.Violation.Name == red.Violation.Name
	if ok {
		t.Logf("several invariants fail: unreduced reports %s, reduced %s (also violated unreduced)", base.Violation.Name, red.Violation.Name)
	}
	return ok
}

// replay checks that v's trace is a path of the unreduced system: the
// first state is initial, each step's state is a successor of the previous
// one by the named action, and a failing last step fails.
func replay(prog *machine.Program, v *verdict.Violation) error {
	mach := prog.NewMachine()
	tr := v.Trace
	if len(tr) == 0 {
		return errors.New("empty trace")
	}
	vec := make(machine.State, prog.Words())
	got := make([]int64, prog.Slots())
	found := false
	err := mach.Init(func(_ int, s machine.State) {
		prog.Unpack(got, s)
		found = found || slices.Equal(got, tr[0].State)
	})
	if err != nil && !(len(tr) == 1 && isFailure(v.Kind)) {
		return fmt.Errorf("init: %v", err)
	}
	if !found && !(len(tr) == 1 && isFailure(v.Kind)) {
		return errors.New("step 0 is not an initial state")
	}
	for i := 1; i < len(tr); i++ {
		prog.Pack(vec, tr[i-1].State)
		found := false
		err := mach.Successors(vec, func(a, _ int, s machine.State) {
			if a == tr[i].Action {
				prog.Unpack(got, s)
				found = found || slices.Equal(got, tr[i].State)
			}
		})
		last := i == len(tr)-1
		if last && isFailure(v.Kind) {
			var ex *machine.ExecError
			if errors.As(err, &ex) && ex.Action == tr[i].Action {
				return nil
			}
			return fmt.Errorf("step %d: action %d does not fail (%v)", i, tr[i].Action, err)
		}
		if !found {
			return fmt.Errorf("step %d: not a successor by action %d (enumeration error: %v)", i, tr[i].Action, err)
		}
	}
	return nil
}

func isFailure(k verdict.Kind) bool { return k == verdict.Assertion || k == verdict.RuntimeError }

// reachable returns the states of m (unpacked) reachable from the
// initial states and, when c is not nil, from their images under every
// element of c's group (the zero value of a symmetric type is its first
// identity, so the initial states need not be symmetric), in
// breadth-first order: the states internal/oracle's search stores, the
// one reference search of the tests. It reports false when there are
// more than limit states (it then returns the first limit of them) or a
// branch of an action fails (it then returns nil).
func reachable(tb testing.TB, m *spec.Model, limit int, c *canon) ([][]int64, bool) {
	var states [][]int64
	failed := false
	opts := oracle.Options{
		NoDeadlock: true,
		MaxStates:  limit,
		Failure:    func(string, string) { failed = true },
		Visit:      func(s []int64) { states = append(states, s) },
	}
	if c != nil {
		opts.Images = func(s []int64) [][]int64 {
			var images [][]int64
			c.group(func(fwd [][]int32) { images = append(images, c.permute(s, fwd)) })
			return images
		}
	}
	_, err := oracle.Check(m, opts)
	switch {
	case errors.Is(err, oracle.ErrTooBig):
		return states, false
	case err != nil:
		tb.Fatal(err)
	case failed:
		return nil, false
	}
	return states, true
}

// group enumerates every element of the symmetry group of c: one
// permutation per symmetric type (fwd[t][i] = π(i)).
func (c *canon) group(visit func(fwd [][]int32)) {
	perms := make([][][]int32, len(c.sizes))
	for t, n := range c.sizes {
		p := make([]int32, n)
		for i := range p {
			p[i] = int32(i)
		}
		for {
			perms[t] = append(perms[t], slices.Clone(p))
			if !nextPermutation(p) {
				break
			}
		}
	}
	idx := make([]int, len(c.sizes))
	fwd := make([][]int32, len(c.sizes))
	for {
		for t := range idx {
			fwd[t] = perms[t][idx[t]]
		}
		visit(fwd)
		t := 0
		for ; t < len(idx); t++ {
			idx[t]++
			if idx[t] < len(perms[t]) {
				break
			}
			idx[t] = 0
		}
		if t == len(idx) {
			return
		}
	}
}

// permute returns π(s) for the group element fwd.
func (c *canon) permute(s []int64, fwd [][]int32) []int64 {
	sc := c.newScratch()
	for t := range fwd {
		copy(sc.fwd[t], fwd[t])
		for i, j := range fwd[t] {
			sc.order[t][j] = int32(i)
		}
	}
	out := slices.Clone(s)
	for _, d := range c.relevant {
		out[d] = c.value(s, sc, int(d))
	}
	return out
}

// checkOrbits checks, on the reachable state set of m closed under the
// symmetry group (see reachable), that every
// group element maps reachable states to reachable states, that the
// canonical form is constant on orbits and lies in the orbit, and that
// the symmetry-reduced search stores exactly one state per orbit.
func checkOrbits(t *testing.T, m *spec.Model, limit int) {
	t.Helper()
	c, err := newCanon(m, Group{})
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		return
	}
	states, ok := reachable(t, m, limit, c)
	if !ok {
		t.Logf("orbit check skipped: more than %d states or a failing action", limit)
		return
	}
	seen := map[string]bool{}
	for _, s := range states {
		seen[fmt.Sprint(s)] = true
	}
	orbits := map[string]bool{}
	bad := 0
	for _, s := range states {
		cs := slices.Clone(s)
		c.canonicalize(cs)
		ck := fmt.Sprint(cs)
		orbits[ck] = true
		inOrbit := false
		c.group(func(fwd [][]int32) {
			p := c.permute(s, fwd)
			if !seen[fmt.Sprint(p)] && bad < 3 {
				bad++
				t.Errorf("π(s) is not reachable: s=%v π=%v π(s)=%v", s, fwd, p)
			}
			inOrbit = inOrbit || slices.Equal(p, cs)
			c.canonicalize(p)
			if !slices.Equal(p, cs) && bad < 3 {
				bad++
				t.Errorf("canonical forms differ within an orbit: s=%v π=%v: %v vs %v", s, fwd, p, cs)
			}
		})
		if !inOrbit && bad < 3 {
			bad++
			t.Errorf("canonical form %v of %v is not in its orbit", cs, s)
		}
	}
	t.Logf("%d reachable states, %d orbits", len(states), len(orbits))
	r, err := checker.Run(context.Background(), m, checker.Options{Canon: c.canonicalize, NoDeadlock: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != verdict.Violated || r.Violation.Kind != verdict.Invariant {
		if got, want := r.Stats.States, int64(len(orbits)); got != want {
			t.Errorf("symmetry-reduced search stored %d states, brute-force orbit count is %d (of %d states)", got, want, len(states))
		}
	}
}

// TestOrbitsExamples brute-forces the orbits of the small examples that
// have symmetric types.
func TestOrbitsExamples(t *testing.T) {
	forExamples(t, func(t *testing.T, m *spec.Model) {
		checkOrbits(t, m, 20000)
	})
}
