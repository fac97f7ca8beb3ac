package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// otlpSpanJSON is a span of OTLP JSON for the hand-written recordings.
func otlpSpanJSON(id, parent, name string, start int, attrs string) string {
	return `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"` + id + `","parentSpanId":"` + parent +
		`","name":"` + name + `","kind":1,"startTimeUnixNano":"` + strconv.Itoa(start) + `","endTimeUnixNano":"` + strconv.Itoa(start+1) +
		`","attributes":[` + attrs + `]}`
}

func otlpRequestJSON(spans ...string) string {
	return `{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
}

func strAttr(k, v string) string {
	return `{"key":"` + k + `","value":{"stringValue":"` + v + `"}}`
}

const gateMapping = `{"rules": [
  {"span": "edit", "action": "wrapper.edit"},
  {"span": "review", "action": "wrapper.review", "asked": {"verifier": {"from": "verdict"}}}
]}`

// TestReadOTLPShapes: order by start time, then parent before child;
// runs split by the conversation, inherited from the parent; unknown
// members ignored; a request over several lines.
func TestReadOTLPShapes(t *testing.T) {
	m := gateModel(t)
	mp := loadMapping(t, m, gateMapping)
	conv := func(c string) string { return strAttr("gen_ai.conversation.id", c) }
	tests := []struct {
		name, rec string
		want      []string // per run: key, then the actions
	}{
		{"unsorted", otlpRequestJSON(
			otlpSpanJSON("0000000000000003", "0000000000000001", "review", 30, strAttr("verdict", "pass")),
			otlpSpanJSON("0000000000000002", "0000000000000001", "edit", 20, ""),
			otlpSpanJSON("0000000000000001", "", "root", 10, conv("a"))),
			[]string{"a: wrapper.edit wrapper.review"}},
		// same start: the parent first, whatever the file order
		{"parent-first", otlpRequestJSON(
			otlpSpanJSON("0000000000000002", "0000000000000001", "review", 10, strAttr("verdict", "pass")),
			otlpSpanJSON("0000000000000001", "", "edit", 10, conv("a"))),
			[]string{"a: wrapper.edit wrapper.review"}},
		{"two-runs", otlpRequestJSON(
			otlpSpanJSON("0000000000000001", "", "edit", 10, conv("b")),
			otlpSpanJSON("0000000000000002", "", "edit", 11, conv("a")),
			otlpSpanJSON("0000000000000003", "", "review", 12, conv("b")+","+strAttr("verdict", "pass"))),
			[]string{"b: wrapper.edit wrapper.review", "a: wrapper.edit"}},
		{"unknown-members", strings.Replace(otlpRequestJSON(otlpSpanJSON("0000000000000001", "", "edit", 10, "")),
			`"kind":1`, `"kind":"SPAN_KIND_INTERNAL","droppedAttributesCount":3,"x":{"y":[1,2]}`, 1),
			[]string{": wrapper.edit"}},
		{"multi-line", "\n{\n\"resourceSpans\": [\n{\"scopeSpans\": [{\"spans\": [" +
			otlpSpanJSON("0000000000000001", "", "edit", 10, "") + "]}]}]\n}\n\n" +
			otlpRequestJSON(otlpSpanJSON("0000000000000002", "", "edit", 20, "")) + "\n",
			[]string{": wrapper.edit wrapper.edit"}},
		{"empty", "", nil},
		{"no-span-mapped", otlpRequestJSON(otlpSpanJSON("0000000000000001", "", "chat", 10, "")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := ReadOTLP(m, "rec.json", strings.NewReader(tt.rec), mp)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range runs {
				s := r.Key + ":"
				for _, l := range r.Lines {
					s += " " + m.Actions[l.action].Name
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// endlessString is a reader of a JSON string that never ends.
type endlessString struct{ head []byte }

func (e *endlessString) Read(p []byte) (int, error) {
	if len(e.head) > 0 {
		n := copy(p, e.head)
		e.head = e.head[n:]
		return n, nil
	}
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestReadOTLPHostile: bad input gets a positioned error, never a panic
// or unbounded memory.
func TestReadOTLPHostile(t *testing.T) {
	m := gateModel(t)
	mp := loadMapping(t, m, gateMapping)
	nested := `{"stringValue":"x"}`
	for range 40 {
		nested = `{"arrayValue":{"values":[` + nested + `]}}`
	}
	tests := []struct {
		name string
		rec  io.Reader
		want string
	}{
		{"not-json", strings.NewReader(`{"resourceSpans": [}`), "rec.json:1: not OTLP JSON: invalid character '}' looking for beginning of value"},
		{"no-resource-spans", strings.NewReader(`{"action": "wrapper.edit"}`), "rec.json:1: not an ExportTraceServiceRequest: no resourceSpans"},
		{"spans-a-number", strings.NewReader(`{"resourceSpans":[{"scopeSpans":[{"spans":3}]}]}`),
			"rec.json:1: resourceSpans.scopeSpans.spans: want []replay.otlpSpan, found a JSON number"},
		{"bad-time", strings.NewReader("\n" + strings.Replace(otlpRequestJSON(otlpSpanJSON("0000000000000001", "", "edit", 10, "")), `"startTimeUnixNano":"10"`, `"startTimeUnixNano":"ten"`, 1)),
			`rec.json:2: not OTLP JSON: want an unsigned 64-bit integer, found "ten"`},
		{"bad-int", strings.NewReader(otlpRequestJSON(otlpSpanJSON("0000000000000001", "", "edit", 10, `{"key":"n","value":{"intValue":"1e3"}}`))),
			`rec.json:1: not OTLP JSON: want a 64-bit integer, found "1e3"`},
		{"bad-id", strings.NewReader(otlpRequestJSON(otlpSpanJSON("zz", "", "edit", 10, ""))),
			`rec.json:1: span "zz" (edit): spanId "zz" is not hex`},
		{"deep-value", strings.NewReader(otlpRequestJSON(otlpSpanJSON("0000000000000001", "", "edit", 10, `{"key":"n","value":`+nested+`}`))),
			`rec.json:1: span "0000000000000001" (edit): attribute n: values nested more than 32 deep`},
		{"deep-json", strings.NewReader(`{"resourceSpans":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}"),
			"rec.json:1: not OTLP JSON: invalid character '[' exceeded max depth"},
		{"unclosed", strings.NewReader(`{"resourceSpans": [` + "\n\n"), "rec.json:1: not OTLP JSON: unexpected end of JSON input (the request that starts here does not end)"},
		{"answer-outside-type", strings.NewReader(otlpRequestJSON(otlpSpanJSON("0000000000000001", "", "review", 10, strAttr("verdict", "maybe")))),
			`rec.json:1: span 0000000000000001 (review): asked.verifier:`},
		{"huge", &endlessString{head: []byte(`{"resourceSpans":[{"x":"`)}, "rec.json:1: an ExportTraceServiceRequest larger than 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadOTLP(m, "rec.json", tt.rec, mp)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, want an error starting %q", err, tt.want)
			}
		})
	}
}

