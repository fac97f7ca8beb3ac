package explain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// terminalSpec gets stuck in a state where its terminal condition fails
// to evaluate (a division by zero): a runtime error, found as a deadlock.
// Toggling z does not matter to it.
const terminalSpec = `spec Term
var x: 0..3
var z: bool = false
action a when x < 1 { x := 1 }
action c when x < 1 { z := not z }
terminal 6 / (x - 1) == 0
`

// manySpec has several finite violations and a lasso under --continue.
const manySpec = `spec Many
var a: 0..3
var b: 0..3
process pa { action inc when a < 3 { a := a + 1 } }
process pb {
  action inc when b < 3 { b := b + 1 }
  action reset when b == 3 { b := 0 }
}
invariant A: a < 2
invariant B: b < 3
property L: eventually a == 3
`

// assertSpec fails an assertion after two steps.
const assertSpec = `spec Assert
var x: 0..3
var y: bool = false
action flip when not y { y := true }
action grow when x < 3 { x := x + 1
  assert not (y and x == 2) "x reached 2 after the flip" }
`

// initSpec fails in its init block: a trace of the initial state alone.
const initSpec = `spec InitFail
var x: 0..3
var y: 0..3
init { x := 2
  y := x + 2 }
`

// loadCase parses src (or the example at path when src is "") and checks
// it with one worker.
func loadCase(t *testing.T, path, src string, opts verify.Options) (*spec.Model, *verdict.Result) {
	t.Helper()
	data := []byte(src)
	name := path
	if src == "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("..", "examples", path)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := spec.ParseFile(name, data, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Workers = 1
	res, err := verify.Run(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, res
}

// TestAttach checks that Attach gives every finite violation of a check
// the slice Safety computes for it, and leaves lassos alone.
func TestAttach(t *testing.T) {
	tests := []struct {
		name, path, src string
		opts            verify.Options
		finite, lassos  int
	}{
		{name: "invariant", path: "approval/toctou.wrap", finite: 1},
		{name: "agents", path: "pipeline/pass_with_issues.wrap", finite: 1},
		{name: "deadlock", path: "classic/naive_mutex_deadlock.wrap", finite: 1},
		{name: "lasso", path: "classic/traffic_light_weak.wrap", lassos: 1},
		{name: "terminal", path: "term.wrap", src: terminalSpec, finite: 1},
		{name: "assertion", path: "assert.wrap", src: assertSpec, finite: 1},
		{name: "init", path: "init.wrap", src: initSpec, finite: 1},
		{name: "continue", path: "many.wrap", src: manySpec, opts: verify.Options{Continue: true}, finite: 2, lassos: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, res := loadCase(t, tt.path, tt.src, tt.opts)
			notes := len(res.Notes)
			if err := Attach(context.Background(), m, res, verify.Options{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			// The notes added are the checked fixes of the lassos.
			var want []string
			for _, v := range report.Violations(res) {
				if v.LoopStart >= 0 {
					c, err := Liveness(m, v)
					if err != nil {
						t.Fatal(err)
					}
					if err := c.CheckFixes(context.Background(), m, v, verify.Options{Workers: 1}); err != nil {
						t.Fatal(err)
					}
					want = append(want, c.FixNotes()...)
				}
			}
			if d := cmp.Diff(want, res.Notes[notes:], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("the notes Attach added (-want +got):\n%s", d)
			}
			if tt.lassos > 0 && len(want) == 0 {
				t.Errorf("no note on the checked fixes of a lasso")
			}
			finite, lassos := 0, 0
			for _, v := range report.Violations(res) {
				if v.LoopStart >= 0 {
					lassos++
					if v.Slice != nil {
						t.Errorf("lasso %s has a slice", v.Name)
					}
					continue
				}
				finite++
				if v.Slice == nil {
					t.Fatalf("%s %s: no slice", v.Kind, v.Name)
				}
				w := *v
				w.Slice = nil
				e, err := Safety(m, &w)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(e.Slice(), v.Slice); d != "" {
					t.Errorf("%s: the attached slice is not Safety's (-want +got):\n%s", v.Name, d)
				}
				// A shortest counterexample: every step is essential.
				for i, st := range v.Slice.Steps {
					if st.Essential != (i > 0) {
						t.Errorf("%s step %d: essential %v", v.Name, i, st.Essential)
					}
				}
			}
			if finite != tt.finite || lassos != tt.lassos {
				t.Errorf("%d finite violations and %d lassos, want %d and %d", finite, lassos, tt.finite, tt.lassos)
			}
		})
	}
}

// runOf returns the trace that takes the named actions from the initial
// state init of m, each by its first successor.
func runOf(t *testing.T, m *spec.Model, init []int64, names ...string) []verdict.Step {
	t.Helper()
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mach := prog.NewMachine()
	s := make(machine.State, prog.Words())
	prog.Pack(s, init)
	trace := []verdict.Step{{Action: -1, State: init}}
	for _, name := range names {
		var next machine.State
		act := -1
		_ = mach.Successors(s, func(a, _ int, u machine.State) {
			if next == nil && m.Actions[a].Name == name {
				next, act = slices.Clone(u), a
			}
		})
		if next == nil {
			t.Fatalf("%s is not enabled", name)
		}
		st := make([]int64, prog.Slots())
		prog.Unpack(st, next)
		trace = append(trace, verdict.Step{Action: act, State: st})
		s = next
	}
	return trace
}

// TestTerminalFailure pins the slice of a terminal condition that fails
// to evaluate on a longer run than check's: the step that leads to the
// stuck state matters; the toggles of z do not, since without either the
// run still gets stuck there.
func TestTerminalFailure(t *testing.T) {
	m, res := loadCase(t, "term.wrap", terminalSpec, verify.Options{})
	v := *res.Violation
	if v.Kind != verdict.RuntimeError || v.Name != "terminal" || len(v.Trace) != 2 {
		t.Fatalf("check found %s %s in %d steps, want the terminal failing after one", v.Kind, v.Name, len(v.Trace)-1)
	}
	v.Trace = runOf(t, m, v.Trace[0].State, "c", "c", "a")
	e, err := Safety(m, &v)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{},
		{Changed: []string{"z"}},
		{Changed: []string{"z"}},
		{Essential: true, Changed: []string{"x"}, Because: "writes x, read by the terminal condition (and the guards)"},
	}
	if d := cmp.Diff(want, e.Steps); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"x"}, e.Reads); d != "" {
		t.Errorf("reads (-want +got):\n%s", d)
	}
}

