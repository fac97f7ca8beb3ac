package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// pair is a broken example and its fix, from examples/README.md and
// EXPECTED.tsv: two files, or one file with two sets of defines.
type pair struct {
	name             string
	old, new         string
	oldDefs, newDefs map[string]int64
}

var examplePairs = []pair{
	{name: "fail_open", old: "pipeline/fail_open.wrap", new: "pipeline/pipeline.wrap"},
	{name: "pass_with_issues", old: "pipeline/pass_with_issues.wrap", new: "pipeline/pipeline.wrap"},
	{name: "release_after_outage", old: "pipeline/release_after_outage.wrap", new: "pipeline/pipeline.wrap"},
	{name: "second_rerender", old: "pipeline/second_rerender.wrap", new: "pipeline/pipeline.wrap"},
	{name: "rerender_forever", old: "pipeline/rerender_forever.wrap", new: "pipeline/pipeline.wrap"},
	{name: "approval_toctou", old: "pipeline/approval_toctou.wrap", new: "pipeline/pipeline.wrap"},
	{name: "no_citation_gate", old: "pipeline/no_citation_gate.wrap", new: "pipeline/pipeline.wrap"},
	{name: "invented_fact", old: "pipeline/invented_fact.wrap", new: "pipeline/invented_fact.wrap", newDefs: map[string]int64{"EVIDENCE_GATE": 1}},
	{name: "invented_fact_strict", old: "pipeline/invented_fact.wrap", new: "pipeline/invented_fact.wrap", oldDefs: map[string]int64{"STRICT": 1}, newDefs: map[string]int64{"EVIDENCE_GATE": 1}},
	{name: "brp_early_timeout", old: "peers/brp.wrap", new: "peers/brp.wrap", oldDefs: map[string]int64{"EARLY": 1}},
	{name: "toctou_snapshot", old: "approval/toctou.wrap", new: "approval/toctou_fixed_snapshot.wrap"},
	{name: "toctou_revoke", old: "approval/toctou.wrap", new: "approval/toctou_fixed_revoke.wrap"},
	{name: "stale_pr_approval", old: "approval/stale_pr_approval.wrap", new: "approval/stale_pr_approval.wrap", newDefs: map[string]int64{"DISMISS_STALE": 1}},
	{name: "mcp_tool_swap", old: "approval/mcp_tool_swap.wrap", new: "approval/mcp_tool_swap.wrap", newDefs: map[string]int64{"PIN": 1}},
	{name: "chained_shell", old: "approval/chained_shell.wrap", new: "approval/chained_shell.wrap", newDefs: map[string]int64{"CHECK_ALL": 1}},
	{name: "parallel_guardrail", old: "approval/parallel_guardrail.wrap", new: "approval/parallel_guardrail.wrap", newDefs: map[string]int64{"SEQUENTIAL": 1}},
	{name: "peterson", old: "classic/peterson.wrap", new: "classic/peterson_fair.wrap"},
	{name: "philosophers", old: "classic/philosophers.wrap", new: "classic/philosophers.wrap", oldDefs: map[string]int64{"N": 3}, newDefs: map[string]int64{"N": 3, "ORDERED": 1}},
	{name: "alternating_bit", old: "classic/alternating_bit_weak.wrap", new: "classic/alternating_bit.wrap"},
	{name: "traffic_light", old: "classic/traffic_light_weak.wrap", new: "classic/traffic_light.wrap"},
	// symmetric identities, arrays indexed by them
	{name: "peers_toctou", old: "peers/toctou.wrap", new: "peers/toctou.wrap", oldDefs: map[string]int64{"D": 2}, newDefs: map[string]int64{"D": 2, "FIXED": 1}},
	// past-time monitors in the state (hidden from the observation)
	{name: "toctou_past", old: "approval/toctou_past.wrap", new: "approval/toctou_fixed_revoke_past.wrap"},
	{name: "stale_pr_approval_past", old: "approval/stale_pr_approval_past.wrap", new: "approval/stale_pr_approval_past.wrap", newDefs: map[string]int64{"DISMISS_STALE": 1}},
	{name: "approval_toctou_past", old: "pipeline/approval_toctou_past.wrap", new: "pipeline/pipeline_past.wrap"},
	// the peer translations' planted bugs, on small instances
	{name: "peers_pipeline", old: "peers/pipeline.wrap", new: "peers/pipeline.wrap", oldDefs: map[string]int64{"K": 1, "N": 1, "BUG": 1}, newDefs: map[string]int64{"K": 1, "N": 1}},
	{name: "peers_pipeline_arrays", old: "peers/pipeline_arrays.wrap", new: "peers/pipeline_arrays.wrap", oldDefs: map[string]int64{"K": 1, "N": 2, "BUG": 1}, newDefs: map[string]int64{"K": 1, "N": 2}},
}