// FuzzReadOTLP: no input panics the reader, the mapping or the replay.
// The fuzzer minimizes every input that finds new coverage, with runs of
// the target on its parts, for up to a minute: seeded with the whole
// recordings (4 to 10 KB, 10 ms a run instrumented) it spent every
// minute minimizing and ran about nine new inputs in two. The seeds are
// cut small (otlpSeeds), and the spec, the mapping and the program are
// made once, not per input.
func FuzzReadOTLP(f *testing.F) {
	m := loadPipeline(f)
	mp := loadMapping(f, m, pipelineMapping(f))
	prog, err := machine.Compile(m)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range otlpSeeds(f) {
		f.Add(seed)
	}
	f.Add([]byte(otlpRequestJSON(otlpSpanJSON("0000000000000001", "", "edit", 10, strAttr("gen_ai.conversation.id", "a")))))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := ReadOTLP(m, "fuzz.json", bytes.NewReader(data), mp)
		if err != nil {
			return
		}
		for _, r := range runs {
			if _, err := CheckProgram(context.Background(), prog, r.Lines); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// otlpSeeds cuts small seeds from the recordings of testdata/otlp: each
// span of a new name alone with its trace's root span, and each
// recording's first two steps with the root span.
func otlpSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "otlp", "*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no recordings: %v", err)
	}
	type span struct {
		Name   string `json:"name"`
		Parent string `json:"parentSpanId"`
	}
	var seeds [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if !IsOTLP(b) {
			continue
		}
		var spans []string
		root := ""
		for _, line := range bytes.Split(b, []byte("\n")) {
			var req struct {
				ResourceSpans []struct {
					ScopeSpans []struct {
						Spans []json.RawMessage `json:"spans"`
					} `json:"scopeSpans"`
				} `json:"resourceSpans"`
			}
			if json.Unmarshal(line, &req) != nil {
				continue
			}
			for _, rs := range req.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, raw := range ss.Spans {
						var sp span
						if json.Unmarshal(raw, &sp) != nil {
							tb.Fatalf("%s: %s", p, raw)
						}
						if sp.Parent == "" {
							root = string(raw)
						} else {
							spans = append(spans, string(raw))
						}
					}
				}
			}
		}
		seen := map[string]bool{}
		for _, raw := range spans {
			var sp span
			_ = json.Unmarshal([]byte(raw), &sp)
			if !seen[sp.Name] {
				seen[sp.Name] = true
				seeds = append(seeds, []byte(otlpRequestJSON(raw, root)))
			}
		}
		if len(spans) >= 3 { // a chat span, then the planner and the first tool call
			seeds = append(seeds, []byte(otlpRequestJSON(spans[1], spans[2], root)))
		}
	}
	return seeds
}

