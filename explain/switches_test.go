package explain

import (
	"slices"
	"testing"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// bruteSwitches enumerates every path of n steps from the initial states
// of m and returns the fewest switches among those ending in v's
// violation, or -2 when there are more than limit paths.
func bruteSwitches(t *testing.T, m *spec.Model, v *verdict.Violation, n, limit int) int {
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newReplayer(prog, v)
	if err != nil {
		t.Fatal(err)
	}
	best, paths := -1, 0
	var walk func(s machine.State, depth, last, sw int)
	walk = func(s machine.State, depth, last, sw int) {
		if paths > limit {
			return
		}
		if depth == n {
			paths++
			if r.endsIn(s) && (best < 0 || sw < best) {
				best = sw
			}
			return
		}
		type succ struct {
			a int
			t machine.State
		}
		var ss []succ
		_ = r.mach.Successors(s, func(a, _ int, u machine.State) { ss = append(ss, succ{a, slices.Clone(u)}) })
		for _, x := range ss {
			p := m.Actions[x.a].Process
			d := 0
			if last >= 0 && p != last {
				d = 1
			}
			walk(x.t, depth+1, p, sw+d)
		}
	}
	var inits []machine.State
	_ = r.mach.Init(func(_ int, u machine.State) { inits = append(inits, slices.Clone(u)) })
	for _, s := range inits {
		walk(s, 0, -1, 0)
	}
	if paths > limit {
		return -2
	}
	return best
}

// TestFewestSwitches checks, on the finite example counterexamples, that
// the trace found has the same length, still violates (by replay), has no
// more switches than check's, and has the fewest that an enumeration of
// every path of that length finds.
func TestFewestSwitches(t *testing.T) {
	compared := 0
	for _, ex := range examples(t) {
		if ex.v.LoopStart >= 0 || (ex.v.Kind != verdict.Invariant && ex.v.Kind != verdict.Deadlock) {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			w, err := FewestSwitches(ex.m, ex.v, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Trace) != len(ex.v.Trace) {
				t.Fatalf("%d steps, want %d", len(w.Trace)-1, len(ex.v.Trace)-1)
			}
			if got := outcome(t, ex.m, w, 0); got != "violates" {
				t.Fatalf("the trace with the fewest switches: %s", got)
			}
			got, orig := Switches(ex.m, w.Trace), Switches(ex.m, ex.v.Trace)
			if got > orig {
				t.Fatalf("%d switches, check's trace has %d", got, orig)
			}
			t.Logf("%d switches, check's trace %d", got, orig)
			if want := bruteSwitches(t, ex.m, ex.v, len(ex.v.Trace)-1, 300000); want != -2 {
				compared++
				if got != want {
					t.Fatalf("%d switches, the enumeration finds %d", got, want)
				}
			}
		})
	}
	if compared < 5 {
		t.Fatalf("only %d examples compared with the enumeration", compared)
	}
}

// TestFewestSwitchesInterleaved checks specs whose shortest traces
// interleave processes in many orders against the enumeration.
func TestFewestSwitchesInterleaved(t *testing.T) {
	tests := []struct {
		name, src string
		want      int
	}{
		{"two", `spec S
var x: 0..2
var y: 0..2
process q { action b when y < 2 { y := y + 1 } }
process p { action a when x < 2 { x := x + 1 } }
invariant NotBoth: not (x == 2 and y == 2)
`, 1},
		{"three", `spec S
var x: 0..2
var y: 0..2
var z: 0..1
process r { action c when z < 1 and x > 0 { z := z + 1 } }
process q { action b when y < 2 { y := y + 1 } }
process p { action a when x < 2 { x := x + 1 } }
invariant NotAll: not (x == 2 and y == 2 and z == 1)
`, 2},
		{"family", `spec S
var done: [0..2]0..2
process w[i: 0..2] { action step when done[i] < 2 { done[i] := done[i] + 1 } }
invariant NotAll: not (forall i in 0..2: done[i] == 2)
`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile("s.wrap", []byte(tt.src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := verifyRun(m)
			if err != nil {
				t.Fatal(err)
			}
			w, err := FewestSwitches(m, res, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := Switches(m, w.Trace)
			brute := bruteSwitches(t, m, res, len(res.Trace)-1, 1000000)
			t.Logf("check's trace has %d switches", Switches(m, res.Trace))
			if got != tt.want || brute != tt.want || len(w.Trace) != len(res.Trace) {
				t.Fatalf("%d switches, enumeration %d, want %d (check's trace: %d)", got, brute, tt.want, Switches(m, res.Trace))
			}
			if outcome(t, m, w, 0) != "violates" {
				t.Fatal("the trace does not violate")
			}
		})
	}
}
