package explain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// example is a violated row of examples/EXPECTED.tsv, or the smallest
// violated instance of each peer translation in testdata/COUNTS.tsv.
type example struct {
	name string
	m    *spec.Model
	v    *verdict.Violation
}

// peerRows returns, per file, the violated row of COUNTS.tsv with the
// fewest states, in the columns of EXPECTED.tsv (file, defines, only,
// verdict).
func peerRows(t testing.TB) [][]string {
	t.Helper()
	data, err := os.ReadFile("../testdata/COUNTS.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	best := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if strings.HasPrefix(sc.Text(), "#") || len(f) < 6 || f[4] != "violated" {
			continue
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		f[0] = strings.TrimPrefix(f[0], "examples/") // EXPECTED.tsv's files are relative to examples/
		row := []string{f[0], f[1], "-", "violated", "", "", f[5]}
		i := slices.IndexFunc(rows, func(r []string) bool { return r[0] == f[0] })
		switch {
		case i < 0:
			rows = append(rows, row)
		case n < best[f[0]]:
			rows[i] = row
		default:
			continue
		}
		best[f[0]] = n
	}
	return rows
}

func examples(t testing.TB) []example {
	t.Helper()
	data, err := os.ReadFile("../examples/EXPECTED.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "#") {
			rows = append(rows, strings.Split(sc.Text(), "\t"))
		}
	}
	rows = append(rows, peerRows(t)...)
	var out []example
	for _, f := range rows {
		if len(f) < 7 || f[3] != "violated" {
			continue
		}
		defs := map[string]int64{}
		if f[1] != "-" {
			for _, d := range strings.Fields(f[1]) {
				k, v, _ := strings.Cut(d, "=")
				n, _ := strconv.ParseInt(v, 10, 64)
				defs[k] = n
			}
		}
		src, err := os.ReadFile(filepath.Join("../examples", f[0]))
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(f[0], src, spec.Options{Defines: defs})
		if err != nil {
			t.Fatal(err)
		}
		var opts verify.Options
		opts.Workers = 1
		if f[2] != "-" {
			opts.Only = []string{f[2]}
		}
		res, err := verify.Run(context.Background(), m, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Violation == nil {
			t.Fatalf("%s: no violation", f[0])
		}
		out = append(out, example{name: strings.TrimSuffix(f[0], ".wrap") + " " + f[1] + " " + f[2], m: m, v: res.Violation})
	}
	return out
}

// withOnly returns a copy of m whose only check is invariant name.
func withOnly(m *spec.Model, name string) *spec.Model {
	c := *m
	c.Properties = nil
	c.Invariants = nil
	for _, in := range m.Invariants {
		if in.Name == name {
			c.Invariants = []*spec.Invariant{in}
		}
	}
	return &c
}

// outcome replays the trace of v without step drop (0: none) on m, with
// package replay for an invariant (the recorded initial state, then each
// step's action and the agent answers it recorded), and with a direct
// subset simulation for a deadlock: "infeasible", "violates" or "holds".
func outcome(t *testing.T, m *spec.Model, v *verdict.Violation, drop int) string {
	t.Helper()
	var steps []verdict.Step
	for i, st := range v.Trace[1:] {
		if i+1 != drop {
			steps = append(steps, st)
		}
	}
	if v.Kind == verdict.Deadlock {
		return deadlockOutcome(t, m, v.Trace[0].State, steps)
	}
	sub := withOnly(m, v.Name)
	var b bytes.Buffer
	st := map[string]any{}
	for _, x := range m.Vars {
		if x.Monitor != nil {
			continue // replay recomputes the past-time monitors
		}
		st[x.Name] = valueJSON(x.Type, v.Trace[0].State[x.Slot:x.Slot+x.Type.Width])
	}
	first, _ := json.Marshal(map[string]any{"state": st})
	b.Write(append(first, '\n'))
	for _, st := range steps {
		rec := map[string]any{"action": m.Actions[st.Action].Name}
		if len(st.Asked) > 0 {
			asked := map[string]any{}
			for _, a := range st.Asked {
				ag := m.Agents[a.Agent]
				asked[ag.Name] = valueJSON(ag.Result, a.Value)
			}
			rec["asked"] = asked
		}
		line, _ := json.Marshal(rec)
		b.Write(append(line, '\n'))
	}
	run, err := replay.Read(sub, "run", &b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Check(sub, run)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case res.Diverged != nil:
		return "infeasible"
	case res.Violation != nil && res.Violation.Name == v.Name:
		if drop == 0 && res.Line != len(steps)+1 {
			return "violates early"
		}
		return "violates"
	case res.Violation != nil:
		return "other violation " + res.Violation.Name
	}
	return "holds"
}

