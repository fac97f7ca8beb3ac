package guard_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/wrapcheck/wrapcheck/guard"
)

// FuzzHandleLine checks that no request makes the guard panic, and that
// every answer is one line of JSON with a decision: the hostile-input
// promise of docs/guard.md.
func FuzzHandleLine(f *testing.F) {
	for _, s := range []string{
		`{"op": "open", "run": "r"}`,
		`{"run": "r", "event": {"action": "wrapper.plan", "asked": {"planner": ["A5_9"]}}}`,
		`{"run": "r", "event": {"action": "wrapper.verify", "asked": {"verifier": {"status": "answered", "pass": true, "issues": false}}}}`,
		`{"run": "r", "event": {"action": "wrapper.render", "state": {"phase": "verifying", "draft": ["C9_2"]}}}`,
		`{"run": "r", "op": "state"}`,
		`{"run": "r", "op": "close"}`,
		`{"op": "open", "run": "r", "event": {"action": null, "state": {"phase": "planning"}}}`,
		`{"run": "r", "id": "1", "event": {"action": "wrapper.plan", "asked": {"planner": []}}}`,
		`[]`, `null`, `{"run": 1}`, `{"run": "r", "event": [1, 2]}`, "{\"run\": \"\u2028\"}",
	} {
		f.Add([]byte(s), []byte(`{"run": "r", "event": {"action": "wrapper.plan"}}`))
	}
	g, err := guard.New(compile(f, "../examples/pipeline/pipeline.wrap"), guard.Options{MaxRuns: 16})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		g.HandleLine([]byte(`{"op": "open", "run": "r"}`))
		for _, in := range [][]byte{a, b} {
			out := g.HandleLine(in)
			if bytes.Count(out, []byte("\n")) != 1 || out[len(out)-1] != '\n' {
				t.Fatalf("answer to %q is not one line: %q", in, out)
			}
			var d guard.Decision
			if err := json.Unmarshal(out, &d); err != nil || (d.Decision != "allow" && d.Decision != "block") {
				t.Fatalf("answer to %q: %q (%v)", in, out, err)
			}
		}
	})
}
