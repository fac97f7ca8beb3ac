package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec"
)

func loadPipeline(t testing.TB) *spec.Model {
	t.Helper()
	path := filepath.Join("..", "examples", "pipeline", "pipeline.wrap")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func loadMapping(t testing.TB, m *spec.Model, text string) *Mapping {
	t.Helper()
	mp, err := ParseMapping(m, "mapping.json", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return mp
}

func pipelineMapping(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "otlp", "pipeline.mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// outcome is a replay's verdict in a comparable form: conforms, or the
// span id and action of the divergence, or the violation.
func outcome(t *testing.T, m *spec.Model, run TracedRun) string {
	t.Helper()
	res, err := Check(m, run.Lines)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case res.Diverged != nil:
		return fmt.Sprintf("diverges at %s %s", run.Spans[res.Diverged.Line-1].SpanID, res.Diverged.Action)
	case res.Violation != nil:
		return "violation " + res.Violation.Name
	}
	return fmt.Sprintf("conforms after %d steps", res.Steps)
}

// TestOTLPRecordings regenerates the recordings of testdata/otlp with the
// toy wrapper and the OpenTelemetry SDK, compares them with the files, and
// replays them on examples/pipeline/pipeline.wrap: the conforming run
// conforms, each broken one diverges at the span of the step that went
// wrong (with the recorded state), or at the first step the spec then
// refuses (without it).
func TestOTLPRecordings(t *testing.T) {
	m := loadPipeline(t)
	withState := loadMapping(t, m, pipelineMapping(t))
	blind := loadMapping(t, m, blindMapping(t))
	for i, sc := range toyScenarios {
		t.Run(sc.name, func(t *testing.T) {
			data, steps := record(t, i, "genai")
			path := filepath.Join("testdata", "otlp", sc.name+".json")
			golden.Check(t, path, data)
			for _, c := range []struct {
				name string
				mp   *Mapping
				bad  int
			}{{"state", withState, sc.bad}, {"blind", blind, sc.blind}} {
				runs, err := ReadOTLP(m, path, bytes.NewReader(data), c.mp)
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) != 1 || runs[0].Key != "conv-"+sc.name {
					t.Fatalf("%s: runs %v, want one, conv-%s", c.name, runKeyList(runs), sc.name)
				}
				if len(runs[0].Lines) != len(steps) {
					t.Errorf("%s: %d steps mapped, the wrapper took %d", c.name, len(runs[0].Lines), len(steps))
				}
				got := outcome(t, m, runs[0])
				want := fmt.Sprintf("conforms after %d steps", len(steps))
				if c.bad > 0 {
					want = fmt.Sprintf("diverges at %s %s", steps[c.bad-1], m.Actions[runs[0].Lines[c.bad-1].action].Name)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: (-want +got):\n%s", c.name, diff)
				}
			}
		})
	}
}

func blindMapping(t *testing.T) string {
	t.Helper()
	text := pipelineMapping(t)
	start := strings.Index(text, `"state": {`)
	end := strings.Index(text, `"rules"`)
	return text[:start] + text[end:]
}

func runKeyList(runs []TracedRun) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Key)
	}
	return out
}

// TestOTLPDialects: the same mapping reads the same run from the current
// GenAI conventions, the v1.36-era names and OpenInference.
func TestOTLPDialects(t *testing.T) {
	m := loadPipeline(t)
	mp := loadMapping(t, m, pipelineMapping(t))
	var want []Line
	for _, dialect := range []string{"genai", "genai-1.36", "openinference"} {
		data, _ := record(t, 0, dialect)
		runs, err := ReadOTLP(m, dialect+".json", bytes.NewReader(data), mp)
		if err != nil {
			t.Fatalf("%s: %v", dialect, err)
		}
		if len(runs) != 1 {
			t.Fatalf("%s: runs %v, want one", dialect, runKeyList(runs))
		}
		if want == nil {
			want = runs[0].Lines
		}
		if diff := cmp.Diff(want, runs[0].Lines, cmp.AllowUnexported(Line{}, wantVar{}), cmp.Comparer(func(a, b *spec.Var) bool { return a == b })); diff != "" {
			t.Errorf("%s: lines differ from genai (-want +got):\n%s", dialect, diff)
		}
		if got := outcome(t, m, runs[0]); !strings.HasPrefix(got, "conforms") {
			t.Errorf("%s: %s", dialect, got)
		}
	}
}

