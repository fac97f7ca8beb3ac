package verify

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// lassoCase is a spec whose check reports a liveness counterexample.
type lassoCase struct {
	name string
	src  []byte
	path string
	defs map[string]int64
	only []string
	docs bool // from docs/testdata/liveness, where some specs hold
}

// lassoCases returns the rows of examples/EXPECTED.tsv whose
// counterexample is a lasso, and the lassos of docs/testdata/liveness.
func lassoCases(t *testing.T) []lassoCase {
	t.Helper()
	data, err := os.ReadFile("../examples/EXPECTED.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []lassoCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if strings.HasPrefix(sc.Text(), "#") || len(f) < 7 || f[6] != "lasso" {
			continue
		}
		c := lassoCase{name: strings.Join(f[:3], " "), path: f[0], defs: map[string]int64{}}
		if f[1] != "-" {
			for _, d := range strings.Fields(f[1]) {
				k, v, _ := strings.Cut(d, "=")
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				c.defs[k] = n
			}
		}
		if f[2] != "-" {
			c.only = []string{f[2]}
		}
		if c.src, err = os.ReadFile(filepath.Join("../examples", f[0])); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	docs, _ := filepath.Glob("../docs/testdata/liveness/*.wrap")
	for _, p := range docs {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lassoCase{name: filepath.Base(p), src: src, path: filepath.Base(p), docs: true})
	}
	return out
}

