package report_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// replayCases are replays of every outcome, of a run file and of runs of
// an OTLP recording: each is rendered in every format by the tests below.
type replayCase struct {
	name, verdict string
	m             *spec.Model
	rp            *replay.Report
}

func replayCases(t *testing.T) []replayCase {
	t.Helper()
	parse := func(path string) *spec.Model {
		src, err := os.ReadFile(filepath.Join("..", "examples", path))
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(path, src, spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	toctou := parse("approval/toctou.wrap")
	jsonl := func(name, verdict, run string) replayCase {
		out, err := replay.Run(toctou, "run.jsonl", strings.NewReader(run))
		if err != nil {
			t.Fatal(err)
		}
		return replayCase{name, verdict, toctou, &replay.Report{Run: "run.jsonl", Result: out}}
	}
	cases := []replayCase{
		jsonl("jsonl-conforms", "conforms", `{"action": "editor.edit"}`+"\n"+`{"action": "approver.approve"}`),
		jsonl("jsonl-disabled", "diverges", `{"action": "approver.approve"}`+"\n"+`{"action": "approver.approve"}`),
		jsonl("jsonl-mismatch", "diverges", `{"action": "editor.edit", "state": {"content": 3}}`),
		jsonl("jsonl-initial", "diverges", `{"state": {"content": 2}}`),
		jsonl("jsonl-violated", "violated", "{\"action\": \"approver.approve\"}\n{\"action\": \"editor.edit\"}\n{\"action\": \"releaser.release\"}\n"),
	}
	mapping, err := os.ReadFile(filepath.Join("..", "replay", "testdata", "otlp", "pipeline.mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	otlp := func(name, verdict, specPath, rec string) {
		m := parse(specPath)
		mp, err := replay.ParseMapping(m, "pipeline.mapping.json", bytes.NewReader(mapping))
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join("..", "replay", "testdata", "otlp", rec))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		runs, err := replay.ReadOTLP(m, rec, f, mp)
		if err != nil {
			t.Fatal(err)
		}
		for _, rn := range runs {
			out, err := replay.Check(m, rn.Lines)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, replayCase{name, verdict, m, replay.NewTracedReport(rec, rn, out)})
		}
	}
	otlp("otlp-conforms", "conforms", "pipeline/pipeline.wrap", "conforming.json")
	otlp("otlp-diverges", "diverges", "pipeline/pipeline.wrap", "fail_open.json")
	otlp("otlp-violated", "violated", "pipeline/fail_open.wrap", "fail_open.json")
	return cases
}

// TestReplayJSONSchema validates the JSON of every replay outcome against
// docs/json-schema-replay.json, and a violation, without the members of
// the run, against docs/json-schema.json too: it is the object of check.
func TestReplayJSONSchema(t *testing.T) {
	s := loadSchema(t, "../docs/json-schema-replay.json")
	check := loadSchema(t, "../docs/json-schema.json")
	for _, c := range replayCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := c.rp.JSON(&out, c.m); err != nil {
				t.Fatal(err)
			}
			x, err := decodeJSON(out.Bytes())
			if err != nil {
				t.Fatalf("output is not one JSON value: %v\n%s", err, out.String())
			}
			for _, e := range s.validate(x) {
				t.Error(e)
			}
			obj := x.(map[string]any)
			if obj["verdict"] != c.verdict {
				t.Errorf("verdict %v, want %s", obj["verdict"], c.verdict)
			}
			if _, ok := obj["run_key"]; ok != c.rp.OTLP {
				t.Errorf("run_key present: %v, want %v", ok, c.rp.OTLP)
			}
			if c.verdict != "violated" {
				return
			}
			for _, k := range []string{"run", "run_key", "unmapped", "line", "step", "trace_id", "span_id", "span", "event", "steps", "trace_from"} {
				delete(obj, k)
			}
			for _, e := range check.validate(obj) {
				t.Errorf("json-schema.json: %s", e)
			}
		})
	}
}