// TestDivergenceReport: the report names the closest successor over all
// successors of all consistent states, the differing answer when only the
// answers differ, and suggests names for misspelt ones.
func TestDivergenceReport(t *testing.T) {
	m, err := spec.ParseFile("gate.wrap", []byte(gate), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, run string
		want      []string
	}{
		// only the answer differs: the assume rules pass out for draft 2
		{"answer", `{"action": "wrapper.edit"}
{"action": "wrapper.edit"}
{"action": "wrapper.review", "asked": {"verifier": "pass"}}`,
			[]string{"asked verifier: recorded pass, the nearest step of the spec got fail"}},
		// the state matches the branch that got pass: the answer differs
		{"answer-state", `{"action": "wrapper.review", "asked": {"verifier": "fail"}, "state": {"released": true, "draft": 0}}`,
			[]string{"asked verifier: recorded fail, the nearest step of the spec got pass"}},
		{"two-vars", `{"action": "wrapper.edit", "state": {"released": true, "draft": 2}}`,
			[]string{"draft: recorded 2, the spec gives 1", "released: recorded true, the spec gives false"}},
		{"initial", `{"state": {"draft": 1}}`, []string{"draft: recorded 1, the spec gives 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, err := Read(m, "run.jsonl", strings.NewReader(tt.run))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(m, lines)
			if err != nil {
				t.Fatal(err)
			}
			if res.Diverged == nil {
				t.Fatalf("no divergence: %+v", res)
			}
			if diff := cmp.Diff(tt.want, res.Diverged.Mismatch); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// the closest successor, not the first: set of a pick, from either
	// initial state
	pick, err := spec.ParseFile("pick.wrap", []byte(`spec Pick
var a: 0..3
var b: 0..3
var c: bool
init { choose x in bool { c := x } }
action set { choose x in 0..3 { a := x
  b := x } }
`), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		run  string
		want []string
	}{
		{`{"action": "set", "state": {"a": 3, "b": 2}}`, []string{"a: recorded 3, the spec gives 2"}},
		// first among equals: x = 1 comes before x = 2
		{`{"action": "set", "state": {"a": 1, "b": 2, "c": true}}`, []string{"b: recorded 2, the spec gives 1"}},
		// c is open after the first line: the closest is from c = true
		{`{"action": "set", "state": {"a": 0, "b": 0}}
{"action": "set", "state": {"a": 2, "b": 3, "c": true}}`, []string{"b: recorded 3, the spec gives 2"}},
	} {
		lines, err := Read(pick, "run.jsonl", strings.NewReader(tt.run))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Check(pick, lines)
		if err != nil {
			t.Fatal(err)
		}
		if res.Diverged == nil {
			t.Fatalf("%s: no divergence", tt.run)
		}
		if diff := cmp.Diff(tt.want, res.Diverged.Mismatch); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.run, diff)
		}
	}
	for _, tt := range []struct{ run, want string }{
		{`{"action": "wrapper.reveiw"}`, "run.jsonl:1: no action wrapper.reveiw in Gate (did you mean wrapper.review?)"},
		{`{"action": "wrapper.edit", "state": {"relased": true}}`, "run.jsonl:1: state: no variable relased in Gate (did you mean released?)"},
		{`{"action": "wrapper.edit", "asked": {"verfier": "pass"}}`, "run.jsonl:1: asked: no agent verfier in Gate (did you mean verifier?)"},
	} {
		_, err := Read(m, "run.jsonl", strings.NewReader(tt.run))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Read(%s) = %v, want %s", tt.run, err, tt.want)
		}
	}
}

func TestParseMappingErrors(t *testing.T) {
	m := loadPipeline(t)
	for _, tt := range []struct{ text, want string }{
		{`{"rules": [{"action": "wrapper.plna"}]}`, "mapping.json: rules[0].action: no action wrapper.plna in Pipeline (did you mean wrapper.plan?)"},
		{`{"rules": [{"action": "wrapper.plan", "asked": {"planer": {"from": "x"}}}]}`, "mapping.json: rules[0].asked: no agent planer in Pipeline (did you mean planner?)"},
		{`{"state": {"phse": {"from": "x"}}, "rules": [{"action": "wrapper.plan"}]}`, "mapping.json: state: no variable phse in Pipeline (did you mean phase?)"},
		{`{"presets": ["genia"], "rules": [{"action": "wrapper.plan"}]}`, "mapping.json: presets: no preset genia (have genai, genai-1.36, mcp, openinference) (did you mean genai?)"},
		{`{"rules": [{"action": "wrapper.plan", "asked": {"planner": {}}}]}`, "mapping.json: rules[0].asked.planner: want exactly one of from and const"},
		{`{"rules": []}`, "mapping.json: rules: want at least one rule"},
		{`{"rules": [{"acton": "wrapper.plan"}]}`, `mapping.json:1:13: unknown member "acton"`},
		{"{\n  \"rules\": 3}", "mapping.json:2:13: rules: want an array, found a JSON number"},
		{`{"rules": [`, "mapping.json:1:12: unexpected EOF"},
	} {
		_, err := ParseMapping(m, "mapping.json", strings.NewReader(tt.text))
		got := "<nil>"
		if err != nil {
			got = err.Error()
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.text, diff)
		}
	}
}

// TestOTLPRecordingsOnBuggySpecs: each broken recording follows the spec
// of its bug (examples/pipeline) step by step and reaches that spec's
// violation at its last step, the release.
func TestOTLPRecordingsOnBuggySpecs(t *testing.T) {
	for _, tt := range []struct{ rec, spec, want string }{
		{"release_after_outage", "release_after_outage.wrap", "violation NeverReleaseUninspected at step 6"},
		{"fail_open", "fail_open.wrap", "violation NeverReleaseUninspected at step 5"},
		{"approval_reused", "approval_toctou.wrap", "violation ReleasedWhatWasApproved at step 7"},
	} {
		t.Run(tt.rec, func(t *testing.T) {
			path := filepath.Join("..", "examples", "pipeline", tt.spec)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.ParseFile(path, src, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join("testdata", "otlp", tt.rec+".json"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			runs, err := ReadOTLP(m, tt.rec, f, loadMapping(t, m, pipelineMapping(t)))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(m, runs[0].Lines)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("diverged %+v", res.Diverged)
			if res.Violation != nil {
				got = fmt.Sprintf("violation %s at step %d", res.Violation.Name, res.Line)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if res.Line < 1 {
				return
			}
			if last := runs[0].Spans[res.Line-1]; last.Name != "release" {
				t.Errorf("violation at span %s, want the release", last)
			}
		})
	}
}
