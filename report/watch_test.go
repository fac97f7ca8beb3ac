package report_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// watched checks the approval TOCTOU with watches: a scalar, a boolean,
// an array and one that divides by zero in the first states.
func watched(t *testing.T) (*spec.Model, *verdict.Result) {
	t.Helper()
	src, err := os.ReadFile("../examples/approval/toctou.wrap")
	if err != nil {
		t.Fatal(err)
	}
	var ws []syntax.Expr
	for _, w := range []string{"content - approved", "released and granted", "{content, approved}", "10 / (content - approved)"} {
		x, err := syntax.ParseExpr("--watch", []byte(w))
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, x)
	}
	m, err := spec.ParseFile("toctou.wrap", src, spec.Options{Watches: ws})
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Run(context.Background(), m, verify.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m, res
}

// TestWatchesEveryFormat shows the watches at every step of the trace in
// every format that prints a trace, the JSON and the ITF valid against
// their schemas.
func TestWatchesEveryFormat(t *testing.T) {
	m, res := watched(t)
	if len(m.Watches) != 4 {
		t.Fatalf("%d watches, want 4", len(m.Watches))
	}
	steps := len(res.Violation.Trace)
	text := string(render(t, func(w *bytes.Buffer) error { return report.Text(w, m, res) }))
	for _, want := range []string{"watch content - approved: 1", "watch released and granted: true",
		"watch 10 / (content - approved): error: division by zero", "watch 10 / (content - approved): 10"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "watch content - approved:"); n != steps {
		t.Errorf("text shows the first watch %d times, want %d (every step)", n, steps)
	}
	out := render(t, func(w *bytes.Buffer) error { return report.JSON(w, m, res) })
	x, err := decodeJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range loadSchema(t, "../docs/json-schema.json").validate(x) {
		t.Error(e)
	}
	for _, want := range []string{`"watches": {"content - approved": 0, "released and granted": false, "{content, approved}": [0]}, "watch_errors": {"10 / (content - approved)": "division by zero"}`,
		`"10 / (content - approved)": 10}`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("JSON lacks %s:\n%s", want, out)
		}
	}
	itf := render(t, func(w *bytes.Buffer) error { return report.ITF(w, m, res) })
	if x, err = decodeJSON(itf); err != nil {
		t.Fatal(err)
	}
	for _, e := range loadSchema(t, "../docs/itf-schema.json").validate(x) {
		t.Error(e)
	}
	if !bytes.Contains(itf, []byte(`"#meta": {"index": 2, "watches": {"content - approved": {"#bigint": "1"}`)) {
		t.Errorf("ITF lacks the watches in #meta:\n%s", itf)
	}
	sarif := string(render(t, func(w *bytes.Buffer) error { return report.SARIF(w, m, res) }))
	if !strings.Contains(sarif, `"released and granted": {`) {
		t.Errorf("SARIF lacks the watch in the thread flow's state:\n%s", sarif)
	}
	for name, f := range map[string]func(w *bytes.Buffer) error{
		"mermaid": func(w *bytes.Buffer) error { return report.Mermaid(w, m, res) },
		"dot":     func(w *bytes.Buffer) error { return report.DOT(w, m, res) },
	} {
		if out := string(render(t, f)); strings.Count(out, "watch content - approved: ") != steps {
			t.Errorf("%s does not show the watch at every step:\n%s", name, out)
		}
	}
}

// TestEvalWatches evaluates watches on given states, and reports a
// runtime error with its position.
func TestEvalWatches(t *testing.T) {
	m, _ := watched(t)
	vals, err := report.EvalWatches(m, nil, [][]int64{{3, 1, 1, 0, 0}, {1, 1, 1, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range vals {
		for _, v := range row {
			got = append(got, v.Text())
		}
	}
	want := []string{"2", "false", "{1, 3}", "5", "0", "false", "{1}", "error: division by zero"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if p := vals[1][3].Pos; p.Filename != "--watch" || p.Line != 4 && p.Line != 1 {
		t.Errorf("error at %v, want in --watch", p)
	}
}