// checkWith checks c's spec with the fairness declarations extra appended
// to its source, as a user would write them, with the default options
// (reductions on).
func (c lassoCase) checkWith(t *testing.T, extra ...string) *verdict.Result {
	t.Helper()
	src := slices.Clone(c.src)
	for _, x := range extra {
		src = append(src, "\n"+x+"\n"...)
	}
	m, err := spec.ParseFile(c.path, src, spec.Options{Defines: c.defs})
	if err != nil {
		t.Fatalf("with %v: %v", extra, err)
	}
	res, err := Run(context.Background(), m, Options{Workers: 1, Only: c.only})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameLasso reports whether a and b are the same lasso: the same actions
// through the same states, the same loop start.
func sameLasso(a, b *verdict.Violation) bool {
	if a.LoopStart != b.LoopStart || len(a.Trace) != len(b.Trace) {
		return false
	}
	for i := range a.Trace {
		if a.Trace[i].Action != b.Trace[i].Action || !slices.Equal(a.Trace[i].State, b.Trace[i].State) {
			return false
		}
	}
	return true
}

// allStrong returns "fairness strong X" for every process, family and
// action of m that m does not already declare strongly fair.
func allStrong(m *spec.Model) []string {
	var out []string
	add := func(x string) {
		for _, f := range m.Fairness {
			if f.Strong && f.Name == x {
				return
			}
		}
		if d := "fairness strong " + x; !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, p := range m.Processes {
		name := p.Name
		if p.Family != "" {
			name = p.Family
		}
		add(name)
		for _, a := range p.Actions {
			add(name + "." + m.Actions[a].Short)
		}
	}
	return out
}

// TestCycleRecheck checks the liveness analysis on every example lasso
// by checking again: check's notes are the analysis' notes; each
// declaration it suggests, added to the source, makes that counterexample
// go away (the property holds, or check reports another lasso); the
// checked fixes hold and the others do not when written in the source;
// a cycle said to be fair, or to survive every fairness, is still violated
// with strong fairness of everything written in; and an agent-driven
// cycle is said to be one.
func TestCycleRecheck(t *testing.T) {
	agentDriven, rechecked, fixes := 0, 0, 0
	for _, c := range lassoCases(t) {
		t.Run(c.name, func(t *testing.T) {
			m, err := spec.ParseFile(c.path, c.src, spec.Options{Defines: c.defs})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), m, Options{Workers: 1, Only: c.only})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Violation
			if c.docs && (v == nil || v.LoopStart < 0) {
				return
			}
			if v == nil || v.LoopStart < 0 {
				t.Fatalf("no lasso: %v", res.Verdict)
			}
			prog, err := machine.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			cyc, err := Liveness(prog, v)
			if err != nil {
				t.Fatal(err)
			}
			notes := cyc.Notes()
			if len(notes) == 0 {
				t.Errorf("no notes for the cycle %v", cyc.Actions)
			}
			var got []string
			for _, n := range res.Notes {
				if slices.Contains(notes, n) {
					got = append(got, n)
				}
			}
			if d := cmp.Diff(notes, got); d != "" {
				t.Errorf("check's notes are not the analysis' (-want +got):\n%s", d)
			}

			decls := map[string]bool{}
			for _, s := range cyc.Starved {
				if decls[s.Decl] {
					continue
				}
				decls[s.Decl] = true
				rechecked++
				r := c.checkWith(t, s.Decl)
				if r.Verdict == verdict.Violated && r.Violation.LoopStart >= 0 && sameLasso(v, r.Violation) {
					t.Errorf("with %s added, check reports the same counterexample", s.Decl)
				}
				if r.Verdict == verdict.Unknown {
					t.Errorf("with %s added: %s", s.Decl, r.Reason())
				}
			}

			if err := cyc.CheckFixes(context.Background(), m, v, Options{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			for d := range decls {
				holds := c.checkWith(t, d).Verdict == verdict.Holds
				fix := slices.Contains(cyc.Fixes, d)
				if fix {
					fixes++
				}
				if fix != holds {
					t.Errorf("%s: a fix %v, but written in the source the property holds %v", d, fix, holds)
				}
			}
			all := c.checkWith(t, allStrong(m)...)
			if stays := all.Verdict == verdict.Violated; stays != cyc.NoFairness {
				t.Errorf("no fairness %v, but with strong fairness of everything written in the property is still violated %v", cyc.NoFairness, stays)
			}
			if cyc.Fair && !cyc.NoFairness {
				t.Errorf("a fair cycle that some fairness rules out")
			}
			if cyc.AgentDriven != (cyc.NoFairness && len(cyc.Asked) > 0) {
				t.Errorf("agent-driven %v, no fairness %v, asked %v", cyc.AgentDriven, cyc.NoFairness, cyc.Asked)
			}
			if cyc.AgentDriven {
				agentDriven++
				said := slices.ContainsFunc(append(cyc.Notes(), cyc.FixNotes()...), func(n string) bool {
					return strings.Contains(n, "the answers of "+strings.Join(cyc.Asked, ", ")+" drive")
				})
				if !said {
					t.Errorf("an agent-driven cycle not said to be one: %v", append(cyc.Notes(), cyc.FixNotes()...))
				}
			}
		})
	}
	if rechecked == 0 || fixes == 0 {
		t.Errorf("%d suggested declarations re-checked, %d fixes: the test checks nothing", rechecked, fixes)
	}
	if agentDriven < 2 {
		t.Errorf("%d agent-driven cycles among the examples, want rerender_forever and gate_retry at least", agentDriven)
	}
}

// TestCycleNotes pins the notes of small lassos: a starved process, a
// starved top-level action (declared as main.A), a family instance (the
// family declared), a run that stops, and a cycle only agents drive.
func TestCycleNotes(t *testing.T) {
	tests := []struct {
		name, src string
		notes     []string
		fixes     []string
	}{
		{
			name: "process",
			src: `spec S
var done: bool
var tick: 0..1
process worker { action finish when not done { done := true } }
process clock { action step { tick := 1 - tick } }
property Finishes: eventually done
`,
			notes: []string{"the cycle starves worker: it is enabled throughout the cycle but never steps; `fairness weak worker` would exclude this cycle"},
			fixes: []string{"fairness weak worker"},
		},
		{
			name: "top-level action",
			src: `spec Live
var s: 0..2
action submit when s == 0 { s := 1 }
action poll when s == 1 { s := 1 }
action finish when s == 1 { s := 2 }
terminal s == 2
property Answered: eventually s == 2
`,
			notes: []string{"the cycle starves action finish: it is enabled throughout the cycle but never taken, while other actions of main are; `fairness weak main.finish` would exclude this cycle"},
			fixes: []string{"fairness weak main.finish"},
		},
		{
			name: "family",
			src: `spec F
type W = 0..1
var done: [W]bool
process w[i: W] {
  action finish when not done[i] { done[i] := true }
  action idle when not done[i] { done[i] := false }
}
terminal done[0] and done[1]
property AllDone: eventually (done[0] and done[1])
`,
			notes: []string{
				"the cycle starves w[1]: it is enabled throughout the cycle but never steps; `fairness weak w` would exclude this cycle",
				"the cycle starves action w[0].finish: it is enabled throughout the cycle but never taken, while other actions of w[0] are; `fairness weak w.finish` would exclude this cycle",
			},
			// w[1] may idle forever too: fairness of the process is not enough.
			fixes: []string{"fairness weak w.finish"},
		},
		{
			name: "stops",
			src: `spec Stop
var x: 0..2
action a when x == 0 { x := 1 }
terminal x == 1
property Two: eventually x == 2
`,
			notes: []string{"the run stops: its last state has no enabled action and repeats forever, so no fairness applies to it"},
		},
		{
			name: "agents",
			src: `spec Retry
var ok: bool
agent reviewer(): bool
process loop { action ask1 when not ok { ok := ask reviewer() } }
terminal ok
property Accepted: eventually ok
fairness weak loop
`,
			notes: []string{"no fairness excludes the cycle: every action enabled on it is taken on it; the answers of reviewer drive it, so the design must rule it out"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustModel(t, tt.src)
			res, err := Run(context.Background(), m, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Violation == nil || res.Violation.LoopStart < 0 {
				t.Fatalf("no lasso: %v", res.Verdict)
			}
			if d := cmp.Diff(tt.notes, res.Notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
			prog, err := machine.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Liveness(prog, res.Violation)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.CheckFixes(context.Background(), m, res.Violation, Options{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			if tt.fixes != nil {
				if d := cmp.Diff(tt.fixes, c.Fixes); d != "" {
					t.Errorf("fixes (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestCheckFixesUndecided: a check of a fix that stops early decides
// nothing: no fix, no "still violated", no "no fairness".
func TestCheckFixesUndecided(t *testing.T) {
	m := mustModel(t, `spec S
var done: bool
var tick: 0..3
process worker { action finish when not done { done := true } }
process clock { action step { tick := (tick + 1) % 4 } }
property Finishes: eventually done
`)
	res, err := Run(context.Background(), m, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Liveness(prog, res.Violation)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckFixes(context.Background(), m, res.Violation, Options{Workers: 1, MaxStates: 2}); err != nil {
		t.Fatal(err)
	}
	if len(c.Fixes) != 0 || c.NoFairness || !slices.Equal(c.Undecided, c.Excluders) || len(c.Excluders) == 0 {
		t.Errorf("fixes %v, undecided %v of %v, no fairness %v", c.Fixes, c.Undecided, c.Excluders, c.NoFairness)
	}
	want := []string{"adding `fairness weak worker` excludes this cycle; whether the property then holds was not decided (the check stopped early or met another violation)"}
	if d := cmp.Diff(want, c.FixNotes()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if err := c.CheckFixes(context.Background(), m, res.Violation, Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"fairness weak worker"}, c.Fixes); d != "" || len(c.Undecided) != 0 {
		t.Errorf("without a limit: fixes (-want +got):\n%s undecided %v", d, c.Undecided)
	}
}
