package oracle

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestSimulateRandom compares simulation with the exhaustive search on
// random specs: a spec whose safety checks hold has no simulated
// violation; a simulated violation is one the search finds too, no
// shorter than the search's shortest; its trace is a run of the spec
// (each step a successor by its action, through the machine); and 1 and
// 3 workers give the same result.
func TestSimulateRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 5))
	compared, found := 0, 0
	n := 150
	if testenv.Short(t) {
		n = 50
	}
	for i := range n {
		src := gen.Generate(r, gen.Config{Shape: gen.Mixed}).Source
		name := fmt.Sprintf("random %d", i)
		m, err := spec.ParseFile("random.wrap", []byte(src), spec.Options{})
		if err != nil {
			continue
		}
		noDL := r.IntN(4) == 0
		want, err := checker.Run(context.Background(), m, checker.Options{Workers: 1, NoDeadlock: noDL, MaxStates: 20_000})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want.Verdict == verdict.Unknown {
			continue
		}
		prog, err := machine.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		opts := simulate.Options{Seed: uint64(i + 1), Walks: 150, Depth: 40, Workers: 1, NoDeadlock: noDL, Program: prog}
		got, err := simulate.Run(context.Background(), m, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		opts.Workers = 3
		got3, err := simulate.Run(context.Background(), m, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got.Stats.Seconds, got.Stats.Workers, got3.Stats.Seconds, got3.Stats.Workers = 0, 0, 0, 0
		if diff := cmp.Diff(got, got3); diff != "" {
			t.Errorf("%s: workers 1 and 3 differ (-1 +3):\n%s\n%s", name, diff, src)
		}
		compared++
		v := got.Violation
		switch {
		case v == nil:
		case want.Verdict == verdict.Holds:
			t.Fatalf("%s: check holds, simulate reports %s: %s (walk %d)\n%s", name, v.Kind, v.Msg, got.Walk, src)
		case len(v.Trace) < len(want.Violation.Trace):
			t.Fatalf("%s: simulate's trace has %d steps, the shortest %d\n%s", name, len(v.Trace), len(want.Violation.Trace), src)
		default:
			found++
			if err := runOf(prog, v, noDL); err != nil {
				t.Fatalf("%s: walk %d: %v\n%s", name, got.Walk, err, src)
			}
		}
	}
	t.Logf("%d random specs compared, %d simulated violations checked", compared, found)
	if compared < 60*n/150 || found < 20*n/150 {
		t.Errorf("only %d specs compared, %d violations: the generator changed?", compared, found)
	}
}

// runOf reports how v's trace is not a run of prog ending in v.
func runOf(prog *machine.Program, v *verdict.Violation, noDeadlock bool) error {
	m := prog.NewMachine()
	m.RecordAnswers(true)
	pack := func(st []int64) []uint64 {
		s := make([]uint64, prog.Words())
		prog.Pack(s, st)
		return s
	}
	isInv := slices.ContainsFunc(prog.Model.Invariants, func(in *spec.Invariant) bool { return in.Name == v.Name })
	states := v.Trace
	failing := (v.Kind == verdict.Assertion || v.Kind == verdict.RuntimeError) && !isInv && v.Name != "terminal"
	if failing {
		states = states[:len(states)-1]
	}
	var prev []uint64
	for i, st := range states {
		ok := false
		visit := func(a int, t machine.State) {
			got := make([]int64, prog.Slots())
			prog.Unpack(got, t)
			ok = ok || a == st.Action && slices.Equal(got, st.State) && len(m.Asked()) == len(st.Asked) && (len(st.Asked) == 0 || cmp.Equal(m.Asked(), st.Asked))
		}
		if i == 0 {
			_ = m.Init(func(_ int, t machine.State) { visit(-1, t) })
		} else {
			_ = m.Successors(prev, func(a, _ int, t machine.State) { visit(a, t) })
		}
		if !ok {
			return fmt.Errorf("step %d is not a successor of step %d by its action and answers", i, i-1)
		}
		prev = pack(st.State)
	}
	n := 0
	var execErr error
	if prev == nil {
		execErr = m.Init(func(int, machine.State) {})
	} else {
		execErr = m.Successors(prev, func(int, int, machine.State) { n++ })
	}
	var ex *machine.ExecError
	switch {
	case failing:
		if !errors.As(execErr, &ex) || ex.Pos != v.Pos || ex.Msg != v.Msg || ex.Action != v.Trace[len(v.Trace)-1].Action {
			return fmt.Errorf("the last state fails with %v, want %s: %s", execErr, v.Pos, v.Msg)
		}
	case v.Kind == verdict.Deadlock:
		term, err := m.IsTerminal(prev)
		if noDeadlock || n != 0 || execErr != nil || term || err != nil {
			return fmt.Errorf("no deadlock: %d successors (%v), terminal %t (%v)", n, execErr, term, err)
		}
	case v.Name == "terminal":
		if _, err := m.IsTerminal(prev); n != 0 || !errors.As(err, &ex) || ex.Pos != v.Pos {
			return fmt.Errorf("terminal: %d successors, evaluation %v", n, err)
		}
	default:
		for _, in := range prog.Model.Invariants {
			if in.Name != v.Name {
				continue
			}
			pr, err := prog.CompileExpr(in.Expr)
			if err != nil {
				return err
			}
			x, err := m.Eval(pr, prev)
			if v.Kind == verdict.Invariant && (err != nil || x != 0) || v.Kind != verdict.Invariant && (!errors.As(err, &ex) || ex.Pos != v.Pos) {
				return fmt.Errorf("invariant %s in the last state: %d, %v (want %s)", in.Name, x, err, v.Kind)
			}
		}
	}
	return nil
}
