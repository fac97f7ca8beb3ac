package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// TestExplain calls the explain tool on a safety and a liveness
// counterexample and on a spec that holds, and compares its explanation
// with the explain package's own JSON for the same violation (what
// `wrapcheck explain --format json` prints).
func TestExplain(t *testing.T) {
	cs := connect(t, nil)
	tests := []struct {
		name, path string
		verdict    string
		want       []string // substrings of the text content, a summary
	}{
		{"safety", "../examples/approval/toctou.wrap", "violated", []string{"trace of 3 steps, 3 essential"}},
		{"liveness", "../examples/classic/peterson.wrap", "violated", []string{"lasso of 3 steps, the cycle from step 3"}},
		{"holds", "../examples/approval/toctou_fixed_revoke.wrap", "holds", []string{"nothing to explain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out ExplainOutput
			res := call(t, cs, "explain", map[string]any{"path": tt.path}, &out)
			if res.IsError {
				t.Fatalf("tool error: %s", text(res))
			}
			if out.Verdict != tt.verdict {
				t.Fatalf("verdict %q, want %q", out.Verdict, tt.verdict)
			}
			for _, w := range tt.want {
				if !strings.Contains(text(res), w) {
					t.Errorf("text lacks %q:\n%s", w, text(res))
				}
			}
			if tt.verdict != "violated" {
				return
			}
			src, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.ParseFile(tt.path, src, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := verify.Run(context.Background(), m, verify.Options{})
			if err != nil {
				t.Fatal(err)
			}
			x, err := explain.Explain(context.Background(), m, r.Violation, explain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			if err := x.JSON(&js); err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal(js.Bytes(), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, out.Explanation); diff != "" {
				t.Errorf("explanation (-want +got):\n%s", diff)
			}
		})
	}
}
