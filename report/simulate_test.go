package report_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestSimulationRenderings renders simulations that found a violation
// (of each kind) and found none, as text and JSON: the JSON validates
// against docs/json-schema-simulate.json and says it is not exhaustive,
// and the text says so too.
func TestSimulationRenderings(t *testing.T) {
	s := loadSchema(t, "../docs/json-schema-simulate.json")
	tests := []struct {
		name string
		path string
		opts simulate.Options
		text []string // regexps the text must match
	}{
		{"invariant", "approval/toctou.wrap", simulate.Options{Walks: 200}, []string{`^ApprovalTOCTOU: invariant ShippedWhatWasApproved is violated\n`, `(?m)^the shortest violation in 200 walks of at most 100 steps \(seed 1\): walk \d+$`, `(?m)^simulation is not exhaustive: check may find a shorter trace or other violations$`}},
		{"deadlock", "classic/philosophers.wrap", simulate.Options{Walks: 200, Shard: 1, Shards: 2}, []string{`deadlock: no action is enabled`, `\(seed 1, shard 1/2\): walk \d*[13579]\n`}},
		{"none", "classic/peterson.wrap", simulate.Options{Walks: 20, Depth: 7}, []string{`^Peterson: no violation found in 20 walks of at most 7 steps \(seed 1\)\n`, `(?m)^note: simulate does not check properties; not checked: property StarvationFree$`, `(?m)^20 walks, 140 steps, longest walk 7, \d+\.\d{3} s, \d+ workers?$`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile("../examples/" + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.ParseFile(tt.path, src, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := simulate.Run(context.Background(), m, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var js, text bytes.Buffer
			if err := (report.JSONOptions{}).RenderSimulation(&js, m, res); err != nil {
				t.Fatal(err)
			}
			x, err := decodeJSON(js.Bytes())
			if err != nil {
				t.Fatalf("not one JSON value: %v\n%s", err, js.String())
			}
			for _, e := range s.validate(x) {
				t.Error(e)
			}
			if !bytes.Contains(js.Bytes(), []byte(`"exhaustive": false`)) {
				t.Errorf("no \"exhaustive\": false in\n%s", js.String())
			}
			if err := (report.TextOptions{}).RenderSimulation(&text, m, res); err != nil {
				t.Fatal(err)
			}
			for _, re := range tt.text {
				if !regexp.MustCompile(re).MatchString(text.String()) {
					t.Errorf("text does not match %s:\n%s", re, text.String())
				}
			}
		})
	}
}

// TestSimulationSchemaDefs: the definitions the simulation schema shares
// with docs/json-schema.json are the same.
func TestSimulationSchemaDefs(t *testing.T) {
	sim := loadSchema(t, "../docs/json-schema-simulate.json").root.(map[string]any)["$defs"].(map[string]any)
	check := loadSchema(t, "../docs/json-schema.json").root.(map[string]any)["$defs"].(map[string]any)
	for name, def := range sim {
		if !reflect.DeepEqual(def, check[name]) {
			t.Errorf("$defs.%s differs from json-schema.json's", name)
		}
	}
}