// TestCheckRenderings renders check's results with the slice attached in
// every format of package report, and compares them with
// testdata/check/NAME.golden: the text marks the essential steps (*) with
// their because lines, JSON has "essential" per step, Mermaid highlights
// them, SARIF rates each location's importance, JUnit's failure text is
// the text trace. "long" is a recorded run with steps that are not
// essential.
func TestCheckRenderings(t *testing.T) {
	tests := []struct {
		name, path, src, run string
	}{
		{name: "toctou", path: "approval/toctou.wrap"},
		{name: "long", path: "approval/toctou.wrap", run: "../docs/testdata/explain/long.jsonl"},
		{name: "agents", path: "pipeline/pass_with_issues.wrap"},
		{name: "deadlock", path: "classic/philosophers.wrap"},
		{name: "terminal", path: "term.wrap", src: terminalSpec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, res := loadCase(t, tt.path, tt.src, verify.Options{})
			if tt.run != "" {
				f, err := os.Open(tt.run)
				if err != nil {
					t.Fatal(err)
				}
				lines, err := replay.Read(m, "long.jsonl", f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				rr, err := replay.Check(m, lines)
				if err != nil || rr.Violation == nil {
					t.Fatalf("replay: %v, %v", err, rr)
				}
				res = &verdict.Result{Verdict: verdict.Violated, Violation: rr.Violation, Violations: []*verdict.Violation{rr.Violation}}
			}
			res.Stats.Seconds, res.Stats.PropertySeconds, res.Stats.Workers, res.Stats.PeakHeapBytes = 0, 0, 0, 0
			if err := Attach(context.Background(), m, res, verify.Options{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			for _, f := range []struct {
				name   string
				render func(*bytes.Buffer) error
			}{
				{"text", func(w *bytes.Buffer) error { return report.Text(w, m, res) }},
				{"json", func(w *bytes.Buffer) error { return report.JSON(w, m, res) }},
				{"mermaid", func(w *bytes.Buffer) error { return report.Mermaid(w, m, res) }},
				{"sarif", func(w *bytes.Buffer) error { return report.SARIF(w, m, res) }},
				{"junit", func(w *bytes.Buffer) error { return report.JUnit(w, m, res) }},
			} {
				b.WriteString("-- " + f.name + " --\n")
				if err := f.render(&b); err != nil {
					t.Fatal(err)
				}
			}
			golden.Check(t, filepath.Join("testdata", "check", tt.name+".golden"), b.Bytes())
		})
	}
}
