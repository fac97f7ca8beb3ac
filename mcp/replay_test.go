package mcp

import (
	"strings"
	"testing"

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
