package checker

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestShortestUnderAmple: the ample hook puts process b's invisible,
// independent step first whenever it is enabled (as partial-order
// reduction does), so the reduced search meets each violation one step
// late. The search itself must report the shortest traces of the system
// without the hook, with the figures of the reduced search.
func TestShortestUnderAmple(t *testing.T) {
	m, err := spec.ParseFile("t.wrap", []byte(`spec P
var x: 0..2
var y: 0..1
process a {
  action one when x == 0 { x := 1 }
  action two when x == 1 { x := 2 }
}
process b {
  action step when y == 0 { y := 1 }
}
invariant NotOne: x != 1
invariant NotTwo: x != 2
`), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	step := slices.IndexFunc(m.Actions, func(a *spec.Action) bool { return a.Name == "b.step" })
	stepFirst := func(_ []int64, en []int) []int {
		if len(en) > 1 && slices.Contains(en, step) {
			return []int{step}
		}
		return en
	}
	type got struct {
		Verdict string
		States  int64
		Traces  map[string][]string // per violated check, its trace's actions
	}
	traces := func(r *Result) got {
		g := got{Verdict: r.Verdict.String(), States: r.Stats.States, Traces: map[string][]string{}}
		for _, v := range r.Violations {
			var acts []string
			for _, s := range v.Trace[1:] {
				acts = append(acts, m.Actions[s.Action].Name)
			}
			g.Traces[v.Name] = acts
		}
		if r.Violation != r.Violations[0] {
			t.Errorf("Violation is not Violations[0]")
		}
		return g
	}
	for _, tt := range []struct {
		name string
		opts Options
		want got
	}{
		// Unreduced, NotOne is met at depth 1; the reduced search stores
		// (0,0) and (0,1) before it meets (1,1) at depth 2.
		{"first", Options{Ample: stepFirst}, got{"violated", 3, map[string][]string{"NotOne": {"a.one"}}}},
		{"first-compact", Options{Ample: stepFirst, HashCompact: true}, got{"violated", 3, map[string][]string{"NotOne": {"a.one"}}}},
		{"only-two", Options{Ample: stepFirst, Only: []string{"NotTwo"}}, got{"violated", 4, map[string][]string{"NotTwo": {"a.one", "a.two"}}}},
		// The reduced graph: (0,0) (0,1) (1,1) (2,1).
		{"continue", Options{Ample: stepFirst, Continue: true}, got{"violated", 4, map[string][]string{"NotOne": {"a.one"}, "NotTwo": {"a.one", "a.two"}}}},
		{"continue-compact", Options{Ample: stepFirst, Continue: true, HashCompact: true}, got{"violated", 4, map[string][]string{"NotOne": {"a.one"}, "NotTwo": {"a.one", "a.two"}}}},
		{"no-ample", Options{Continue: true}, got{"violated", 6, map[string][]string{"NotOne": {"a.one"}, "NotTwo": {"a.one", "a.two"}}}},
	} {
		for _, workers := range []int{1, 3} {
			opts := tt.opts
			opts.Workers, opts.NoDeadlock = workers, true
			r, err := run(context.Background(), m, opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, traces(r)); diff != "" {
				t.Errorf("%s/w%d (-want +got):\n%s", tt.name, workers, diff)
			}
		}
	}
}