func deadlockOutcome(t *testing.T, m *spec.Model, init []int64, steps []verdict.Step) string {
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mach := prog.NewMachine()
	mach.RecordAnswers(true)
	s := make(machine.State, prog.Words())
	prog.Pack(s, init)
	cur := []machine.State{s}
	dead := func(c machine.State) bool {
		moves := false
		err := mach.Successors(c, func(int, int, machine.State) { moves = true })
		term, _ := mach.IsTerminal(c)
		return !moves && err == nil && !term
	}
	if dead(s) {
		return "violates"
	}
	for _, st := range steps {
		var next []machine.State
		for _, c := range cur {
			_ = mach.Successors(c, func(act, _ int, u machine.State) {
				if act == st.Action && recorded(mach.Asked(), st.Asked) {
					next = append(next, slices.Clone(u))
				}
			})
		}
		if len(next) == 0 {
			return "infeasible"
		}
		if slices.ContainsFunc(next, dead) {
			return "violates"
		}
		cur = next
	}
	return "holds"
}

// recorded reports whether a branch's answers got include each recorded
// answer (written independently of machine.AnswersInclude).
func recorded(got, want []verdict.Answer) bool {
	for _, w := range want {
		found := false
		for _, g := range got {
			if g.Agent == w.Agent && slices.Equal(g.Value, w.Value) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func valueJSON(t *spec.Type, slots []int64) any { return report.ValueJSON(t, slots) }

// swappedOutcome is outcome for the trace of v with steps i and i+1
// swapped (states kept as they are: the replay ignores them after the
// initial one).
func swappedOutcome(t *testing.T, m *spec.Model, v *verdict.Violation, i int) string {
	w := *v
	w.Trace = slices.Clone(v.Trace)
	w.Trace[i], w.Trace[i+1] = w.Trace[i+1], w.Trace[i]
	if got := outcome(t, m, &w, 0); got != "violates early" {
		return got
	}
	return "violates"
}

// checkSlice checks the causal slice of v by replay: without a marked
// step the rest is infeasible or does not violate; without an unmarked
// one it is feasible and still violates. It returns the unmarked count.
func checkSlice(t *testing.T, m *spec.Model, v *verdict.Violation) int {
	t.Helper()
	e, err := Safety(m, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Steps) != len(v.Trace) || e.Steps[0].Essential {
		t.Fatalf("%d steps for a trace of %d, initial essential %v", len(e.Steps), len(v.Trace), e.Steps[0].Essential)
	}
	if got := outcome(t, m, v, 0); got != "violates" {
		t.Fatalf("the whole trace: %s", got)
	}

	for i := 1; i+1 < len(v.Trace); i++ {
		got := swappedOutcome(t, m, v, i)
		if e.Steps[i].BeforeNext != (got != "violates") {
			t.Errorf("step %d: before-next %v, but with the next step swapped the trace %s", i, e.Steps[i].BeforeNext, got)
		}
	}
	unmarked := 0
	for i := 1; i < len(v.Trace); i++ {
		got := outcome(t, m, v, i)
		if e.Steps[i].Essential {
			if got != "infeasible" && got != "holds" {
				t.Errorf("step %d (%s) is marked, but without it the trace %s", i, m.Actions[v.Trace[i].Action].Name, got)
			}
			if e.Steps[i].Because == "" {
				t.Errorf("step %d is marked without a because", i)
			}
		} else {
			unmarked++
			if got != "violates" {
				t.Errorf("step %d (%s) is unmarked, but without it the trace %s", i, m.Actions[v.Trace[i].Action].Name, got)
			}
		}
	}
	return unmarked
}

// TestExampleSlices checks the causal slice of every finite example
// counterexample (all steps are essential: they are shortest) and of
// longer violating runs found by random walks on the same specs, where
// some steps are not.
func TestExampleSlices(t *testing.T) {
	unmarked, walks := 0, 0
	for _, ex := range examples(t) {
		if ex.v.LoopStart >= 0 {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			if n := checkSlice(t, ex.m, ex.v); n != 0 {
				t.Errorf("a shortest counterexample has %d removable steps", n)
			}
			if ex.v.Kind != verdict.Invariant && ex.v.Kind != verdict.Deadlock {
				return
			}
			r := rand.New(rand.NewPCG(uint64(len(ex.name)), 7))
			for _, w := range walksTo(t, ex.m, ex.v, r, 3) {
				walks++
				unmarked += checkSlice(t, ex.m, w)
			}
		})
	}
	if walks == 0 || unmarked == 0 {
		t.Fatalf("%d walks with %d unmarked steps: the slice is never tested on a removable step", walks, unmarked)
	}
	t.Logf("%d longer runs, %d removable steps", walks, unmarked)
}

// walksTo returns up to n runs longer than v's trace, from its initial
// state, that first violate v's check at their end.
func walksTo(t *testing.T, m *spec.Model, v *verdict.Violation, r *rand.Rand, n int) []*verdict.Violation {
	return walksLonger(t, m, v, r, n, len(v.Trace))
}

// walksLonger is walksTo for runs of more than min trace entries.
func walksLonger(t *testing.T, m *spec.Model, v *verdict.Violation, r *rand.Rand, n, min int) []*verdict.Violation {
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := newReplayer(prog, v)
	if err != nil {
		t.Fatal(err)
	}
	mach := prog.NewMachine()
	mach.RecordAnswers(true)
	var out []*verdict.Violation
	for try := 0; try < 400 && len(out) < n; try++ {
		s := slices.Clone(rp.init)
		trace := []verdict.Step{v.Trace[0]}
		for len(trace) < 3*max(len(v.Trace), min)+4 {
			var succ []machine.State
			var acts []int
			var asked [][]verdict.Answer
			_ = mach.Successors(s, func(a, _ int, u machine.State) {
				succ, acts = append(succ, slices.Clone(u)), append(acts, a)
				var as []verdict.Answer
				for _, x := range mach.Asked() {
					as = append(as, verdict.Answer{Agent: x.Agent, Value: slices.Clone(x.Value)})
				}
				asked = append(asked, as)
			})
			if len(succ) == 0 {
				break
			}
			k := r.IntN(len(succ))
			s = succ[k]
			st := make([]int64, prog.Slots())
			prog.Unpack(st, s)
			trace = append(trace, verdict.Step{Action: acts[k], State: st, Asked: asked[k]})
			if rp.endsIn(s) {
				w := &verdict.Violation{Name: v.Name, Kind: v.Kind, Pos: v.Pos, Trace: trace, LoopStart: -1}
				// Keep runs that no run with the same actions violates
				// earlier (replay follows every such run).
				if len(trace) > min && outcome(t, m, w, 0) == "violates" {
					out = append(out, w)
				}
				break
			}
		}
	}
	return out
}

// TestBecause pins the explanation of the TOCTOU counterexample.
func TestBecause(t *testing.T) {
	for _, ex := range examples(t) {
		if ex.name != "approval/toctou - -" {
			continue
		}
		e, err := Safety(ex.m, ex.v)
		if err != nil {
			t.Fatal(err)
		}
		want := []Step{
			{},
			{Essential: true, BeforeNext: true, Changed: []string{"granted"}, Because: "writes granted, read by step 3 (releaser.release)"},
			{Essential: true, BeforeNext: true, Changed: []string{"content"}, Because: "writes content, read by step 3 (releaser.release)"},
			{Essential: true, Changed: []string{"released", "shipped"}, Because: "writes released, shipped, read by ShippedWhatWasApproved"},
		}
		if d := cmp.Diff(want, e.Steps); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
		if d := cmp.Diff([]string{"approved", "released", "shipped"}, e.Reads); d != "" {
			t.Errorf("reads (-want +got):\n%s", d)
		}
		return
	}
	t.Fatal("no toctou example")
}

// TestLiveness explains the example lassos.
func TestLiveness(t *testing.T) {
	want := map[string]string{}
	var got []string
	for _, ex := range examples(t) {
		if ex.v.LoopStart < 0 {
			continue
		}
		c, err := Liveness(ex.m, ex.v)
		if err != nil {
			t.Fatalf("%s: %v", ex.name, err)
		}
		if err := c.CheckFixes(context.Background(), ex.m, ex.v, verify.Options{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s: cycle %v asked %v excluders %v fixes %v no-fairness %v agent-driven %v stops %v",
			ex.name, c.Actions, c.Asked, c.Excluders, c.Fixes, c.NoFairness, c.AgentDriven, c.Stops))
	}
	_ = want
	golden.Check(t, filepath.Join("testdata", "liveness.golden"), []byte(strings.Join(got, "\n")+"\n"))
}

// verifyRun checks m with one worker and returns its violation.
func verifyRun(m *spec.Model) (*verdict.Violation, error) {
	res, err := verify.Run(context.Background(), m, verify.Options{Workers: 1})
	if err != nil {
		return nil, err
	}
	if res.Violation == nil {
		return nil, fmt.Errorf("%s: no violation", m.Name)
	}
	return res.Violation, nil
}

// TestProgramHandedOn: Explain and Attach use the program the check
// compiled (a program of another model is refused, so it is the one
// used) instead of compiling the model again.
func TestProgramHandedOn(t *testing.T) {
	exs := examples(t)
	if len(exs) < 2 {
		t.Fatal("fewer than two example counterexamples")
	}
	a, b := exs[0], exs[1]
	other, err := machine.Compile(b.m)
	if err != nil {
		t.Fatal(err)
	}
	want := "explain: the program was compiled from another model"
	if _, err := Explain(context.Background(), a.m, a.v, Options{Verify: verify.Options{Program: other}}); err == nil || err.Error() != want {
		t.Errorf("Explain with another model's program: %v, want %q", err, want)
	}
	res := &verdict.Result{Verdict: verdict.Violated, Violation: a.v}
	if err := Attach(context.Background(), a.m, res, verify.Options{Program: other}); err == nil || err.Error() != want {
		t.Errorf("Attach with another model's program: %v, want %q", err, want)
	}
	own, err := machine.Compile(a.m)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Explain(context.Background(), a.m, a.v, Options{Verify: verify.Options{Program: own}})
	if err != nil {
		t.Fatal(err)
	}
	y, err := Explain(context.Background(), a.m, a.v, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(y.Slice, x.Slice, cmp.AllowUnexported(Explanation{})); diff != "" {
		t.Errorf("slice with the check's program vs compiled anew (-new +handed):\n%s", diff)
	}
}

// TestRecordedRun explains the violation a recorded run reaches
// (testdata/run_long.jsonl on testdata/cites_nogate.wrap): the run asks
// the verifier twice, and only its second answer ships the draft, so
// every step is essential with the answers the run recorded (with any
// answers, the first check could ship, and steps 4 and 5 looked
// removable). Random runs of the same spec, with the answers they took,
// are then checked against the replay of each run without each step.
func TestRecordedRun(t *testing.T) {
	src, err := os.ReadFile("testdata/cites_nogate.wrap")
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile("cites_nogate.wrap", src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/run_long.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := replay.Run(m, "run_long.jsonl", f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil {
		t.Fatal("the run reaches no violation")
	}
	v := res.Violation
	e, err := Safety(m, v)
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, st := range e.Steps {
		got = append(got, st.Essential)
	}
	if d := cmp.Diff([]bool{false, true, true, true, true, true}, got); d != "" {
		t.Errorf("essential steps (-want +got):\n%s", d)
	}
	checkSlice(t, m, v)

	// Random runs of a roomier spec, from its initial state.
	src, err = os.ReadFile("testdata/cites_retry.wrap")
	if err != nil {
		t.Fatal(err)
	}
	if m, err = spec.ParseFile("cites_retry.wrap", src, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	vr, err := verify.Run(context.Background(), m, verify.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if vr.Violation == nil {
		t.Fatal("cites_retry.wrap: no violation")
	}
	r := rand.New(rand.NewPCG(34, 15))
	walks, unmarked := 0, 0
	for _, w := range walksLonger(t, m, vr.Violation, r, 60, 1) {
		walks++
		unmarked += checkSlice(t, m, w)
	}
	if walks < 30 || unmarked == 0 {
		t.Fatalf("%d random runs with %d removable steps: too few to test the slice", walks, unmarked)
	}
	t.Logf("%d random runs, %d removable steps", walks, unmarked)
}
