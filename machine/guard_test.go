package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestEqConstGuard checks runAction's inline guard test against the
// guard's closure on the first reachable states of every example: where
// an action keeps (eqOff, eqK), the closure never fails when
// mem[eqOff] != eqK and is then false, and with eqOnly it is exactly
// mem[eqOff] == eqK.
func TestEqConstGuard(t *testing.T) {
	files, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	fast, only, checked := 0, 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(filepath.Base(file), src, spec.Options{})
		if err != nil {
			continue // an example that needs defines, or one of errors
		}
		p, err := Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, ca := range p.actions {
			if ca.eqOff >= 0 {
				fast++
				if ca.eqOnly {
					only++
				}
			}
		}
		mach := p.NewMachine()
		seen := map[string]bool{}
		var queue []State
		add := func(s State) {
			k := fmt.Sprint(s)
			if !seen[k] && len(seen) < 2000 {
				seen[k] = true
				queue = append(queue, append(State(nil), s...))
			}
		}
		_ = mach.Init(func(_ int, s State) { add(s) })
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			mach.Load(s)
			for a := range p.actions {
				ca := &p.actions[a]
				if ca.eqOff < 0 {
					continue
				}
				mach.action = a
				g := ca.guard(mach)
				failed := mach.err != nil
				mach.err = nil
				eq := mach.mem[ca.eqOff] == ca.eqK
				checked++
				if !eq && (failed || g != 0) {
					t.Fatalf("%s: action %d: guard %d (failed %v) where mem[%d] = %d != %d", file, a, g, failed, ca.eqOff, mach.mem[ca.eqOff], ca.eqK)
				}
				if ca.eqOnly && (failed || (g != 0) != eq) {
					t.Fatalf("%s: action %d: guard %d (failed %v), inline test %v", file, a, g, failed, eq)
				}
			}
			_ = mach.Successors(s, func(_, _ int, t State) { add(t) })
		}
	}
	if fast == 0 || only == 0 || only == fast || checked == 0 {
		t.Fatalf("inline guards: %d (%d exact), %d checks: want both shapes checked", fast, only, checked)
	}
}

// candidates returns the actions in the bit set c.
func candidates(c []uint64) []int {
	var out []int
	for a := 0; a < 64*len(c); a++ {
		if c[a/64]&(1<<uint(a%64)) != 0 {
			out = append(out, a)
		}
	}
	return out
}

// TestCandidates checks the guard tables against the actions themselves
// on the first reachable states of every example: an action that
// Candidates leaves out makes no successor and raises no failure.
func TestCandidates(t *testing.T) {
	files, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	skipped, tables := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(filepath.Base(file), src, spec.Options{})
		if err != nil {
			continue // an example that needs defines, or one of errors
		}
		p, err := Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		tables += len(p.guardTabs)
		mach := p.NewMachine()
		seen := map[string]bool{}
		var queue []State
		add := func(s State) {
			k := fmt.Sprint(s)
			if !seen[k] && len(seen) < 2000 {
				seen[k] = true
				queue = append(queue, append(State(nil), s...))
			}
		}
		_ = mach.Init(func(_ int, s State) { add(s) })
		mach.OnState(func(*Machine) {})
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			mach.Load(s)
			in := map[int]bool{}
			for _, a := range candidates(mach.Candidates()) {
				in[a] = true
			}
			for a := range p.actions {
				if in[a] {
					continue
				}
				skipped++
				before := mach.Ordinal()
				if !mach.RunAction(a) || mach.Ordinal() != before {
					t.Fatalf("%s: action %d left out of Candidates in %v made %d states (failure %v)",
						file, a, s, mach.Ordinal()-before, mach.Failure())
				}
			}
			mach.ClearFailure()
			_ = mach.Successors(s, func(_, _ int, t State) { add(t) })
			mach.OnState(func(*Machine) {})
		}
	}
	if skipped == 0 || tables == 0 {
		t.Fatalf("%d guard tables, %d actions left out: want some", tables, skipped)
	}
}

// TestCandidatesShapes checks which actions the guard tables leave out
// for first conjuncts of several shapes, over every value of x, and that
// a first conjunct failing at a value keeps its action in (RunAction
// then reports the failure), as does one too long to evaluate at
// compile time.
func TestCandidatesShapes(t *testing.T) {
	p := compile(t, `spec shapes
var x: 0..3
var y: 0..3
var s: set of 0..2
action eq when x == 1 { x := 0 }
action ne when x != 1 and y == 0 { x := 1 }
action lt when x < 2 { x := 2 }
action div when 6 / (x - 2) == 3 { x := 3 }
action two when x == y { y := 0 }
action set when 1 in s { x := 0 }
action none { y := 1 }
action long when forall i in 0..99999: i + x >= 0 { y := 2 }
`)
	m := p.NewMachine()
	var got [][]int
	for x := int64(0); x <= 3; x++ {
		st := make(State, p.Words())
		p.Pack(st, []int64{x, 0, 0})
		m.Load(st)
		got = append(got, candidates(m.Candidates()))
	}
	want := [][]int{
		{1, 2, 4, 6, 7}, // x = 0: eq, div (6 / -2) out; long: too long for a table
		{0, 2, 4, 6, 7}, // x = 1
		{1, 3, 4, 6, 7}, // x = 2: div fails (division by zero), stays in
		{1, 4, 6, 7},    // x = 3: 6 / 1 != 3
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Candidates over x (-want +got):\n%s", diff)
	}
	st := make(State, p.Words())
	p.Pack(st, []int64{2, 0, 0})
	m.Load(st)
	m.OnState(func(*Machine) {})
	if m.RunAction(3) || m.Failure() == nil || !strings.Contains(m.Failure().Msg, "division by zero") {
		t.Errorf("action div at x = 2: failure %v, want a division by zero", m.Failure())
	}
	if len(p.guardTabs) != 2 {
		t.Errorf("%d guard tables, want 2 (x and s)", len(p.guardTabs))
	}
}
