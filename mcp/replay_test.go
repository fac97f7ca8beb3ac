package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReplay(t *testing.T) {
	cs := connect(t, nil)
	const toctou = "../examples/approval/toctou.wrap"
	tests := []struct {
		name string
		run  string
		want ReplayOutput
	}{
		{"conforms", `{"action": "approver.approve"}` + "\n", ReplayOutput{Verdict: "conforms", Steps: 1}},
		{"not allowed", `{"action": "approver.approve"}` + "\n" + `{"action": "approver.approve"}` + "\n",
			ReplayOutput{Verdict: "diverges", Steps: 1, Line: 2, Action: "approver.approve", Allowed: []string{"editor.edit", "releaser.release"}}},
		{"wrong state", `{"action": "approver.approve"}` + "\n" + `{"action": "editor.edit", "state": {"content": 2}}` + "\n",
			ReplayOutput{Verdict: "diverges", Steps: 1, Line: 2, Action: "editor.edit", Mismatch: []string{"content: recorded 2, the spec gives 1"}, Allowed: []string{"editor.edit", "releaser.release"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out ReplayOutput
			res := call(t, cs, "replay", map[string]any{"path": toctou, "run": tt.run}, &out)
			if res.IsError {
				t.Fatal(text(res))
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("replay (-want +got):\n%s", diff)
			}
		})
	}
	var out ReplayOutput
	run := `{"action": "approver.approve"}` + "\n" + `{"action": "editor.edit"}` + "\n" + `{"action": "releaser.release"}` + "\n"
	res := call(t, cs, "replay", map[string]any{"path": toctou, "run": run}, &out)
	if out.Verdict != "violated" || out.Line != 3 || out.Result["verdict"] != "violated" || !strings.Contains(text(res), "ShippedWhatWasApproved") {
		t.Errorf("violated run: %+v\n%s", out, text(res))
	}
	res = call(t, cs, "replay", map[string]any{"path": toctou, "run": `{"action": "editor.erase"}`}, nil)
	if !res.IsError || !strings.Contains(text(res), "run.jsonl:1: no action editor.erase") {
		t.Errorf("bad run: %s", text(res))
	}
}

// TestReplayOTLP replays the OTLP recordings of replay/testdata/otlp
// through the tool, with the mapping as an object and as JSON text, and
// with presets instead of the mapping's: the conforming run conforms, the
// broken one diverges at the span of its verify step.
func TestReplayOTLP(t *testing.T) {
	cs := connect(t, nil)
	const pipeline = "../examples/pipeline/pipeline.wrap"
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "replay", "testdata", "otlp", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	mappingText := read("pipeline.mapping.json")
	var mappingObj map[string]any
	if err := json.Unmarshal([]byte(mappingText), &mappingObj); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rec     string
		mapping any
		presets []string
		want    ReplayOutput
	}{
		{"conforms", "conforming.json", mappingObj, nil,
			ReplayOutput{Verdict: "conforms", Runs: []ReplayRun{{RunKey: "conv-conforming", Verdict: "conforms", Steps: 12}}}},
		{"text mapping", "conforming.json", mappingText, nil,
			ReplayOutput{Verdict: "conforms", Runs: []ReplayRun{{RunKey: "conv-conforming", Verdict: "conforms", Steps: 12}}}},
		{"presets", "conforming.json", mappingObj, []string{"genai"},
			ReplayOutput{Verdict: "conforms", Runs: []ReplayRun{{RunKey: "conv-conforming", Verdict: "conforms", Steps: 12}}}},
		{"diverges", "fail_open.json", mappingObj, nil,
			ReplayOutput{Verdict: "diverges", Runs: []ReplayRun{{RunKey: "conv-fail_open", Verdict: "diverges", Steps: 2, Step: 3, Line: 1,
				TraceID: "00000000000000000000000200000001", SpanID: "0000000200000006", Span: "invoke_agent verifier", Action: "wrapper.verify",
				Mismatch: []string{"asked verifier: recorded {status: garbled, pass: true, issues: false}, the nearest step of the spec got {status: answered, pass: true, issues: false}"},
				Allowed:  []string{"wrapper.verify", "human.approve"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"path": pipeline, "run": read(tt.rec), "mapping": tt.mapping}
			if tt.presets != nil {
				args["presets"] = tt.presets
			}
			var out ReplayOutput
			res := call(t, cs, "replay", args, &out)
			if res.IsError {
				t.Fatal(text(res))
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("replay (-want +got):\n%s", diff)
			}
			if tt.want.Verdict == "diverges" && !strings.Contains(text(res), "recording:1: run conv-fail_open, span 0000000200000006 (invoke_agent verifier)") {
				t.Errorf("text does not name the span:\n%s", text(res))
			}
		})
	}
	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no mapping", map[string]any{"path": pipeline, "run": read("conforming.json")}, "run is an OTLP JSON recording: give mapping"},
		{"bad preset", map[string]any{"path": pipeline, "run": read("conforming.json"), "mapping": mappingObj, "presets": []string{"genia"}},
			"mapping: presets: no preset genia (have genai, genai-1.36, mcp, openinference) (did you mean genai?)"},
		{"mapping for lines", map[string]any{"path": pipeline, "run": `{"action": "wrapper.plan"}`, "mapping": mappingObj},
			"mapping and presets are for an OTLP JSON recording"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "replay", tt.args, nil)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Errorf("got %s, want an error with %q", text(res), tt.want)
			}
		})
	}
}

// TestReplayTimeout: a replay whose step evaluates for far longer than
// its timeout_seconds ends with an error soon after it, not a verdict.
func TestReplayTimeout(t *testing.T) {
	cs := connect(t, nil)
	const slow = `spec Slow
var x: 0..1
action go when forall i in 0..99999: forall j in 0..99999: i + j >= x { x := 1 }
`
	start := time.Now()
	res := call(t, cs, "replay", map[string]any{"spec": slow, "run": `{"action": "go"}` + "\n", "timeout_seconds": 0.5}, nil)
	if !res.IsError || text(res) != "replay: stopped before the end: timeout (timeout_seconds 0.5)" {
		t.Errorf("replay past its timeout: error %v, %q; want the stop", res.IsError, text(res))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("replay took %v after a timeout of 0.5s", d)
	}
	res = call(t, cs, "replay", map[string]any{"spec": slow, "run": `{"action": "go"}` + "\n", "timeout_seconds": -1}, nil)
	if !res.IsError || !strings.Contains(text(res), "must not be negative") {
		t.Errorf("negative timeout: %q", text(res))
	}
}