// TestOTLPSeeds: the seeds of FuzzReadOTLP are small (under 2 KiB, so
// that minimizing an input grown from one takes seconds, not the
// fuzzer's minute), and between them they still map a span to every
// action the mapping names and replay a run of more than one step.
func TestOTLPSeeds(t *testing.T) {
	m := loadPipeline(t)
	mp := loadMapping(t, m, pipelineMapping(t))
	mapped := map[string]bool{}
	longest := 0
	for _, seed := range otlpSeeds(t) {
		if len(seed) > 2048 {
			t.Errorf("a seed of %d bytes: %.80s...", len(seed), seed)
		}
		runs, err := ReadOTLP(m, "seed.json", bytes.NewReader(seed), mp)
		if err != nil {
			t.Fatalf("%v: %s", err, seed)
		}
		for _, r := range runs {
			longest = max(longest, len(r.Lines))
			for _, l := range r.Lines {
				if l.action >= 0 {
					mapped[m.Actions[l.action].Name] = true
				}
			}
		}
	}
	var want []string
	for _, r := range mp.Rules {
		if !slices.Contains(want, r.Action) {
			want = append(want, r.Action)
		}
	}
	for _, a := range want {
		if !mapped[a] {
			t.Errorf("no seed maps a span to %s", a)
		}
	}
	if longest < 2 {
		t.Errorf("no seed makes a run of two steps")
	}
}

