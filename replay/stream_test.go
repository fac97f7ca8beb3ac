package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// rechunk returns the spans of the recordings, each in a request of its
// own, the recordings' spans interleaved one by one (each recording's in
// its order: the root span, written last by the SDK, comes last).
func rechunk(t *testing.T, recs ...string) string {
	t.Helper()
	var per [][]string
	for _, rec := range recs {
		data, err := os.ReadFile(filepath.Join("testdata", "otlp", rec))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var req struct {
				ResourceSpans []struct {
					Resource   json.RawMessage `json:"resource"`
					ScopeSpans []struct {
						Spans []json.RawMessage `json:"spans"`
					} `json:"scopeSpans"`
				} `json:"resourceSpans"`
			}
			if err := json.Unmarshal([]byte(line), &req); err != nil {
				t.Fatal(err)
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						out = append(out, fmt.Sprintf(`{"resourceSpans":[{"resource":%s,"scopeSpans":[{"spans":[%s]}]}]}`, rs.Resource, sp))
					}
				}
			}
		}
		per = append(per, out)
	}
	var b strings.Builder
	for i := 0; ; i++ {
		any := false
		for _, out := range per {
			if i < len(out) {
				b.WriteString(out[i] + "\n")
				any = true
			}
		}
		if !any {
			return b.String()
		}
	}
}

func parseExample(t *testing.T, path string) *spec.Model {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", path))
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStreamMatchesBatch replays recordings as a stream (StreamOTLP) and
// whole (ReadOTLP, Check): the report of every run is the same, for the
// files as they are and with their spans one a request and the runs of
// four recordings interleaved.
func TestStreamMatchesBatch(t *testing.T) {
	all := []string{"conforming.json", "fail_open.json", "approval_reused.json", "release_after_outage.json"}
	for _, tt := range []struct {
		name, spec string
		recs       []string
		chunk      bool
	}{
		{"conforming", "pipeline/pipeline.wrap", all[:1], false},
		{"fail_open", "pipeline/pipeline.wrap", all[1:2], false},
		{"violation", "pipeline/fail_open.wrap", all[1:2], false},
		{"interleaved", "pipeline/pipeline.wrap", all, true},
		{"interleaved-violations", "pipeline/approval_toctou.wrap", all, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := parseExample(t, tt.spec)
			mp := loadMapping(t, m, pipelineMapping(t))
			var text string
			if tt.chunk {
				text = rechunk(t, tt.recs...)
			} else {
				data, err := os.ReadFile(filepath.Join("testdata", "otlp", tt.recs[0]))
				if err != nil {
					t.Fatal(err)
				}
				text = string(data)
			}
			runs, err := ReadOTLP(m, "rec.json", strings.NewReader(text), mp)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]*Report{}
			for _, rn := range runs {
				out, err := Check(m, rn.Lines)
				if err != nil {
					t.Fatal(err)
				}
				want[rn.Key] = NewTracedReport("rec.json", rn, out)
			}
			got := map[string]*Report{}
			n, err := StreamOTLP(m, "rec.json", strings.NewReader(text), mp, func(rp *Report) error {
				if got[rp.Key] != nil {
					t.Errorf("run %s reported twice", rp.Key)
				}
				got[rp.Key] = rp
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if n != len(runs) || len(want) != len(tt.recs) {
				t.Errorf("%d runs streamed, %d read whole, want %d", n, len(runs), len(tt.recs))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("batch vs stream (-want +got):\n%s", diff)
			}
		})
	}
}

// otlpSpan writes a span as a request line.
func otlpSpanLine(trace, id, parent, name string, start int, conv string) string {
	attrs := ""
	if conv != "" {
		attrs = `,"attributes":[{"key":"gen_ai.conversation.id","value":{"stringValue":"` + conv + `"}}]`
	}
	return fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":%q,"spanId":%q,"parentSpanId":%q,"name":%q,"startTimeUnixNano":"%d"%s}]}]}]}`+"\n",
		trace, id, parent, name, start, attrs)
}

