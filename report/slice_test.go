package report_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// TestSliceFormats renders every case with the causal slice attached
// (check --explain) and validates each format as the plain tests do: JSON
// against docs/json-schema.json with "essential" on every step of a
// finite trace, SARIF against both schemas with an importance per
// location, Mermaid against the sequenceDiagram grammar with one
// highlighted block per essential step, and text with one * per
// essential step and one because line per explained step.
func TestSliceFormats(t *testing.T) {
	js := loadSchema(t, "../docs/json-schema.json")
	official := loadSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	subset := loadSchema(t, "testdata/sarif-2.1.0-subset.json")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			if err := explain.Attach(context.Background(), r.m, r.res, verify.Options{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			steps, essential, because := 0, 0, 0
			for _, v := range report.Violations(r.res) {
				if v.LoopStart >= 0 {
					if v.Slice != nil {
						t.Fatalf("a lasso has a slice")
					}
					continue
				}
				if v.Slice == nil {
					t.Fatalf("%s %s: no slice attached", v.Kind, v.Name)
				}
				steps += len(v.Trace)
				for _, s := range v.Slice.Steps {
					if s.Essential {
						essential++
					}
					if s.Because != "" {
						because++
					}
				}
			}

			out := render(t, func(w *bytes.Buffer) error { return report.JSON(w, r.m, r.res) })
			x, err := decodeJSON(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, e := range js.validate(x) {
				t.Error(e)
			}
			var got int
			if v := x.(map[string]any)["violations"].([]any); len(v) > 0 {
				for _, vi := range v {
					for _, st := range vi.(map[string]any)["trace"].([]any) {
						if e, ok := st.(map[string]any)["essential"]; ok && e == true {
							got++
						}
					}
				}
			}
			if got != essential {
				t.Errorf("JSON: %d steps with \"essential\": true, want %d", got, essential)
			}

			out = render(t, func(w *bytes.Buffer) error { return report.SARIF(w, r.m, r.res) })
			if x, err = decodeJSON(out); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, e := range subset.validate(x) {
				t.Error(e)
			}
			for _, e := range official.validate(x) {
				t.Errorf("official schema: %s", e)
			}
			if n := strings.Count(string(out), `"importance": "essential"`); n != essential {
				t.Errorf("SARIF: %d essential locations, want %d", n, essential)
			}
			if n := strings.Count(string(out), `"importance": "`); n != steps {
				t.Errorf("SARIF: %d locations with an importance, want one per step of a finite trace (%d)", n, steps)
			}

			text := string(render(t, func(w *bytes.Buffer) error { return report.Text(w, r.m, r.res) }))
			if n := strings.Count(text, "\n*  "); n != essential {
				t.Errorf("text: %d steps marked *, want %d\n%s", n, essential, text)
			}
			if n := strings.Count(text, "\n         because: "); n != because {
				t.Errorf("text: %d because lines, want %d\n%s", n, because, text)
			}

			if r.res.Verdict != verdict.Violated {
				return
			}
			mm := string(render(t, func(w *bytes.Buffer) error { return report.Mermaid(w, r.m, r.res) }))
			if errs := checkMermaid(mm); len(errs) > 0 {
				t.Errorf("%s\n%s", strings.Join(errs, "\n"), mm)
			}
			want := 0
			if v := r.res.Violation; v.Slice != nil {
				for _, s := range v.Slice.Steps {
					if s.Essential {
						want++
					}
				}
			}
			if n := strings.Count(mm, "rect rgb("); n != want {
				t.Errorf("Mermaid: %d highlighted steps, want %d\n%s", n, want, mm)
			}
		})
	}
}

// TestExplainMermaid checks the Mermaid diagram of `wrapcheck explain`
// (package explain renders it in check's layout) against the same
// grammar, on every violated case: loop blocks closed, highlighted steps
// closed, texts escaped.
func TestExplainMermaid(t *testing.T) {
	for i, c := range cases {
		if c.verdict != verdict.Violated {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			x, err := explain.Explain(context.Background(), r.m, r.res.Violation, explain.Options{Verify: verify.Options{Workers: 1}})
			if err != nil {
				t.Fatal(err)
			}
			mm := string(render(t, func(w *bytes.Buffer) error { return x.Mermaid(w) }))
			if errs := checkMermaid(mm); len(errs) > 0 {
				t.Errorf("%s\n%s", strings.Join(errs, "\n"), mm)
			}
		})
	}
}