func gateModel(t testing.TB) *spec.Model {
	t.Helper()
	m, err := spec.ParseFile("gate.wrap", []byte(gate), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPresets: one mapping written with fields reads GenAI, MCP and
// OpenInference spans, each run keyed by its conventions' session; naming
// one preset leaves the others' spans unread.
func TestPresets(t *testing.T) {
	m := gateModel(t)
	rec := otlpRequestJSON(
		otlpSpanJSON("0000000000000001", "", "execute_tool edit_draft", 10,
			strAttr("gen_ai.operation.name", "execute_tool")+","+strAttr("gen_ai.tool.name", "edit_draft")+","+strAttr("gen_ai.conversation.id", "genai")),
		otlpSpanJSON("0000000000000002", "", "tools/call edit_draft", 11,
			strAttr("mcp.method.name", "tools/call")+","+strAttr("mcp.session.id", "mcp")),
		otlpSpanJSON("0000000000000003", "", "edit_draft", 12,
			strAttr("openinference.span.kind", "TOOL")+","+strAttr("tool.name", "edit_draft")+","+strAttr("session.id", "oi")),
		otlpSpanJSON("0000000000000004", "", "chat gpt", 13, strAttr("gen_ai.operation.name", "chat")),
	)
	for _, tt := range []struct {
		presets string
		want    []string
	}{
		{``, []string{"genai:1", "mcp:1", "oi:1"}},
		{`"presets": ["genai"], `, []string{"genai:1"}},
		// the GenAI span has gen_ai.tool.name but no mcp.session.id: it takes
		// the key of its trace, which all these spans share
		{`"presets": ["mcp"], `, []string{"mcp:2"}},
		{`"presets": ["openinference"], `, []string{"oi:1"}},
	} {
		mp := loadMapping(t, m, `{`+tt.presets+`"rules": [{"where": {"tool": "edit_draft", "operation": "*"}, "action": "wrapper.edit"}, {"where": {"kind": "TOOL"}, "action": "wrapper.edit"}]}`)
		runs, err := ReadOTLP(m, "rec.json", strings.NewReader(rec), mp)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range runs {
			got = append(got, r.Key+":"+strconv.Itoa(len(r.Lines)))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.presets, diff)
		}
	}
}

// TestUnmapped: agent and tool spans no rule maps are listed with their run.
func TestUnmapped(t *testing.T) {
	m := gateModel(t)
	rec := otlpRequestJSON(
		otlpSpanJSON("0000000000000001", "", "execute_tool edit_draft", 10,
			strAttr("gen_ai.operation.name", "execute_tool")+","+strAttr("gen_ai.tool.name", "edit_draft")+","+strAttr("gen_ai.conversation.id", "c")),
		otlpSpanJSON("0000000000000002", "", "execute_tool delete_file", 11,
			strAttr("gen_ai.operation.name", "execute_tool")+","+strAttr("gen_ai.tool.name", "delete_file")),
		otlpSpanJSON("0000000000000003", "", "chat gpt", 12, strAttr("gen_ai.operation.name", "chat")),
		otlpSpanJSON("0000000000000004", "", "guard", 13, strAttr("openinference.span.kind", "GUARDRAIL")),
	)
	mp := loadMapping(t, m, `{"rules": [{"where": {"tool": "edit_draft"}, "action": "wrapper.edit"}]}`)
	runs, err := ReadOTLP(m, "rec.json", strings.NewReader(rec), mp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		for _, u := range r.Unmapped {
			got = append(got, r.Key+" "+u.String())
		}
	}
	want := []string{"c span 0000000000000002 (execute_tool delete_file)", "c span 0000000000000004 (guard)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSniffOTLP(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{"resourceSpans":[]}`, true},
		{"\n  {\n \"resourceSpans\"", true},
		{`{"resource_spans": []}`, true},
		{`{"action": "wrapper.edit"}`, false},
		{`{"step": 0, "resourceSpans": 1}`, false},
		{`[{"resourceSpans": []}]`, false},
		{``, false},
		{`{"resourceSpan`, false},
	} {
		if got := SniffOTLP(bufio.NewReader(strings.NewReader(tt.in))); got != tt.want {
			t.Errorf("SniffOTLP(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestHostileNames: a name that a run file, a recording or a mapping
// gives and the spec does not know is quoted in the error escaped, so the
// error is one line whatever the name holds (its JSON and SARIF
// renderings as much as stderr).
func TestHostileNames(t *testing.T) {
	m := gateModel(t)
	const bad = "x\n##[error]INJ\r::error::INJ\u2028"
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct {
		name string
		err  func() error
	}{
		{"action", func() error {
			_, err := Read(m, "run.jsonl", strings.NewReader(`{"action": `+q(bad)+`}`))
			return err
		}},
		{"variable", func() error {
			_, err := Read(m, "run.jsonl", strings.NewReader(`{"action": "wrapper.edit", "state": {`+q(bad)+`: 1}}`))
			return err
		}},
		{"agent", func() error {
			_, err := Read(m, "run.jsonl", strings.NewReader(`{"action": "wrapper.edit", "asked": {`+q(bad)+`: 1}}`))
			return err
		}},
		{"mapping action", func() error {
			_, err := ParseMapping(m, "mapping.json", strings.NewReader(`{"rules": [{"span": "edit", "action": `+q(bad)+`}]}`))
			return err
		}},
		{"mapping agent", func() error {
			_, err := ParseMapping(m, "mapping.json", strings.NewReader(`{"rules": [{"span": "edit", "action": "wrapper.edit", "asked": {`+q(bad)+`: {"from": "v"}}}]}`))
			return err
		}},
		{"mapping preset", func() error {
			_, err := ParseMapping(m, "mapping.json", strings.NewReader(`{"presets": [`+q(bad)+`], "rules": [{"span": "edit", "action": "wrapper.edit"}]}`))
			return err
		}},
		{"span", func() error {
			mp := loadMapping(t, m, gateMapping)
			rec := otlpRequestJSON(otlpSpanJSON("0000000000000001", "", `edit\n##[error]INJ`, 10, `{"key":"a","value":{"bytesValue":"!!"}}`))
			_, err := ReadOTLP(m, "rec.json", strings.NewReader(rec), mp)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			if err == nil {
				t.Fatal("no error")
			}
			if strings.ContainsAny(err.Error(), "\n\r\u2028") || !strings.Contains(err.Error(), "INJ") {
				t.Errorf("error %q: a line break, or the name missing", err)
			}
		})
	}
}