// TestStreamOrder: a run over two traces is judged trace by trace; a
// trace whose steps come before those of a trace judged already is an
// error, not a verdict on a reordered run; the report of a diverging run
// comes as soon as its trace is complete.
func TestStreamOrder(t *testing.T) {
	const gateSpec = `spec G
var n: 0..2
process w {
  action edit when n < 2 { n := n + 1 }
  action ship when n == 2 { n := 0 }
}
`
	m, err := spec.ParseFile("g.wrap", []byte(gateSpec), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mp := loadMapping(t, m, `{"rules": [{"span": "edit", "action": "w.edit"}, {"span": "ship", "action": "w.ship"}]}`)
	t1 := otlpSpanLine("01", "11", "10", "edit", 101, "") + otlpSpanLine("01", "12", "10", "edit", 102, "") + otlpSpanLine("01", "10", "", "turn", 100, "c")
	t2 := otlpSpanLine("02", "21", "20", "ship", 201, "") + otlpSpanLine("02", "20", "", "turn", 200, "c")
	early := otlpSpanLine("03", "31", "30", "edit", 50, "") + otlpSpanLine("03", "30", "", "turn", 49, "c")
	stream := func(text string, onReport func(*Report)) error {
		_, err := StreamOTLP(m, "s", strings.NewReader(text), mp, func(rp *Report) error {
			onReport(rp)
			return nil
		})
		return err
	}
	var got []string
	if err := stream(t1+t2, func(rp *Report) { got = append(got, fmt.Sprintf("%s %s %d", rp.Key, rp.Verdict(), rp.Result.Steps)) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c conforms 3"}, got); diff != "" {
		t.Errorf("two traces (-want +got):\n%s", diff)
	}
	err = stream(t1+early, func(*Report) {})
	if want := "s:4: span 31 (edit): run c: this step starts before a step of the run judged already"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("out of order: %v, want %q...", err, want)
	}
	// A third edit diverges; the report comes before the next trace is read.
	reported := false
	r := &failAfter{text: t1 + otlpSpanLine("04", "41", "40", "edit", 301, "") + otlpSpanLine("04", "40", "", "turn", 300, "c"), then: &reported}
	_, err = StreamOTLP(m, "s", r, mp, func(rp *Report) error {
		if rp.Verdict() != "diverges" || rp.Span.SpanID != "41" {
			t.Errorf("report %s at %s, want diverges at span 41", rp.Verdict(), rp.Span)
		}
		reported = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reported {
		t.Error("no report")
	}
}

// failAfter reads text, then fails the test if more is asked for before
// *then is set: the stream must report without waiting for more input.
type failAfter struct {
	text string
	then *bool
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.text == "" {
		if !*f.then {
			return 0, fmt.Errorf("read past the end before the report")
		}
		return 0, io.EOF
	}
	n := copy(p, f.text)
	f.text = f.text[n:]
	return n, nil
}

// TestStreamCaps: a stream that would hold more spans or follow more
// runs than the documented limits ends with an error naming the limit,
// never with a verdict and never with memory growing past it.
func TestStreamCaps(t *testing.T) {
	if testenv.Short(t) {
		t.Skip("generates a few hundred thousand spans")
	}
	const gateSpec = `spec G
var n: 0..2
process w {
  action edit when n < 2 { n := n + 1 }
}
`
	m, err := spec.ParseFile("g.wrap", []byte(gateSpec), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mp := loadMapping(t, m, `{"rules": [{"span": "edit", "action": "w.edit"}]}`)
	stream := func(text string) (int, error) {
		return StreamOTLP(m, "s", strings.NewReader(text), mp, func(*Report) error { return nil })
	}
	// Spans of one trace whose root never comes.
	var b strings.Builder
	for i := 0; i <= MaxPendingSpans; i++ {
		b.WriteString(otlpSpanLine("01", fmt.Sprintf("%08x", i+1), "ff", "edit", 100+i, ""))
	}
	_, err = stream(b.String())
	want := fmt.Sprintf("s:%d: more than %d spans", MaxPendingSpans+1, MaxPendingSpans)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("pending spans: %v, want %q...", err, want)
	}
	// One complete, conforming trace per run: every run stays open.
	b.Reset()
	for i := 0; i <= MaxOpenRuns; i++ {
		tr := fmt.Sprintf("%016x", i+1)
		b.WriteString(otlpSpanLine(tr, "02", "01", "edit", 101, ""))
		b.WriteString(otlpSpanLine(tr, "01", "", "turn", 100, fmt.Sprintf("c%d", i)))
	}
	n, err := stream(b.String())
	want = fmt.Sprintf("s: more than %d runs open at once", MaxOpenRuns)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("open runs: %v, want %q...", err, want)
	}
	if n != MaxOpenRuns {
		t.Errorf("%d runs followed when the limit stopped the stream, want %d", n, MaxOpenRuns)
	}
	// Just under both limits the stream is judged.
	b.Reset()
	for i := 0; i < MaxOpenRuns; i++ {
		tr := fmt.Sprintf("%016x", i+1)
		b.WriteString(otlpSpanLine(tr, "02", "01", "edit", 101, ""))
		b.WriteString(otlpSpanLine(tr, "01", "", "turn", 100, fmt.Sprintf("c%d", i)))
	}
	if n, err := stream(b.String()); err != nil || n != MaxOpenRuns {
		t.Errorf("at the limit: %d runs, %v; want %d runs, no error", n, err, MaxOpenRuns)
	}
}
