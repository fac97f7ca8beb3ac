package machine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// parse parses src, failing the test on an error.
func parse(t testing.TB, src string) *spec.Model {
	t.Helper()
	m, err := spec.ParseFile("t.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// compile compiles the model of src, failing the test on an error.
func compile(t testing.TB, src string) *Program {
	t.Helper()
	p, err := Compile(parse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pair: two interchangeable counters a, b in 0..2.
const pair = `spec pair
var a: 0..2
var b: 0..2
action inca when a < 2 { a := a + 1 }
action incb when b < 2 { b := b + 1 }
invariant SumBelow3: a + b < 3
`

func TestProgramAPI(t *testing.T) {
	p := compile(t, pair)
	m := p.NewMachine()
	var inits [][]int64
	err := m.Init(func(branch int, s State) {
		u := make([]int64, p.Slots())
		p.Unpack(u, s)
		inits = append(inits, u)
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]int64{{0, 0}}, inits); diff != "" {
		t.Errorf("Init (-want +got):\n%s", diff)
	}
	type succ struct {
		Action, Branch int
		State          []int64
	}
	s := make(State, p.Words())
	p.Pack(s, []int64{1, 2})
	var got []succ
	err = m.Successors(s, func(a, b int, t State) {
		u := make([]int64, p.Slots())
		p.Unpack(u, t)
		got = append(got, succ{a, b, u})
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]succ{{0, 0, []int64{2, 2}}}, got); diff != "" {
		t.Errorf("Successors (-want +got):\n%s", diff)
	}
	pr, err := p.CompileExpr(p.Model.Invariants[0].Expr)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		state []int64
		want  int64
	}{{[]int64{1, 1}, 1}, {[]int64{1, 2}, 0}} {
		p.Pack(s, tc.state)
		v, err := m.Eval(pr, s)
		if err != nil || v != tc.want {
			t.Errorf("Eval(%v) = %d, %v; want %d", tc.state, v, err, tc.want)
		}
	}
	// A failing action is returned as *ExecError.
	po := compile(t, "spec overflow\nvar x: 0..2\naction inc { x := x + 1 }\n")
	s1 := make(State, po.Words())
	po.Pack(s1, []int64{2})
	err = po.NewMachine().Successors(s1, func(int, int, State) {})
	ex, ok := err.(*ExecError)
	if !ok || ex.Kind != RuntimeError || ex.Action != 0 {
		t.Errorf("Successors on overflow: %v, want a runtime error of action 0", err)
	}
}

func TestAskedAnswers(t *testing.T) {
	p := compile(t, `spec asked
type Verdict = {pass, fail, garbled}
var r: Verdict
var done: bool
agent verifier(): Verdict
  assume result != garbled
action verify when not done {
  r := ask verifier()
  done := true
}
terminal done
`)
	m := p.NewMachine()
	m.RecordAnswers(true)
	var init State
	if err := m.Init(func(_ int, s State) { init = append(State(nil), s...) }); err != nil {
		t.Fatal(err)
	}
	var got [][]Answer
	err := m.Successors(init, func(_, _ int, _ State) {
		var as []Answer
		for _, a := range m.Asked() {
			as = append(as, Answer{Agent: a.Agent, Value: slices.Clone(a.Value)})
		}
		got = append(got, as)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Answer{{{Agent: 0, Value: []int64{0}}}, {{Agent: 0, Value: []int64{1}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestSetInterrupt checks the Machine API: a call that runs into the
// interrupt returns ErrInterrupted, and the machine works normally once
// the interrupt reports false again.
func TestSetInterrupt(t *testing.T) {
	_, mach, init, stop := interruptible(t)
	var got []int
	err := mach.Successors(init, func(a, _ int, _ State) { got = append(got, a) })
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Successors: err = %v, want ErrInterrupted", err)
	}
	// The cheap action b is not visited either: the call ended.
	if diff := cmp.Diff([]int(nil), got); diff != "" {
		t.Errorf("visited actions (-want +got):\n%s", diff)
	}
	mach.Enabled(init, nil)
	if !mach.Interrupted() {
		t.Error("Enabled: Interrupted() = false after a cut-short guard")
	}
	if _, err := mach.IsTerminal(init); err != nil {
		t.Errorf("IsTerminal: %v (no terminal predicate: nothing to interrupt)", err)
	}
	*stop = false
	got = nil
	err = mach.SuccessorsOf(init, []int{1}, func(a, _ int, _ State) { got = append(got, a) })
	if err != nil {
		t.Fatalf("SuccessorsOf after the interrupt: %v", err)
	}
	if diff := cmp.Diff([]int{1}, got); diff != "" {
		t.Errorf("visited actions (-want +got):\n%s", diff)
	}
}

// interruptible returns a machine whose interrupt reports *stop (true),
// of a model whose action a's guard, in the initial state (x = 0),
// takes 10^10 quantifier iterations, and action b sets x to 2.
func interruptible(t *testing.T) (prog *Program, mach *Machine, init State, stop *bool) {
	t.Helper()
	prog = compile(t, "spec E\nvar x: 0..3 = 0\naction a when forall i in 0..99999: forall j in 0..99999: i + j >= x { x := (x + 1) % 4 }\n"+
		"action b { x := 2 }\n")
	mach = prog.NewMachine()
	stop = new(bool)
	*stop = true
	mach.SetInterrupt(func() bool { return *stop })
	if err := mach.Init(func(_ int, s State) { init = append(State(nil), s...) }); err != nil {
		t.Fatal(err)
	}
	return prog, mach, init, stop
}

// addSpecSeeds adds the content of every file the patterns match to f's
// seeds.
func addSpecSeeds(f *testing.F, patterns ...string) {
	f.Helper()
	for _, pat := range patterns {
		files, _ := filepath.Glob(pat)
		for _, fn := range files {
			src, err := os.ReadFile(fn)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
}

// FuzzCompile checks that every spec the front end accepts compiles and
// runs (a few hundred states, its invariants and terminal predicate
// evaluated on each) without an internal error or a panic: vet accepting
// a spec that check cannot compile is a bug (a match with only an else
// arm once was one). Failures of the spec itself (*ExecError) are fine.
func FuzzCompile(f *testing.F) {
	addSpecSeeds(f, "../examples/*/*.wrap", "../spec/testdata/ok/*.wrap")
	f.Add([]byte("spec P\nvar b: bool\naction a { match b { else => b := true } }\nterminal b\n"))
	f.Add([]byte("spec P\ntype C = {r, g, b}\nvar c: C\naction a { match c { r, g => c := b  else => skip } }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		// The spec's own work (folding, expansion) under the deadline
		// too, as every way in checks a spec.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		m, err := spec.ParseFile("fuzz.wrap", src, spec.Options{Context: ctx})
		if err != nil {
			return
		}
		if err := explore(ctx, m, 500, 50); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatal(err)
		}
	})
}

// explore compiles m and runs it breadth-first, at most maxStates states
// and maxDepth levels, evaluating the invariants and the terminal
// predicate on every state. It returns the first error that is not a
// failure of the spec (*ExecError) or the end of ctx.
func explore(ctx context.Context, m *spec.Model, maxStates, maxDepth int) error {
	p, err := Compile(m)
	if err != nil {
		return err
	}
	var invs []*Pred
	for _, in := range m.Invariants {
		pr, err := p.CompileExpr(in.Expr)
		if err != nil {
			return err
		}
		invs = append(invs, pr)
	}
	mach := p.NewMachine()
	mach.SetInterrupt(func() bool { return ctx.Err() != nil })
	benign := func(err error) bool {
		var ee *ExecError
		return err == nil || errors.As(err, &ee) || errors.Is(err, ErrInterrupted)
	}
	seen := map[string]bool{}
	var level []State
	add := func(s State) {
		if k := fmt.Sprint(s); !seen[k] && len(seen) < maxStates {
			seen[k] = true
			level = append(level, slices.Clone(s))
		}
	}
	if err := mach.Init(func(_ int, s State) { add(s) }); !benign(err) {
		return err
	}
	for depth := 0; depth < maxDepth && len(level) > 0 && ctx.Err() == nil; depth++ {
		cur := level
		level = nil
		for _, s := range cur {
			for _, pr := range invs {
				if _, err := mach.Eval(pr, s); !benign(err) {
					return err
				}
			}
			if _, err := mach.IsTerminal(s); !benign(err) {
				return err
			}
			if err := mach.Successors(s, func(_, _ int, t State) { add(t) }); !benign(err) {
				return err
			}
		}
	}
	return nil
}
