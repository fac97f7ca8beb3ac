package verify

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

func mustModel(t *testing.T, src string) *spec.Model {
	t.Helper()
	m, err := spec.ParseFile("t.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// actions returns the action names along a trace.
func actions(m *spec.Model, v *verdict.Violation) []string {
	var out []string
	for _, st := range v.Trace[1:] {
		out = append(out, m.Actions[st.Action].Name)
	}
	return out
}

// TestShortestUnderPOR: the invisible, independent step of process b is an
// ample set of its own in the initial state, so the reduced search reaches
// the violation only after it; the reported trace must still be the
// shortest one of the full system.
func TestShortestUnderPOR(t *testing.T) {
	m := mustModel(t, `spec P
var x: 0..2
var y: 0..1
process a {
  action one when x == 0 { x := 1 }
  action two when x == 1 { x := 2 }
}
process b {
  action step when y == 0 { y := 1 }
}
invariant NotTwo: x != 2
`)
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"reductions", Options{}},
		{"no-por", Options{NoPOR: true}},
		{"no-reductions", Options{NoPOR: true, NoSymmetry: true}},
		{"one-worker", Options{Workers: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), m, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Violated {
				t.Fatalf("verdict %s, want violated", res.Verdict)
			}
			if diff := cmp.Diff([]string{"a.one", "a.two"}, actions(m, res.Violation)); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSymmetryFailingBranch: from the canonical state the first branch of
// pick reaches phase 2 and the second fails. The trace is replayed from a
// concrete state, a permutation of it, where the failing branch comes
// first; a failure used to end the whole action there, so the replay lost
// the step and panicked ("trace replay lost a step"). A failing branch
// ends only itself now.
func TestSymmetryFailingBranch(t *testing.T) {
	m := mustModel(t, `spec S
type Id = symmetric 2
var mark: [Id]bool
var phase: 0..2
action start when phase == 0 {
  choose i in Id { mark[i] := true }
  phase := 1
}
action pick when phase == 1 {
  choose i in Id {
    assert not mark[i] "picked the marked one"
    phase := 2
  }
}
invariant NotTwo: phase != 2
`)
	for _, opts := range []Options{{NoDeadlock: true}, {NoDeadlock: true, NoSymmetry: true, NoPOR: true}} {
		res, err := Run(context.Background(), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		// Both the failing branch and phase 2 are two steps away: either
		// is a shortest violation.
		v := res.Violation
		if v == nil {
			t.Fatalf("NoSymmetry=%v: %s, want a violation", opts.NoSymmetry, res.Verdict)
		}
		if diff := cmp.Diff([]string{"start", "pick"}, actions(m, v)); diff != "" {
			t.Errorf("NoSymmetry=%v: trace (-want +got):\n%s", opts.NoSymmetry, diff)
		}
	}
}

// TestPropertiesAfterSafety: a safety violation is reported before any
// property is searched; when safety holds the property's lasso comes back.
func TestPropertiesAfterSafety(t *testing.T) {
	m := mustModel(t, `spec L
var x: 0..1
action flip { x := 1 - x }
property Settles: eventually always x == 1
`)
	res, err := Run(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Violated || res.Violation.Kind != verdict.Property || res.Violation.LoopStart < 0 {
		t.Fatalf("got %s %+v, want a property lasso", res.Verdict, res.Violation)
	}
	if res.Stats.States != 2 || res.Stats.Transitions != 2 {
		t.Errorf("stats %+v, want the 2 states and 2 transitions of the system", res.Stats)
	}
	res, err = Run(context.Background(), m, Options{Only: []string{"Nope"}})
	if err == nil && res.Verdict == verdict.Holds {
		t.Errorf("--only of an unknown name must not hold silently")
	}
}

// TestReducedCountsIndependentOfWorkers: with partial-order reduction (and
// symmetry) the stored states and transitions are the same for any number
// of workers, because the cycle proviso does not depend on which worker
// stored a state first.
func TestReducedCountsIndependentOfWorkers(t *testing.T) {
	m := mustModel(t, `spec Indep
type W = symmetric 4
process w[i: W] {
  var c: 0..3
  var d: 0..2
  action inc when c < 3 { c := c + 1 }
  action dec when c > 0 and d < 2 { c := c - 1; d := d + 1 }
}
process p[j: 0..2] {
  var e: 0..2
  action step { e := (e + 1) % 3 }
}
`)
	var want verdict.Stats
	for i, workers := range []int{1, 2, 4} {
		res, err := Run(context.Background(), m, Options{Workers: workers, NoDeadlock: true})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Stats
		got.Seconds, got.Workers, got.PeakHeapBytes, got.BytesPerState = 0, 0, 0, 0
		if i == 0 {
			want = got
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("workers=%d (-workers=1 +got):\n%s", workers, diff)
		}
	}
	full, err := Run(context.Background(), m, Options{NoPOR: true, NoSymmetry: true, NoDeadlock: true})
	if err != nil {
		t.Fatal(err)
	}
	if want.States >= full.Stats.States {
		t.Errorf("reductions stored %d states, the full system has %d: no reduction", want.States, full.Stats.States)
	}
}

// TestFairnessNotes: a lasso that starves a process says which fairness
// would exclude it; a property that holds says which fairness it needed.
func TestFairnessNotes(t *testing.T) {
	const body = `
var done: bool
var tick: 0..1
process worker {
  action finish when not done { done := true }
}
process clock {
  action step { tick := 1 - tick }
}
property Finishes: eventually done
`
	starved := mustModel(t, "spec S\n"+body)
	res, err := Run(context.Background(), starved, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"the cycle starves worker: it is enabled throughout the cycle but never steps; `fairness weak worker` would exclude this cycle"}
	if diff := cmp.Diff(want, res.Notes); diff != "" {
		t.Errorf("starved (-want +got):\n%s", diff)
	}
	fair := mustModel(t, "spec F\n"+body+"fairness weak worker\nfairness weak clock\n")
	res, err = Run(context.Background(), fair, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"property Finishes needs `fairness weak worker` (t.wrap:12:1): without it, it fails",
		"`fairness weak clock` (t.wrap:13:1): the properties hold without it (the other fairness declarations kept)",
	}
	if diff := cmp.Diff(want, res.Notes); diff != "" {
		t.Errorf("fair (-want +got):\n%s", diff)
	}
}

// threeBugs has three independent safety bugs at depths 2, 3 and 3 and
// a liveness bug (a never reaches 3 while c cycles), all off with BUG=0,
// which leaves the transition system as it is.
const threeBugs = `spec ThreeBugs
const BUG = 1
var a: 0..3
var b: 0..3
var c: 0..3
process pa { action inc when a < 3 { a := a + 1 } }
process pb { action inc when b < 3 { b := b + 1 } }
process pc {
  action inc when c < 3 { c := c + 1 }
  action reset when c == 3 { c := 0 }
}
invariant A: BUG == 0 or a < 2
invariant Fine: a + b <= 6
invariant B: BUG == 0 or b < 3
invariant C: BUG == 0 or not (a == 1 and c == 2)
property L: BUG == 0 or eventually a == 3
`

// TestContinue: --continue finds every violated check of threeBugs in one
// search, each with the trace of a run with --only that check; its counts
// are those of the run where everything holds; the default run stops at
// the first violation's level with that same first violation.
func TestContinue(t *testing.T) {
	ctx := context.Background()
	parse := func(bug int64) *spec.Model {
		m, err := spec.ParseFile("t.wrap", []byte(threeBugs), spec.Options{Defines: map[string]int64{"BUG": bug}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m, clean := parse(1), parse(0)
	type found struct {
		Kind, Name string
		Actions    []string
		LoopStart  int
	}
	summary := func(v *verdict.Violation) found {
		return found{v.Kind.String(), v.Name, actions(m, v), v.LoopStart}
	}
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"reductions", Options{}},
		{"no-reductions", Options{NoPOR: true, NoSymmetry: true}},
		{"one-worker", Options{Workers: 1, NoPOR: true}},
		{"four-workers", Options{Workers: 4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Continue = true
			res, err := Run(ctx, m, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []found
			for _, v := range res.Violations {
				got = append(got, summary(v))
			}
			var want []found
			for _, name := range []string{"A", "B", "C", "L"} {
				o := tt.opts
				o.Only = []string{name}
				one, err := Run(ctx, m, o)
				if err != nil {
					t.Fatal(err)
				}
				if one.Verdict != verdict.Violated {
					t.Fatalf("--only %s: %v", name, one.Verdict)
				}
				want = append(want, summary(one.Violation))
			}
			// In search order: by depth, then by the tie-break key.
			slices.SortStableFunc(got, func(a, b found) int { return strings.Compare(a.Name, b.Name) })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("violations by name (-want +got):\n%s", diff)
			}
			if res.Violation != res.Violations[0] || res.Stop == verdict.StopAtViolation || len(res.Undecided) != 0 {
				t.Errorf("violation %v, stopped %v, undecided %v", res.Violation == res.Violations[0], res.Stop == verdict.StopAtViolation, res.Undecided)
			}
			all, err := Run(ctx, clean, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if all.Verdict != verdict.Holds {
				t.Fatalf("BUG=0: %v", all.Verdict)
			}
			if tt.opts.NoPOR {
				// With POR the visible variables (and so the reduced
				// space) depend on the invariants, which BUG changes.
				type counts struct{ States, Transitions int64 }
				if diff := cmp.Diff(counts{all.Stats.States, all.Stats.Transitions}, counts{res.Stats.States, res.Stats.Transitions}); diff != "" {
					t.Errorf("--continue counts (-holds +continue):\n%s", diff)
				}
			}
			def, err := Run(ctx, m, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(summary(res.Violation), summary(def.Violation)); diff != "" {
				t.Errorf("default run's violation (-continue +default):\n%s", diff)
			}
			if def.Stop != verdict.StopAtViolation || len(def.Violations) != 1 || def.Stats.States >= res.Stats.States {
				t.Errorf("default run: stopped %v, %d violations, %d states (continue: %d)", def.Stop == verdict.StopAtViolation, len(def.Violations), def.Stats.States, res.Stats.States)
			}
			if diff := cmp.Diff([]string{"L"}, def.Undecided); diff != "" {
				t.Errorf("default run's undecided properties (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContinueDeterministic: --continue reports the same violations, in
// the same order, with the same traces and counts, for any worker count,
// on every example that violates a check.
func TestContinueDeterministic(t *testing.T) {
	paths, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	compared, several := 0, 0
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(filepath.Base(path), src, spec.Options{})
		if err != nil {
			continue // the examples that must be rejected
		}
		var first *verdict.Result
		for _, workers := range []int{1, 4} {
			res, err := Run(context.Background(), m, Options{Workers: workers, Continue: true, MaxStates: 200000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Violated {
				break
			}
			res.Stats = verdict.Stats{States: res.Stats.States, Transitions: res.Stats.Transitions, Depth: res.Stats.Depth}
			if first == nil {
				first = res
				continue
			}
			compared++
			if len(res.Violations) > 1 {
				several++
			}
			if diff := cmp.Diff(first, res); diff != "" {
				t.Errorf("%s: workers 1 and 4 differ (-1 +4):\n%s", path, diff)
			}
		}
	}
	if compared < 10 || several < 3 {
		t.Errorf("%d violated examples compared, %d with several violations: want at least 10 and 3", compared, several)
	}
}
