package report_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/wrapcheck/wrapcheck/diff"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestDiffJSONSchema validates the JSON output of `wrapcheck diff` (package
// diff) against docs/json-schema-diff.json: a pair that differs both ways
// with a changed verdict, a pair with hidden variables and actions of one
// spec only, a spec and itself, and an incomplete search.
func TestDiffJSONSchema(t *testing.T) {
	s := loadSchema(t, "../docs/json-schema-diff.json")
	parse := func(path string, defs map[string]int64) *spec.Model {
		src, err := os.ReadFile("../examples/" + path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(path, src, spec.Options{Defines: defs})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		name     string
		old, new *spec.Model
		opts     diff.Options
		verdict  string
	}{
		{"toctou", parse("approval/toctou.wrap", nil), parse("approval/toctou_fixed_revoke.wrap", nil), diff.Options{}, `"verdict": "differ"`},
		{"hidden", parse("pipeline/invented_fact.wrap", nil), parse("pipeline/planted_forgery.wrap", nil), diff.Options{NoChecks: true}, `"verdict": "differ"`},
		{"self", parse("approval/mcp_tool_swap.wrap", nil), parse("approval/mcp_tool_swap.wrap", nil), diff.Options{}, `"verdict": "same"`},
		{"incomplete", parse("classic/diehard.wrap", nil), parse("classic/diehard.wrap", nil), diff.Options{MaxNodes: 3, NoChecks: true}, `"verdict": "incomplete"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := diff.Compare(context.Background(), tt.old, tt.new, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := r.JSON(&out, diff.Names{Old: "old.wrap", New: "new.wrap"}); err != nil {
				t.Fatal(err)
			}
			x, err := decodeJSON(out.Bytes())
			if err != nil {
				t.Fatalf("output is not one JSON value: %v\n%s", err, out.String())
			}
			for _, e := range s.validate(x) {
				t.Error(e)
			}
			if !bytes.Contains(out.Bytes(), []byte(tt.verdict)) {
				t.Errorf("no %s in\n%s", tt.verdict, out.String())
			}
		})
	}
}
