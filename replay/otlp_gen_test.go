package replay

// This file is the generator of the OTLP recordings in testdata/otlp: a
// toy wrapper (planner, executor, verifier, human approval) instrumented
// with the OpenTelemetry Go SDK runs the design of
// examples/pipeline/pipeline.wrap, once as it should and once with each
// of three bugs, and the SDK's OTLP/HTTP exporter sends its spans to a
// test collector that writes them as OTLP JSON, one
// ExportTraceServiceRequest a line. TestOTLPRecordings regenerates them
// and compares (WRAPCHECK_UPDATE=1 rewrites them).

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// collector is a test OTLP/HTTP receiver: it writes each request it gets
// as a line of OTLP JSON (camelCase, enums as numbers, ids in hex, as the
// collector's file exporter does).
type collector struct {
	mu    sync.Mutex
	lines bytes.Buffer
	err   error
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := io.Reader(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			c.fail(w, err)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		c.fail(w, err)
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		c.fail(w, err)
		return
	}
	line, err := otlpJSON(&req)
	if err != nil {
		c.fail(w, err)
		return
	}
	c.mu.Lock()
	c.lines.Write(line)
	c.lines.WriteByte('\n')
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (c *collector) fail(w http.ResponseWriter, err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	http.Error(w, err.Error(), http.StatusBadRequest)
}

// otlpJSON is the OTLP JSON encoding of a request: protojson with enums
// as numbers, then the ids turned from base64 into hex (the one place
// OTLP JSON departs from the protobuf JSON mapping), re-encoded by
// encoding/json so that the bytes are stable.
func otlpJSON(req *coltrace.ExportTraceServiceRequest) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(req)
	if err != nil {
		return nil, err
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	if err := hexIDs(x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

func hexIDs(x any) error {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if s, ok := v.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
				raw, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return err
				}
				x[k] = hex.EncodeToString(raw)
				continue
			}
			if err := hexIDs(v); err != nil {
				return err
			}
		}
	case []any:
		for _, v := range x {
			if err := hexIDs(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// seqIDs gives trace and span ids from counters, so recordings are stable.
type seqIDs struct {
	mu   sync.Mutex
	next uint64
}

func (g *seqIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	var t trace.TraceID
	g.mu.Lock()
	g.next++
	binary.BigEndian.PutUint64(t[8:], g.next)
	g.mu.Unlock()
	return t, g.NewSpanID(ctx, t)
}

func (g *seqIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	var s trace.SpanID
	g.mu.Lock()
	g.next++
	binary.BigEndian.PutUint64(s[:], g.next)
	g.mu.Unlock()
	return s
}

// toyBugs are the bugs of examples/pipeline a toy wrapper may have.
type toyBugs struct {
	releaseAfterOutage bool // release_after_outage.wrap: the second outage releases with a caveat
	failOpen           bool // fail_open.wrap: a garbled verdict counts as a pass
	keepApproval       bool // approval_toctou.wrap: a re-render keeps the approval
}

type toyVerdict struct {
	Status string `json:"status"`
	Pass   bool   `json:"pass"`
	Issues bool   `json:"issues"`
}

// toyWrapper is the pipeline wrapper of examples/pipeline/pipeline.wrap,
// written as plain code, its steps traced as spans of a dialect of the
// conventions: genai (current), genai-1.36, openinference.
type toyWrapper struct {
	t       *testing.T
	bugs    toyBugs
	dialect string
	conv    string // the conversation id of the run
	tr      trace.Tracer
	ctx     context.Context // the root span's
	clock   time.Time

	phase           string
	brief, draft    []string
	step, rerenders int
	glitches        int
	pending         string
	approved        bool
	apprDraft       []string
	insp            [2]int

	steps []string // the span id of each step taken, in order
}

func (w *toyWrapper) tick() trace.SpanEventOption {
	w.clock = w.clock.Add(time.Millisecond)
	return trace.WithTimestamp(w.clock)
}

func jsonAttr(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// span runs one step of the wrapper as a span: kind is agent or tool,
// who its name; body does the work and returns the attributes to add.
func (w *toyWrapper) span(kind, who string, body func(sp trace.Span) []attribute.KeyValue) {
	var name string
	var attrs []attribute.KeyValue
	switch w.dialect {
	case "openinference":
		name = who
		attrs = []attribute.KeyValue{attribute.String("session.id", w.conv)}
		switch kind {
		case "agent":
			attrs = append(attrs, attribute.String("openinference.span.kind", "AGENT"), attribute.String("agent.name", who))
		case "tool":
			attrs = append(attrs, attribute.String("openinference.span.kind", "TOOL"), attribute.String("tool.name", who))
		default:
			attrs = append(attrs, attribute.String("openinference.span.kind", "CHAIN"))
		}
	default:
		switch kind {
		case "agent":
			name = "invoke_agent " + who
			attrs = []attribute.KeyValue{attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", who),
				attribute.String("gen_ai.conversation.id", w.conv)}
		case "tool":
			name = "execute_tool " + who
			attrs = []attribute.KeyValue{attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", who),
				attribute.String("gen_ai.tool.call.id", "call_"+who)}
		default:
			name = who
		}
	}
	ctx, sp := w.tr.Start(w.ctx, name, w.tick(), trace.WithAttributes(attrs...))
	if kind == "agent" {
		// the model call inside the agent: a span no rule maps
		provider := attribute.String("gen_ai.provider.name", "toy")
		if w.dialect == "genai-1.36" {
			provider = attribute.String("gen_ai.system", "toy")
		}
		_, chat := w.tr.Start(ctx, "chat toy-model", w.tick(), trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat"), provider))
		chat.End(w.tick())
	}
	sp.SetAttributes(body(sp)...)
	sp.SetAttributes(attribute.String("pipeline.phase", w.phase), attribute.Bool("pipeline.approved", w.approved), attribute.Int("pipeline.step", w.step))
	w.steps = append(w.steps, sp.SpanContext().SpanID().String())
	sp.End(w.tick())
}

func (w *toyWrapper) must(ok bool, what string) {
	if !ok {
		w.t.Fatalf("toy wrapper: %s not possible in phase %s", what, w.phase)
	}
}

func (w *toyWrapper) plan(brief []string) {
	w.must(w.phase == "planning", "plan")
	w.span("agent", "planner", func(trace.Span) []attribute.KeyValue {
		w.brief, w.phase = brief, "rendering"
		return []attribute.KeyValue{attribute.String("pipeline.brief", jsonAttr(brief))}
	})
}

func (w *toyWrapper) render(draft []string) {
	w.must(w.phase == "rendering", "render")
	w.span("tool", "render_draft", func(sp trace.Span) []attribute.KeyValue {
		w.draft, w.phase = draft, "verifying"
		args := jsonAttr(map[string]any{"brief": w.brief, "issues": w.rerenders == 1})
		switch w.dialect {
		case "openinference":
			return []attribute.KeyValue{attribute.String("input.value", args), attribute.String("output.value", jsonAttr(draft))}
		case "genai-1.36":
			sp.AddEvent("gen_ai.tool.message", w.tick(), trace.WithAttributes(attribute.String("id", "call_render_draft"), attribute.String("content", jsonAttr(draft))))
			return nil
		}
		return []attribute.KeyValue{attribute.String("gen_ai.tool.call.arguments", args), attribute.String("gen_ai.tool.call.result", jsonAttr(draft))}
	})
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func (w *toyWrapper) verify(v toyVerdict) {
	w.must(w.phase == "verifying", "verify")
	w.span("agent", "verifier", func(trace.Span) []attribute.KeyValue {
		inside := subset(w.draft, w.brief)
		switch {
		case w.bugs.failOpen && v.Status == "garbled" && inside:
			w.pending, w.phase = "clean", "ready"
		case v.Status != "answered" || v.Pass == v.Issues:
			w.glitches++
			if w.glitches == 2 {
				if w.bugs.releaseAfterOutage && v.Status == "outage" {
					w.pending, w.phase = "caveat", "ready"
				} else {
					w.phase = "stopped"
				}
			}
		default:
			w.insp[w.step]++
			switch {
			case v.Pass && inside:
				w.pending, w.phase = "clean", "ready"
			case w.rerenders == 0:
				w.rerenders, w.phase = 1, "rendering"
				if !w.bugs.keepApproval {
					w.approved, w.apprDraft = false, nil
				}
			case inside:
				w.pending, w.phase = "caveat", "ready"
			default:
				w.phase = "stopped"
			}
		}
		return []attribute.KeyValue{attribute.String("pipeline.verdict", jsonAttr(v))}
	})
}

func (w *toyWrapper) approve(ok bool) {
	w.must((w.phase == "verifying" || w.phase == "ready") && !w.approved, "approve")
	w.span("wrapper", "await_approval", func(sp trace.Span) []attribute.KeyValue {
		if ok {
			w.approved, w.apprDraft = true, w.draft
		} else {
			w.phase = "stopped"
		}
		sp.AddEvent("human.approval", w.tick(), trace.WithAttributes(attribute.Bool("approval.granted", ok), attribute.String("approval.user", "reviewer@example.com")))
		return nil
	})
}

func (w *toyWrapper) release() {
	w.must(w.phase == "ready" && w.approved, "release")
	w.span("wrapper", "release", func(trace.Span) []attribute.KeyValue {
		w.step++
		w.phase = "rendering"
		if w.step == 2 {
			w.phase = "done"
		}
		w.draft, w.rerenders, w.glitches, w.pending, w.approved, w.apprDraft = nil, 0, 0, "unreleased", false, nil
		return nil
	})
}

var (
	pass    = toyVerdict{"answered", true, false}
	fail    = toyVerdict{"answered", false, true}
	garbled = toyVerdict{"garbled", true, false}
	outage  = toyVerdict{"outage", false, false}
)

// toyScenarios are the recorded runs: a conforming one and the three
// broken ones, each with the index (among the spans the mapping maps, in
// order) of the step the replay must point at.
var toyScenarios = []struct {
	name string
	bugs toyBugs
	// bad is the step (1-based, among the wrapper's) the replay must point
	// at with the state the wrapper records, blind without it; 0: none
	bad, blind int
	run        func(w *toyWrapper)
}{
	{"conforming", toyBugs{}, 0, 0, func(w *toyWrapper) {
		w.plan([]string{"A5_9"})
		w.render([]string{"A5_9"})
		w.approve(true)
		w.verify(pass)
		w.release()
		w.render([]string{"A5_9", "C9_2"})
		w.verify(fail)
		w.render([]string{"A5_9"})
		w.verify(outage)
		w.verify(pass)
		w.approve(true)
		w.release()
	}},
	{"release_after_outage", toyBugs{releaseAfterOutage: true}, 4, 5, func(w *toyWrapper) {
		w.plan([]string{"A5_9"})
		w.render([]string{"A5_9"})
		w.verify(outage)
		w.verify(outage)
		w.approve(true)
		w.release()
	}},
	{"fail_open", toyBugs{failOpen: true}, 3, 5, func(w *toyWrapper) {
		w.plan([]string{"A5_9"})
		w.render([]string{"A5_9"})
		w.verify(garbled)
		w.approve(true)
		w.release()
	}},
	{"approval_reused", toyBugs{keepApproval: true}, 4, 7, func(w *toyWrapper) {
		w.plan([]string{"A5_9", "C9_2"})
		w.render([]string{"A5_9"})
		w.approve(true)
		w.verify(fail)
		w.render([]string{"A5_9", "C9_2"})
		w.verify(pass)
		w.release()
	}},
}

// record runs a scenario with a toy wrapper and returns its OTLP JSON
// and the span id of each step the wrapper took.
func record(t *testing.T, scenario int, dialect string) ([]byte, []string) {
	t.Helper()
	sc := toyScenarios[scenario]
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Hour)),
		sdktrace.WithIDGenerator(&seqIDs{next: uint64(scenario) << 32}),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "toy-pipeline"))),
	)
	w := &toyWrapper{t: t, bugs: sc.bugs, dialect: dialect, conv: "conv-" + sc.name, tr: tp.Tracer("toy-pipeline"),
		clock: time.Date(2026, 1, 1, 0, 0, scenario, 0, time.UTC), phase: "planning", pending: "unreleased"}
	var root trace.Span
	rootAttrs := []attribute.KeyValue{attribute.String("gen_ai.operation.name", "invoke_workflow"), attribute.String("gen_ai.conversation.id", w.conv)}
	if dialect == "openinference" {
		rootAttrs = []attribute.KeyValue{attribute.String("openinference.span.kind", "CHAIN"), attribute.String("session.id", w.conv)}
	}
	w.ctx, root = w.tr.Start(ctx, "invoke_workflow pipeline", w.tick(), trace.WithAttributes(rootAttrs...))
	sc.run(w)
	if err := tp.ForceFlush(ctx); err != nil { // the spans so far, the root not among them
		t.Fatal(err)
	}
	root.End(w.tick())
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if col.err != nil {
		t.Fatal(col.err)
	}
	return col.lines.Bytes(), w.steps
}