func load(t testing.TB, path string, defs map[string]int64) *spec.Model {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", path))
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{Defines: defs})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// withoutChecks returns a copy of m without invariants and properties,
// so that replay follows a trace to its end.
func withoutChecks(m *spec.Model) *spec.Model {
	c := *m
	c.Invariants, c.Properties = nil, nil
	return &c
}

// jsonl renders lines as a recorded run for package replay.
func jsonl(t *testing.T, lines []jsonStep) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, l := range lines {
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(data, '\n'))
	}
	return b.Bytes()
}

// replayRun replays lines on m and returns the result, or the error of
// reading them (an action m does not have).
func replayRun(t *testing.T, m *spec.Model, lines []jsonStep) (*replay.Result, error) {
	t.Helper()
	run, err := replay.Read(m, "run", bytes.NewReader(jsonl(t, lines)))
	if err != nil {
		return nil, err
	}
	res, err := replay.Check(withoutChecks(m), run)
	if err != nil {
		t.Fatal(err)
	}
	return res, nil
}

// checkDistinguishing checks d's trace by replay, independently of the
// product search: the whole trace (states and answers) is a run of From;
// To has a run through every observation but the last, and none through
// all of them.
func checkDistinguishing(t *testing.T, r *Result, d *Direction) {
	t.Helper()
	from, to := r.Old, r.New
	amap := r.Obs.OldToNew
	if d.From == "new" {
		from, to, amap = r.New, r.Old, r.Obs.NewToOld
	}
	full := stepsJSON(from, d.Trace.Steps)
	res, err := replayRun(t, from, full)
	if err != nil {
		t.Fatalf("%s: the trace does not read back: %v", d.From, err)
	}
	if res.Diverged != nil || res.Violation != nil {
		t.Fatalf("%s does not allow its own distinguishing trace: %+v", d.From, res)
	}
	// The observed trace, in To's names.
	var obs []jsonStep
	for i, st := range d.Trace.Steps {
		js := jsonStep{Step: i, State: map[string]any{}}
		if st.Action >= 0 {
			if b := amap[st.Action]; b >= 0 {
				name := to.Actions[b].Name
				js.Action = &name
			} else {
				name := "(none)"
				js.Action = &name
			}
		}
		for _, sh := range r.Obs.Shared {
			fv, tv := sh.Old, sh.New
			if d.From == "new" {
				fv, tv = sh.New, sh.Old
			}
			js.State[tv.Name] = report.ValueJSON(fv.Type, st.State[fv.Slot:fv.Slot+fv.Type.Width])
		}
		obs = append(obs, js)
	}
	n := len(obs)
	if n > 1 {
		res, err := replayRun(t, to, obs[:n-1])
		if err != nil || res.Diverged != nil || res.Violation != nil {
			t.Fatalf("%s cannot follow the trace's first %d steps: %v %+v", d.To, n-2, err, res)
		}
	}
	res, err = replayRun(t, to, obs)
	if err == nil && res.Diverged == nil {
		t.Fatalf("%s follows the whole distinguishing trace: %+v", d.To, res)
	}
	if err == nil && res.Diverged.Line != n {
		t.Fatalf("%s diverges at line %d, want %d", d.To, res.Diverged.Line, n)
	}
	if err != nil && d.Trace.Steps[n-1].Action >= 0 && amap[d.Trace.Steps[n-1].Action] >= 0 {
		t.Fatalf("%s: the observed trace does not read back: %v", d.To, err)
	}
}

