package verify

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
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
func actions(m *spec.Model, v *checker.Violation) []string {
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
			if res.Verdict != checker.Violated {
				t.Fatalf("verdict %s, want violated", res.Verdict)
			}
			if diff := cmp.Diff([]string{"a.one", "a.two"}, actions(m, res.Violation)); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
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
	if res.Verdict != checker.Violated || res.Violation.Kind != checker.Property || res.Violation.LoopStart < 0 {
		t.Fatalf("got %s %+v, want a property lasso", res.Verdict, res.Violation)
	}
	if res.Stats.States != 2 || res.Stats.Transitions != 2 {
		t.Errorf("stats %+v, want the 2 states and 2 transitions of the system", res.Stats)
	}
	res, err = Run(context.Background(), m, Options{Only: []string{"Nope"}})
	if err == nil && res.Verdict == checker.Holds {
		t.Errorf("--only of an unknown name must not hold silently")
	}
}
