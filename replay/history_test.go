package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// TestTraceMatchesCheck replays the counterexample of `check` (the
// entries of its JSON trace, one a line) and compares the violation's
// trace, rebuilt from the history by executing its branches again, with
// the search's own trace, step by step: actions, states and answers.
func TestTraceMatchesCheck(t *testing.T) {
	for _, path := range []string{
		"approval/toctou.wrap",
		"pipeline/fail_open.wrap",
		"pipeline/release_after_outage.wrap",
		"pipeline/approval_toctou.wrap",
		"pipeline/pass_with_issues.wrap",
		// channels (an extension): lists in the states, a rendezvous step
		"../docs/testdata/language/channels.wrap",
	} {
		t.Run(path, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "examples", path))
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.ParseFile(path, src, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := verify.Run(context.Background(), m, verify.Options{Workers: 1, NoDeadlock: true})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Violation
			if v == nil || v.Kind != verdict.Invariant {
				t.Fatalf("want an invariant violation, got %+v", v)
			}
			var js bytes.Buffer
			if err := report.JSON(&js, m, res); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Violation struct {
					Trace []json.RawMessage `json:"trace"`
				} `json:"violation"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var run bytes.Buffer
			for _, st := range doc.Violation.Trace {
				run.Write(st)
				run.WriteByte('\n')
			}
			out, err := Run(m, "trace.jsonl", &run)
			if err != nil {
				t.Fatal(err)
			}
			if out.Violation == nil || out.Violation.Name != v.Name {
				t.Fatalf("replay: %+v, want the violation of %s", out, v.Name)
			}
			if diff := cmp.Diff(v.Trace, out.Violation.Trace); diff != "" {
				t.Errorf("trace (-check +replay):\n%s", diff)
			}
		})
	}
}

// counter is a spec whose runs can be as long as wanted.
const counter = `spec Counter
var x: 0..9
var flips: bool
agent coin(x: 0..9): bool
action inc when x < 9 { x := x + 1
  flips := ask coin(x) }
action dec when x > 0 { x := x - 1 }
invariant Low: x < 9
`

// TestHistoryRebase replays a long run with a history of a few records:
// the history is cut short again and again, memory stays bounded, and the
// violation's trace is the last steps of the trace a full history gives,
// from the line TraceFrom says.
func TestHistoryRebase(t *testing.T) {
	m, err := spec.ParseFile("counter.wrap", []byte(counter), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var run strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&run, "{\"action\": \"inc\", \"asked\": {\"coin\": %v}}\n{\"action\": \"dec\"}\n", i%3 == 0)
	}
	for i := 0; i < 9; i++ {
		fmt.Fprintf(&run, "{\"action\": \"inc\", \"asked\": {\"coin\": %v}}\n", i%2 == 0)
	}
	replayWith := func(maxRecords int) *Result {
		t.Helper()
		r, err := compileReplayer(m)
		if err != nil {
			t.Fatal(err)
		}
		r.maxRecords = maxRecords
		out, err := r.run(newLineReader(m, "run.jsonl", strings.NewReader(run.String())).next)
		if err != nil {
			t.Fatal(err)
		}
		if out.Violation == nil || out.Violation.Name != "Low" {
			t.Fatalf("got %+v, want the violation of Low", out)
		}
		return out
	}
	full := replayWith(MaxHistory)
	if full.TraceFrom != 0 || len(full.Violation.Trace) != 410 {
		t.Fatalf("full history: trace from %d, %d steps, want from 0, 410", full.TraceFrom, len(full.Violation.Trace))
	}
	for _, n := range []int{1, 5, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			cut := replayWith(n)
			tr := cut.Violation.Trace
			if cut.TraceFrom < 1 || len(tr) > n+2 {
				t.Fatalf("trace from line %d with %d steps, want from a later line, at most %d steps", cut.TraceFrom, len(tr), n+2)
			}
			if tr[0].Action < 0 {
				t.Errorf("step 0 of a cut trace has no action: it is not an initial state")
			}
			want := full.Violation.Trace[len(full.Violation.Trace)-len(tr):]
			if diff := cmp.Diff(want, tr); diff != "" {
				t.Errorf("cut trace vs the last steps of the full one (-want +got):\n%s", diff)
			}
			if want := cut.Line - len(tr) + 1; cut.TraceFrom != want {
				t.Errorf("TraceFrom %d, want %d (the line of step 0)", cut.TraceFrom, want)
			}
			rp := &Report{Run: "run.jsonl", Result: cut}
			var text, js bytes.Buffer
			if err := rp.Text(&text, m, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := rp.JSON(&js, m); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("the trace starts with the step of line %d, the steps before it are not kept", cut.TraceFrom); !strings.Contains(text.String(), want) {
				t.Errorf("the text report does not say %q:\n%s", want, text.String())
			}
			if want := fmt.Sprintf(`"trace_from": %d,`, cut.TraceFrom); !strings.Contains(js.String(), want) {
				t.Errorf("the JSON report has no %s:\n%.600s", want, js.String())
			}
		})
	}
}

// TestScalarJSON: the fast path for scalar values decodes what it takes
// exactly as the decoder does, and leaves everything else to it.
func TestScalarJSON(t *testing.T) {
	for _, raw := range []string{
		`true`, `false`, `null`, `0`, `-0`, `7`, `-12`, `007`, `1e3`, `0.5`, `99999999999999999999`,
		`"a"`, `""`, `"a\"b"`, `"\u0041"`, `"é"`, "\"\xff\"", `[1]`, `{"a": 1}`, `-`, `"`, `tru`,
	} {
		got, ok := scalarJSON([]byte(raw))
		if !ok {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Errorf("%s: the fast path takes what the decoder refuses (%v)", raw, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-decoder +fast path):\n%s", raw, diff)
		}
	}
	for _, raw := range []string{`true`, `12`, `-3`, `"pass"`} {
		if _, ok := scalarJSON([]byte(raw)); !ok {
			t.Errorf("%s: not on the fast path", raw)
		}
	}
}