// TestExamplePairs compares each broken example with its fix: the
// distinguishing traces, replayed on both specs, and the text output,
// against a golden.
func TestExamplePairs(t *testing.T) {
	for _, p := range examplePairs {
		t.Run(p.name, func(t *testing.T) {
			old, new := load(t, p.old, p.oldDefs), load(t, p.new, p.newDefs)
			r, err := Compare(context.Background(), old, new, Options{Verify: verify.Options{Workers: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if r.OldOnly.Incomplete || r.NewOnly.Incomplete {
				t.Fatalf("incomplete: %s / %s", r.OldOnly.Reason, r.NewOnly.Reason)
			}
			if !r.Differ() {
				t.Fatal("a broken example and its fix compare the same")
			}
			for _, d := range []*Direction{r.OldOnly, r.NewOnly} {
				if d.Trace != nil {
					checkDistinguishing(t, r, d)
				}
			}
			var b bytes.Buffer
			if err := r.Text(&b, Names{Old: p.old + defsText(p.oldDefs), New: p.new + defsText(p.newDefs)}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "examples", p.name+".golden"), b.Bytes())
		})
	}
}

func defsText(defs map[string]int64) string {
	var s []string
	for _, k := range []string{"K", "D", "FIXED", "N", "BUG", "EARLY", "STRICT", "EVIDENCE_GATE", "DISMISS_STALE", "PIN", "CHECK_ALL", "SEQUENTIAL", "ORDERED"} {
		if v, ok := defs[k]; ok {
			s = append(s, " -D "+k+"="+itoa(v))
		}
	}
	return strings.Join(s, "")
}

func itoa(v int64) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// TestSelf compares every example with itself (a peer translation on a
// small instance): no difference, every verdict the same.
func TestSelf(t *testing.T) {
	paths, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		rel, _ := filepath.Rel("../examples", path)
		rel = filepath.ToSlash(rel)
		if rel == "pipeline/blind_assume.wrap" {
			continue // rejected
		}
		var defs map[string]int64
		if strings.HasPrefix(rel, "peers/pipeline") {
			defs = map[string]int64{"K": 1, "N": 2} // large by default
		}
		t.Run(strings.TrimSuffix(rel, ".wrap"), func(t *testing.T) {
			m := load(t, rel, defs)
			// The verdicts of a spec and itself agree trivially; the
			// table is left to the pairs but for one small spec.
			r, err := Compare(context.Background(), m, m, Options{NoChecks: rel != "approval/toctou.wrap", Verify: verify.Options{Workers: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Differ() || r.Incomplete() {
				var b bytes.Buffer
				_ = r.Text(&b, Names{Old: rel, New: rel})
				t.Fatalf("a spec differs from itself:\n%s", b.String())
			}
			if len(r.Obs.Hidden) > 0 || len(r.Obs.OnlyOld)+len(r.Obs.OnlyNew) > 0 {
				t.Fatalf("hidden %v, only %v %v", r.Obs.Hidden, r.Obs.OnlyOld, r.Obs.OnlyNew)
			}
		})
	}
}

// TestObserve covers the sharing rules: compatible types, renames, an
// unknown rename.
func TestObserve(t *testing.T) {
	parse := func(src string) *spec.Model {
		m, err := spec.ParseFile("t.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	old := parse(`spec A
type E = {a, b}
var x: 0..3
var y: bool
var e: E
var s: set of 0..3
var only: bool
action go { x := 1 }
action stay { skip }
`)
	new := parse(`spec B
type F = {a, b}
var x: 0..7
var z: bool
var e: F
var s: set of 1..4
action run { x := 1 }
action stay { skip }
`)
	tests := []struct {
		name    string
		rename  map[string]string
		shared  []string
		hidden  []string
		onlyOld []string
		onlyNew []string
		wantErr string
	}{
		{name: "plain", shared: []string{"x", "e"},
			hidden:  []string{"old y: only in old", "old s: types differ: set of 0..3 and set of 1..4", "old only: only in old", "new z: only in new"},
			onlyOld: []string{"go"}, onlyNew: []string{"run"}},
		{name: "renamed", rename: map[string]string{"y": "z", "go": "run"}, shared: []string{"x", "y", "e"},
			hidden: []string{"old s: types differ: set of 0..3 and set of 1..4", "old only: only in old"}},
		{name: "unknown", rename: map[string]string{"w": "z"}, wantErr: "--map w: A declares no variable or action w"},
		{name: "twice", rename: map[string]string{"y": "x"}, wantErr: "--map: two variables of A stand for x of B"},
		{name: "two actions", rename: map[string]string{"go": "stay"}, wantErr: "--map: two actions of A stand for stay of B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Observe(old, new, tt.rename)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var shared, hidden []string
			for _, s := range o.Shared {
				shared = append(shared, s.Old.Name)
			}
			for _, h := range o.Hidden {
				hidden = append(hidden, h.Spec+" "+h.Name+": "+h.Reason)
			}
			got := []any{shared, hidden, o.OnlyOld, o.OnlyNew}
			want := []any{tt.shared, tt.hidden, tt.onlyOld, tt.onlyNew}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestDeterministic renders a few pairs twice, with one and with four
// workers for the verdict table: the output is the same byte for byte.
func TestDeterministic(t *testing.T) {
	for _, p := range examplePairs {
		if p.name != "toctou_snapshot" && p.name != "no_citation_gate" && p.name != "philosophers" {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			var outs []string
			for _, workers := range []int{1, 4} {
				old, new := load(t, p.old, p.oldDefs), load(t, p.new, p.newDefs)
				r, err := Compare(context.Background(), old, new, Options{Verify: verify.Options{Workers: workers}})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := r.JSON(&b, Names{Old: "a", New: "b"}); err != nil {
					t.Fatal(err)
				}
				outs = append(outs, b.String())
			}
			if d := cmp.Diff(outs[0], outs[1]); d != "" {
				t.Errorf("workers 1 and 4 differ (-1 +4):\n%s", d)
			}
		})
	}
}

// TestChecks pins the verdict table of a pair whose invariant is masked
// by an assertion in one spec and violated in the other.
func TestChecks(t *testing.T) {
	parse := func(src string) *spec.Model {
		m, err := spec.ParseFile("t.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	old := parse(`spec Mask
var x: 0..3
action a when x < 3 { x := x + 1 }
action b when x == 1 { assert false "boom" }
invariant Small: x < 3
`)
	new := parse(`spec Mask
var x: 0..3
action a when x < 3 { x := x + 1 }
invariant Small: x < 3
invariant Tiny: x < 4
terminal x == 3
`)
	rows, err := Checks(context.Background(), old, new, verify.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Kind, Name, Old, New, Change string }
	var got []row
	for _, r := range rows {
		got = append(got, row{r.Kind, r.Name, r.Old.Text(), r.New.Text(), r.Change()})
	}
	want := []row{
		{"invariant", "Small", "masked", "violated (3 steps)", "masked → violated"},
		{"invariant", "Tiny", "-", "holds", "new check"},
		{"deadlock", "", "masked", "holds", "masked → holds"},
		{"errors", "", "violated (2 steps)", "holds", "violated → holds"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if rows[0].Old.Reason != "assertion b is reached first" {
		t.Errorf("reason %q", rows[0].Old.Reason)
	}
}

// TestChecksAgainstOnly compares the verdict table, which checks a copy
// of the model keeping one check, with verify.Run and Options.Only on the
// whole model (deadlocks off), on the example pairs outside the large
// pipeline ones.
func TestChecksAgainstOnly(t *testing.T) {
	for _, p := range examplePairs {
		if strings.HasPrefix(p.old, "pipeline/") && !strings.HasPrefix(p.name, "invented_fact") {
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			old, new := load(t, p.old, p.oldDefs), load(t, p.new, p.newDefs)
			rows, err := Checks(context.Background(), old, new, verify.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.Kind != "invariant" && r.Kind != "property" {
					continue
				}
				for _, side := range []struct {
					m   *spec.Model
					out Outcome
				}{{old, r.Old}, {new, r.New}} {
					if !side.out.Present {
						continue
					}
					res, err := verify.Run(context.Background(), side.m, verify.Options{Workers: 1, Only: []string{r.Name}, NoDeadlock: true})
					if err != nil {
						t.Fatal(err)
					}
					got := side.out.Text()
					want := "holds"
					if v := res.Violation; v != nil {
						switch {
						case v.Name != r.Name:
							want = "masked"
						case v.LoopStart >= 0:
							want = "violated (lasso)"
						default:
							want = Outcome{Present: true, Verdict: Violated, Steps: len(v.Trace) - 1}.Text()
						}
					}
					if got != want {
						t.Errorf("%s %s: the table says %s, --only says %s", side.m.Name, r.Name, got, want)
					}
				}
			}
		})
	}
}

// TestCompareExpired compares with a context whose deadline has passed
// (the CLI's --timeout now also covers loading, so a run cannot reach
// the comparison that way): every search and check is incomplete, and
// the text says so.
func TestCompareExpired(t *testing.T) {
	m := load(t, "approval/toctou.wrap", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	r, err := Compare(ctx, m, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Differ() || !r.Incomplete() {
		t.Fatalf("differ %v, incomplete %v: want only incomplete", r.Differ(), r.Incomplete())
	}
	var b bytes.Buffer
	if err := r.Text(&b, Names{Old: "old.wrap", New: "new.wrap"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nno difference found, but the comparison is incomplete\n") {
		t.Errorf("text:\n%s", b.String())
	}
}
