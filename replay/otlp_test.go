package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

func loadPipeline(t *testing.T) *spec.Model {
	t.Helper()
	path := filepath.Join("..", "examples", "pipeline", "pipeline.wrap")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func loadMapping(t *testing.T, m *spec.Model, text string) *Mapping {
	t.Helper()
	mp, err := ParseMapping(m, "mapping.json", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return mp
}

func pipelineMapping(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "otlp", "pipeline.mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// outcome is a replay's verdict in a comparable form: conforms, or the
// span id and action of the divergence, or the violation.
func outcome(t *testing.T, m *spec.Model, run Run) string {
	t.Helper()
	res, err := Check(m, run.Lines)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case res.Diverged != nil:
		return fmt.Sprintf("diverges at %s %s", run.Spans[res.Diverged.Line-1].SpanID, res.Diverged.Action)
	case res.Violation != nil:
		return "violation " + res.Violation.Name
	}
	return fmt.Sprintf("conforms after %d steps", res.Steps)
}

// TestOTLPRecordings regenerates the recordings of testdata/otlp with the
// toy wrapper and the OpenTelemetry SDK, compares them with the files, and
// replays them on examples/pipeline/pipeline.wrap: the conforming run
// conforms, each broken one diverges at the span of the step that went
// wrong (with the recorded state), or at the first step the spec then
// refuses (without it).
func TestOTLPRecordings(t *testing.T) {
	m := loadPipeline(t)
	withState := loadMapping(t, m, pipelineMapping(t))
	blind := loadMapping(t, m, blindMapping(t))
	for i, sc := range toyScenarios {
		t.Run(sc.name, func(t *testing.T) {
			data, steps := record(t, i, "genai")
			path := filepath.Join("testdata", "otlp", sc.name+".json")
			if os.Getenv("WRAPCHECK_UPDATE") != "" {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(data)); diff != "" {
				t.Errorf("%s is not what the generator records (WRAPCHECK_UPDATE=1 rewrites it) (-want +got):\n%s", path, diff)
			}
			for _, c := range []struct {
				name string
				mp   *Mapping
				bad  int
			}{{"state", withState, sc.bad}, {"blind", blind, sc.blind}} {
				runs, err := ReadOTLP(m, path, bytes.NewReader(data), c.mp)
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) != 1 || runs[0].Key != "conv-"+sc.name {
					t.Fatalf("%s: runs %v, want one, conv-%s", c.name, runKeyList(runs), sc.name)
				}
				if len(runs[0].Lines) != len(steps) {
					t.Errorf("%s: %d steps mapped, the wrapper took %d", c.name, len(runs[0].Lines), len(steps))
				}
				got := outcome(t, m, runs[0])
				want := fmt.Sprintf("conforms after %d steps", len(steps))
				if c.bad > 0 {
					want = fmt.Sprintf("diverges at %s %s", steps[c.bad-1], m.Actions[runs[0].Lines[c.bad-1].action].Name)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: (-want +got):\n%s", c.name, diff)
				}
			}
		})
	}
}

func blindMapping(t *testing.T) string {
	t.Helper()
	text := pipelineMapping(t)
	start := strings.Index(text, `"state": {`)
	end := strings.Index(text, `"rules"`)
	return text[:start] + text[end:]
}

func runKeyList(runs []Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Key)
	}
	return out
}

// TestOTLPDialects: the same mapping reads the same run from the current
// GenAI conventions, the v1.36-era names and OpenInference.
func TestOTLPDialects(t *testing.T) {
	m := loadPipeline(t)
	mp := loadMapping(t, m, pipelineMapping(t))
	var want []Line
	for _, dialect := range []string{"genai", "genai-1.36", "openinference"} {
		data, _ := record(t, 0, dialect)
		runs, err := ReadOTLP(m, dialect+".json", bytes.NewReader(data), mp)
		if err != nil {
			t.Fatalf("%s: %v", dialect, err)
		}
		if len(runs) != 1 {
			t.Fatalf("%s: runs %v, want one", dialect, runKeyList(runs))
		}
		if want == nil {
			want = runs[0].Lines
		}
		if diff := cmp.Diff(want, runs[0].Lines, cmp.AllowUnexported(Line{}, wantVar{}), cmp.Comparer(func(a, b *spec.Var) bool { return a == b })); diff != "" {
			t.Errorf("%s: lines differ from genai (-want +got):\n%s", dialect, diff)
		}
		if got := outcome(t, m, runs[0]); !strings.HasPrefix(got, "conforms") {
			t.Errorf("%s: %s", dialect, got)
		}
	}
}
