package guard_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
)

// otlpRequest is the part of an ExportTraceServiceRequest the test splits.
type otlpRequest struct {
	ResourceSpans []struct {
		Resource   json.RawMessage `json:"resource"`
		ScopeSpans []struct {
			Spans []json.RawMessage `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

// TestAgreesOnOTLPRecordings checks the guard against replay on the OTLP
// recordings of replay's tests, through their mapping: each step sent as
// a request of its one span (Request.OTLP), in the order of the
// recording, the guard blocks where replay finds the run diverging or
// violated and allows every step of a conforming run.
func TestAgreesOnOTLPRecordings(t *testing.T) {
	const specPath = "../examples/pipeline/pipeline.wrap"
	prog := compile(t, specPath)
	m := prog.Model
	mf, err := os.Open("../replay/testdata/otlp/pipeline.mapping.json")
	if err != nil {
		t.Fatal(err)
	}
	mp, err := replay.ParseMapping(m, "pipeline.mapping.json", mf)
	mf.Close()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../replay/testdata/otlp/*.json")
	n, blocked := 0, 0
	for _, file := range files {
		if filepath.Base(file) == "pipeline.mapping.json" {
			continue
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := replay.ReadOTLP(m, file, bytes.NewReader(data), mp)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]outcome{}
			for _, rn := range runs {
				want[rn.Key] = replayRunOutcome(t, prog, rn.Lines)
			}
			// Every span, alone in a request, with its resource.
			var single [][]byte
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				var req otlpRequest
				if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
					t.Fatal(err)
				}
				for _, rs := range req.ResourceSpans {
					for _, ss := range rs.ScopeSpans {
						for _, sp := range ss.Spans {
							one := map[string]any{"resourceSpans": []any{map[string]any{"resource": rs.Resource,
								"scopeSpans": []any{map[string]any{"spans": []json.RawMessage{sp}}}}}}
							b, _ := json.Marshal(one)
							single = append(single, b)
						}
					}
				}
			}
			// The steps of the whole recording, in its order, and the
			// request of one span that each comes from.
			all, err := mp.MapRequest(file, mergeRequests(t, data))
			if err != nil {
				t.Fatal(err)
			}
			bySpan := map[replay.SpanRef][]byte{}
			for _, req := range single {
				steps, err := mp.MapRequest(file, req)
				if err != nil {
					t.Fatal(err)
				}
				if len(steps) == 1 {
					bySpan[spanKey(steps[0].Span)] = req
				}
			}
			g, err := guard.New(prog, guard.Options{Mapping: mp})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]outcome{}
			fed := map[string]int{}
			for _, st := range all {
				if _, done := got[st.Key]; done {
					continue
				}
				if fed[st.Key] == 0 {
					g.Decide(guard.Request{Op: "open", Run: st.Key})
				}
				fed[st.Key]++
				req := guard.Request{Run: st.Key, OTLP: bySpan[spanKey(st.Span)]}
				if req.OTLP == nil {
					req = guard.Request{Run: st.Key, Event: st.Event}
				} else {
					n++
				}
				d := g.Decide(req)
				if !d.IsAllowed() {
					got[st.Key] = outcome{fed[st.Key], d.Kind}
				}
			}
			for _, rn := range runs {
				if _, ok := got[rn.Key]; !ok {
					got[rn.Key] = outcome{}
				}
			}
			for k, w := range want {
				if w.Kind != "" {
					blocked++
				}
				if got[k] != w {
					t.Errorf("run %s: guard %+v, replay %+v", k, got[k], w)
				}
			}
		})
	}
	if n < 20 || blocked < 2 {
		t.Errorf("%d steps sent as spans, %d runs blocked: want the recordings' steps and runs", n, blocked)
	}
}

func spanKey(r replay.SpanRef) replay.SpanRef {
	return replay.SpanRef{TraceID: r.TraceID, SpanID: r.SpanID, Event: r.Event}
}

// mergeRequests joins the requests of a recording, one a line, into one.
func mergeRequests(t *testing.T, data []byte) []byte {
	var all []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var req struct {
			ResourceSpans []json.RawMessage `json:"resourceSpans"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		all = append(all, req.ResourceSpans...)
	}
	b, _ := json.Marshal(map[string]any{"resourceSpans": all})
	return b
}

func replayRunOutcome(t *testing.T, prog *machine.Program, lines []replay.Line) outcome {
	res, err := replay.CheckProgram(context.Background(), prog, lines)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case res.Diverged != nil:
		return outcome{res.Diverged.Line, "diverges"}
	case res.Violation != nil:
		return outcome{res.Line, "violated"}
	}
	return outcome{}
}