// TestReplayErrorSchema: the error object a replay prints for a bad run
// file (that of check) is valid too.
func TestReplayErrorSchema(t *testing.T) {
	s := loadSchema(t, "../docs/json-schema-replay.json")
	m := replayCases(t)[0].m
	_, err := replay.Run(m, "run.jsonl", strings.NewReader(`{"action": "editor.eddit"}`))
	if err == nil {
		t.Fatal("no error for an unknown action")
	}
	var out bytes.Buffer
	if err := (report.ErrorReport{File: "toctou.wrap", Errors: report.Diagnostics(err)}).JSON(&out); err != nil {
		t.Fatal(err)
	}
	x, err := decodeJSON(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.validate(x) {
		t.Error(e)
	}
}

// TestReplaySchemaRejects: the schema refuses a misspelt member and a
// wrong verdict, so the test above can fail.
func TestReplaySchemaRejects(t *testing.T) {
	s := loadSchema(t, "../docs/json-schema-replay.json")
	for _, doc := range []string{
		`{"format": 1, "spec": "S", "verdict": "conforms", "run": "r", "steps": 1, "state": 1}`,
		`{"format": 1, "spec": "S", "verdict": "holds", "run": "r", "steps": 1, "states": 1}`,
		`{"format": 1, "spec": "S", "verdict": "diverges", "run": "r", "line": 0, "action": "a", "enabled": true, "mismatch": [], "allowed": [], "steps": 0}`,
	} {
		x, err := decodeJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.validate(x)) == 0 {
			t.Errorf("the schema accepts %s", doc)
		}
	}
}

// TestReplaySARIF validates the SARIF of every replay outcome against the
// official SARIF 2.1.0 schema and our subset, and checks the result: none
// for a conforming run; for a divergence, rule divergence at the
// declaration of the action (the spec's name for the initial state), the
// run file's line in the message and as a related location; for a
// violation, the check's rule with the run's line.
func TestReplaySARIF(t *testing.T) {
	official := loadSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	subset := loadSchema(t, "testdata/sarif-2.1.0-subset.json")
	for _, c := range replayCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := replay.SARIF(&out, c.m, []*replay.Report{c.rp}, 1, "test"); err != nil {
				t.Fatal(err)
			}
			x, err := decodeJSON(out.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			for _, e := range subset.validate(x) {
				t.Error(e)
			}
			for _, e := range official.validate(x) {
				t.Errorf("official schema: %s", e)
			}
			run := x.(map[string]any)["runs"].([]any)[0].(map[string]any)
			results := run["results"].([]any)
			if c.verdict == "conforms" {
				if len(results) != 0 {
					t.Errorf("%d results, want none", len(results))
				}
				return
			}
			if len(results) != 1 {
				t.Fatalf("%d results, want 1", len(results))
			}
			res := results[0].(map[string]any)
			loc := res["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
			gotLoc := fmt.Sprintf("%v:%v", loc["artifactLocation"].(map[string]any)["uri"], loc["region"].(map[string]any)["startLine"])
			out2 := c.rp.Result
			var wantRule, wantLoc string
			line := out2.Line
			if d := out2.Diverged; d != nil {
				wantRule, line = "divergence", d.Line
				pos := c.m.NamePos
				for _, a := range c.m.Actions {
					if a.Name == d.Action {
						pos = a.Pos
					}
				}
				wantLoc = fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
			} else {
				wantRule = out2.Violation.Name
				wantLoc = fmt.Sprintf("%s:%d", out2.Violation.Pos.Filename, out2.Violation.Pos.Line)
			}
			if res["ruleId"] != wantRule || gotLoc != wantLoc {
				t.Errorf("result %v at %s, want %s at %s", res["ruleId"], gotLoc, wantRule, wantLoc)
			}
			fileLine := line
			if c.rp.OTLP {
				fileLine = c.rp.Span.Line
			}
			msg := res["message"].(map[string]any)["text"].(string)
			if prefix := fmt.Sprintf("%s:%d: ", c.rp.Run, fileLine); !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
			if c.rp.OTLP && !strings.Contains(msg, c.rp.Span.SpanID) {
				t.Errorf("message %q does not name span %s", msg, c.rp.Span.SpanID)
			}
			rel := res["relatedLocations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
			gotRel := fmt.Sprintf("%v:%v", rel["artifactLocation"].(map[string]any)["uri"], rel["region"].(map[string]any)["startLine"])
			if want := fmt.Sprintf("%s:%d", c.rp.Run, fileLine); gotRel != want {
				t.Errorf("related location %s, want %s", gotRel, want)
			}
		})
	}
}
