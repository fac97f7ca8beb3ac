package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Mapping says how the spans of an OTLP recording become the steps of
// runs: which spans (and span events) are which actions, and which of
// their attributes are which agent answers and variables. Its JSON form is
// documented in docs/replay.md.
type Mapping struct {
	// Presets name the built-in field sets the mapping reads (genai,
	// genai-1.36, mcp, openinference); none named: all of them, in that
	// order.
	Presets []string `json:"presets"`
	// RunKey is the field or attribute that splits a recording into runs
	// (default: the field conversation).
	RunKey string `json:"run_key"`
	// Fields adds fields, or replaces the presets' ones: a field is read
	// from the first of its attribute keys that a span has.
	Fields map[string][]string `json:"fields"`
	// State is read on every step: variables whose source is absent on a
	// span are left open.
	State map[string]Source `json:"state"`
	// Rules are tried in order: a span is the step of the first span rule
	// it matches, each of its events the step of the first event rule.
	Rules []Rule `json:"rules"`

	fields map[string][]string // presets and Fields, resolved
}

// Rule maps the spans (or span events) it matches to one action.
type Rule struct {
	Span   string            `json:"span"`  // glob (*) on the span name; empty: any
	Event  string            `json:"event"` // glob on an event name: each matching event is a step
	Where  map[string]string `json:"where"` // field or attribute -> glob on its value
	Action string            `json:"action"`
	Asked  map[string]Source `json:"asked"` // agent -> its answer
	State  map[string]Source `json:"state"` // variable -> its value after the step
}

// Source is where a value of a step comes from: a constant, or a field
// or attribute of the span (or event), taken as JSON text, looked up in
// a table, or as it is.
type Source struct {
	From  string                     `json:"from"`
	Const json.RawMessage            `json:"const"`
	JSON  bool                       `json:"json"` // the attribute is a string holding JSON
	Map   map[string]json.RawMessage `json:"map"`  // the attribute's text -> value
}

// presetOrder lists the built-in presets, in the order they are tried.
var presetOrder = []string{"genai", "genai-1.36", "mcp", "openinference"}

// presetFields are the fields of each preset: a field is read from the
// first of its keys a span has. span.name.op is the span name's first
// word, span.name.target the rest.
func presetFields(name string) map[string][]string {
	switch name {
	case "genai": // the GenAI semantic conventions, v1.37 on
		return map[string][]string{
			"operation":    {"gen_ai.operation.name", "span.name.op"},
			"agent":        {"gen_ai.agent.name"},
			"tool":         {"gen_ai.tool.name"},
			"call_id":      {"gen_ai.tool.call.id"},
			"arguments":    {"gen_ai.tool.call.arguments", "gen_ai.input.messages"},
			"result":       {"gen_ai.tool.call.result", "gen_ai.output.messages"},
			"provider":     {"gen_ai.provider.name"},
			"conversation": {"gen_ai.conversation.id"},
		}
	case "genai-1.36": // the v1.36-era names (content in events and flat attributes)
		return map[string][]string{
			"operation":    {"gen_ai.operation.name", "span.name.op"},
			"agent":        {"gen_ai.agent.name"},
			"tool":         {"gen_ai.tool.name"},
			"call_id":      {"gen_ai.tool.call.id", "id"},
			"arguments":    {"gen_ai.prompt", "gen_ai.tool.input"},
			"result":       {"gen_ai.completion", "gen_ai.tool.output", "content"},
			"provider":     {"gen_ai.system"},
			"conversation": {"gen_ai.conversation.id", "session.id"},
		}
	case "mcp": // MCP spans: {mcp.method.name} {target}
		return map[string][]string{
			"operation":    {"mcp.method.name", "span.name.op"},
			"tool":         {"gen_ai.tool.name", "span.name.target"},
			"arguments":    {"gen_ai.tool.call.arguments"},
			"result":       {"gen_ai.tool.call.result"},
			"conversation": {"mcp.session.id"},
		}
	case "openinference": // OpenInference span kinds and attributes
		return map[string][]string{
			"kind":         {"openinference.span.kind"},
			"agent":        {"agent.name"},
			"tool":         {"tool.name"},
			"call_id":      {"tool_call.id"},
			"arguments":    {"input.value", "tool.parameters"},
			"result":       {"output.value"},
			"conversation": {"session.id"},
		}
	}
	return nil
}

// ParseMapping reads a mapping file (named name in errors) and checks its
// names against m.
func ParseMapping(m *spec.Model, name string, r io.Reader) (*Mapping, error) {
	data, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var mp Mapping
	if err := dec.Decode(&mp); err != nil {
		off := dec.InputOffset()
		if err == io.ErrUnexpectedEOF {
			off = int64(len(data))
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if i := bytes.Index(data, []byte(f)); i >= 0 {
				off = int64(i)
			}
			return nil, fmt.Errorf("%s:%s: unknown member %s", name, offsetPos(data, off, nil), f)
		}
		return nil, fmt.Errorf("%s:%s: %v", name, offsetPos(data, off, err), jsonMsg(err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s:%s: want one JSON object", name, offsetPos(data, dec.InputOffset(), nil))
	}
	if err := mp.resolve(m); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &mp, nil
}

// offsetPos is the line:col of the error (or of off) in data.
func offsetPos(data []byte, off int64, err error) string {
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

func jsonMsg(err error) string {
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		return fmt.Sprintf("%s: want %s, found a JSON %s", e.Field, jsonKind(e.Type), e.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names the JSON form of a Go type.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice:
		if t == reflect.TypeFor[json.RawMessage]() {
			return "a JSON value"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return t.String()
}

// resolve checks the mapping's names against m and builds its fields.
func (mp *Mapping) resolve(m *spec.Model) error {
	presets := mp.Presets
	if len(presets) == 0 {
		presets = presetOrder
	}
	mp.fields = map[string][]string{}
	for _, p := range presets {
		f := presetFields(p)
		if f == nil {
			return fmt.Errorf("presets: no preset %s (have %s)%s", report.Escape(clip(p, 80)), strings.Join(presetOrder, ", "), spec.DidYouMean(spec.Suggest(p, presetOrder)))
		}
		for _, k := range sortedKeys(f) {
			for _, key := range f[k] {
				if !slices.Contains(mp.fields[k], key) {
					mp.fields[k] = append(mp.fields[k], key)
				}
			}
		}
	}
	// the span-name fallbacks come after every preset's attributes
	for k, keys := range mp.fields {
		slices.SortStableFunc(keys, func(a, b string) int {
			return boolInt(strings.HasPrefix(a, "span.")) - boolInt(strings.HasPrefix(b, "span."))
		})
		mp.fields[k] = keys
	}
	for k, keys := range mp.Fields {
		if len(keys) == 0 {
			return fmt.Errorf("fields.%s: want at least one attribute key", k)
		}
		mp.fields[k] = keys
	}
	if mp.RunKey == "" {
		mp.RunKey = "conversation"
	}
	if len(mp.Rules) == 0 {
		return fmt.Errorf("rules: want at least one rule")
	}
	var actions, agents, vars []string
	for _, a := range m.Actions {
		actions = append(actions, a.Name)
	}
	for _, a := range m.Agents {
		agents = append(agents, a.Name)
	}
	for _, v := range m.Vars {
		if v.Monitor == nil {
			vars = append(vars, v.Name)
		}
	}
	checkSources := func(where string, srcs map[string]Source, names []string, what string) error {
		for _, k := range sortedKeys(srcs) {
			if !slices.Contains(names, k) {
				return fmt.Errorf("%s: no %s %s in %s%s", where, what, report.Escape(clip(k, 80)), m.Name, spec.DidYouMean(spec.Suggest(k, names)))
			}
			s := srcs[k]
			if (s.From == "") == (s.Const == nil) {
				return fmt.Errorf("%s.%s: want exactly one of from and const", where, k)
			}
			if s.Const != nil && (s.JSON || s.Map != nil) {
				return fmt.Errorf("%s.%s: json and map apply to from, not to const", where, k)
			}
			if s.JSON && s.Map != nil {
				return fmt.Errorf("%s.%s: want at most one of json and map", where, k)
			}
		}
		return nil
	}
	if err := checkSources("state", mp.State, vars, "variable"); err != nil {
		return err
	}
	for i, r := range mp.Rules {
		where := fmt.Sprintf("rules[%d]", i)
		if r.Action == "" {
			return fmt.Errorf("%s: want an action", where)
		}
		if !slices.Contains(actions, r.Action) {
			return fmt.Errorf("%s.action: no action %s in %s%s", where, report.Escape(clip(r.Action, 80)), m.Name, spec.DidYouMean(spec.Suggest(r.Action, actions)))
		}
		if err := checkSources(where+".asked", r.Asked, agents, "agent"); err != nil {
			return err
		}
		if err := checkSources(where+".state", r.State, vars, "variable"); err != nil {
			return err
		}
	}
	return nil
}

// SpanRef names the span (or span event) a step of a run comes from.
type SpanRef struct {
	TraceID, SpanID string
	Name            string // the span name
	Event           string // the event name, for a step from an event
	Line            int    // the line of the recording its request starts on
}

func (s SpanRef) String() string {
	if s.Event != "" {
		return fmt.Sprintf("span %s (%s), event %s", s.SpanID, s.Name, s.Event)
	}
	return fmt.Sprintf("span %s (%s)", s.SpanID, s.Name)
}

// TracedRun is one run of a recording: its key, its steps and the span of each.
type TracedRun struct {
	Key   string
	Lines []Line
	Spans []SpanRef // Spans[i] is where Lines[i] comes from
	// Unmapped are the agent and tool spans of the run (operation
	// invoke_agent or execute_tool, an MCP tools/call, OpenInference kind
	// AGENT, TOOL or GUARDRAIL) that no rule maps: steps the replay does
	// not see.
	Unmapped []SpanRef
}

// agentLike reports whether a span is an agent or tool step by the
// conventions, whatever the mapping says.
func (mp *Mapping) agentLike(sp *span) bool {
	if v, ok := mp.lookup("operation", sp, nil); ok {
		switch valueText(v) {
		case "invoke_agent", "execute_tool", "tools/call":
			return true
		}
	}
	if v, ok := mp.lookup("kind", sp, nil); ok {
		switch valueText(v) {
		case "AGENT", "TOOL", "GUARDRAIL":
			return true
		}
	}
	return false
}

// ReadOTLP reads an OTLP JSON recording (named name in errors) and turns
// it into runs through the mapping: spans ordered by start time, then
// parent before child; runs split by the mapping's run key, in the order
// of their first step.
func ReadOTLP(m *spec.Model, name string, r io.Reader, mp *Mapping) ([]TracedRun, error) {
	spans, err := readSpans(name, r)
	if err != nil {
		return nil, err
	}
	steps, unmapped, keys := mp.collect(spans)
	var runs []TracedRun
	index := map[string]int{}
	for _, st := range steps {
		key := keys[st.sp]
		ri, ok := index[key]
		if !ok {
			ri = len(runs)
			index[key] = ri
			runs = append(runs, TracedRun{Key: key})
		}
		l, ref, err := mp.line(m, name, st)
		if err != nil {
			return nil, err
		}
		run := &runs[ri]
		l.line = len(run.Lines) + 1
		run.Lines = append(run.Lines, l)
		run.Spans = append(run.Spans, ref)
	}
	for _, sp := range unmapped {
		if ri, ok := index[keys[sp]]; ok {
			runs[ri].Unmapped = append(runs[ri].Unmapped, spanRef(sp))
		}
	}
	return runs, nil
}

// otlpStep is a span, or an event of a span, that a rule maps: a step.
type otlpStep struct {
	sp   *span
	ev   int // index into sp.events, -1: the span itself
	rule *Rule
	time uint64
}

// collect returns the steps of spans, ordered by start time, then parent
// before child, then the order of the recording; the agent and tool spans
// no rule maps, ordered by start time; and the run key of every span.
func (mp *Mapping) collect(spans []*span) ([]otlpStep, []*span, map[*span]string) {
	setDepths(spans)
	keys := runKeys(spans, mp)
	var steps []otlpStep
	var unmapped []*span
	for _, sp := range spans {
		mapped := false
		for i := range mp.Rules {
			r := &mp.Rules[i]
			if r.Event == "" && mp.matches(r, sp, nil) {
				steps = append(steps, otlpStep{sp, -1, r, sp.start})
				mapped = true
				break
			}
		}
		if !mapped && mp.agentLike(sp) {
			unmapped = append(unmapped, sp)
		}
		for e := range sp.events {
			for i := range mp.Rules {
				r := &mp.Rules[i]
				if r.Event != "" && mp.matches(r, sp, &sp.events[e]) {
					steps = append(steps, otlpStep{sp, e, r, sp.events[e].time})
					break
				}
			}
		}
	}
	slices.SortStableFunc(steps, func(a, b otlpStep) int {
		switch {
		case a.time != b.time:
			return cmpU(a.time, b.time)
		case a.sp != b.sp && a.sp.depth != b.sp.depth:
			return a.sp.depth - b.sp.depth
		case a.sp != b.sp:
			return a.sp.order - b.sp.order
		}
		return a.ev - b.ev
	})
	slices.SortStableFunc(unmapped, func(a, b *span) int {
		if a.start != b.start {
			return cmpU(a.start, b.start)
		}
		return a.order - b.order
	})
	return steps, unmapped, keys
}

func spanRef(sp *span) SpanRef {
	return SpanRef{TraceID: sp.traceID, SpanID: sp.id, Name: sp.name, Line: sp.line}
}

// line turns a step into the run line the mapping makes of it (its line
// number is left to the caller), and names its span.
func (mp *Mapping) line(m *spec.Model, name string, st otlpStep) (Line, SpanRef, error) {
	var ev *event
	ref := spanRef(st.sp)
	if st.ev >= 0 {
		ev = &st.sp.events[st.ev]
		ref.Event = ev.name
	}
	bad := func(err error) error { return fmt.Errorf("%s:%d: %s: %v", name, st.sp.line, ref, err) }
	text, err := mp.stepJSON(st.rule, st.sp, ev)
	if err != nil {
		return Line{}, ref, bad(err)
	}
	lines, err := Read(m, "", bytes.NewReader(text))
	if err != nil {
		return Line{}, ref, bad(fmt.Errorf("%s", strings.TrimPrefix(err.Error(), ":1: ")))
	}
	if len(lines) != 1 {
		return Line{}, ref, bad(fmt.Errorf("wrapcheck internal error: a step makes %d run lines", len(lines)))
	}
	return lines[0], ref, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpU(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

// setDepths sets each span's depth below the root of its trace (a parent
// missing from the recording counts as a root; a cycle is cut).
func setDepths(spans []*span) {
	byID := map[[2]string]*span{}
	for _, sp := range spans {
		byID[[2]string{sp.traceID, sp.id}] = sp
	}
	for _, sp := range spans {
		d := 0
		for p := byID[[2]string{sp.traceID, sp.parent}]; p != nil && p != sp && d < len(spans); p = byID[[2]string{p.traceID, p.parent}] {
			d++
		}
		sp.depth = d
	}
}

// runKeys gives each span its run: the run key on the span, else on its
// nearest ancestor that has one, else on any span of its trace, else "".
func runKeys(spans []*span, mp *Mapping) map[*span]string {
	byID := map[[2]string]*span{}
	trace := map[string]string{}
	own := map[*span]string{}
	for _, sp := range spans {
		byID[[2]string{sp.traceID, sp.id}] = sp
		if v, ok := mp.lookup(mp.RunKey, sp, nil); ok {
			k := valueText(v)
			own[sp] = k
			if _, ok := trace[sp.traceID]; !ok {
				trace[sp.traceID] = k
			}
		}
	}
	out := map[*span]string{}
	for _, sp := range spans {
		k, ok := own[sp]
		for p, d := byID[[2]string{sp.traceID, sp.parent}], 0; !ok && p != nil && d < len(spans); p, d = byID[[2]string{p.traceID, p.parent}], d+1 {
			k, ok = own[p]
		}
		if !ok {
			k = trace[sp.traceID]
		}
		out[sp] = k
	}
	return out
}

// matches reports whether rule r matches span sp (or its event ev).
func (mp *Mapping) matches(r *Rule, sp *span, ev *event) bool {
	if r.Span != "" && !glob(r.Span, sp.name) {
		return false
	}
	if ev != nil && !glob(r.Event, ev.name) {
		return false
	}
	for _, k := range sortedKeys(r.Where) {
		v, ok := mp.lookup(k, sp, ev)
		if !ok || !glob(r.Where[k], valueText(v)) {
			return false
		}
	}
	return true
}

// lookup reads a field (through its keys) or an attribute: from the
// event, then the span, then its resource; a field also from the span's
// events (where the v1.36-era conventions put content).
func (mp *Mapping) lookup(name string, sp *span, ev *event) (any, bool) {
	keys, field := mp.fields[name]
	if !field {
		keys = []string{name}
	}
	for _, k := range keys {
		switch k {
		case "span.name":
			return sp.name, true
		case "span.name.op", "span.name.target":
			op, target, _ := strings.Cut(sp.name, " ")
			if k == "span.name.op" {
				return op, true
			}
			if target != "" {
				return target, true
			}
			continue
		}
		if ev != nil {
			if v, ok := ev.attrs[k]; ok {
				return v, true
			}
		}
		if v, ok := sp.attrs[k]; ok {
			return v, true
		}
		if v, ok := sp.resource[k]; ok {
			return v, true
		}
		if field && ev == nil {
			for _, e := range sp.events {
				if v, ok := e.attrs[k]; ok {
					return v, true
				}
			}
		}
	}
	return nil, false
}

// valueText is the text a where glob or a map is matched against: a
// string as it is, anything else as JSON.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}

// stepJSON is the run line (as in a JSONL run) of a step.
func (mp *Mapping) stepJSON(r *Rule, sp *span, ev *event) ([]byte, error) {
	line := struct {
		Action string                     `json:"action"`
		Asked  map[string]json.RawMessage `json:"asked,omitempty"`
		State  map[string]json.RawMessage `json:"state,omitempty"`
	}{Action: r.Action, Asked: map[string]json.RawMessage{}, State: map[string]json.RawMessage{}}
	fill := func(dst map[string]json.RawMessage, srcs map[string]Source, what string) error {
		for _, k := range sortedKeys(srcs) {
			raw, ok, err := mp.value(srcs[k], sp, ev)
			if err != nil {
				return fmt.Errorf("%s.%s: %v", what, k, err)
			}
			if ok {
				dst[k] = raw
			}
		}
		return nil
	}
	if err := fill(line.State, mp.State, "state"); err != nil {
		return nil, err
	}
	if err := fill(line.State, r.State, "state"); err != nil {
		return nil, err
	}
	if err := fill(line.Asked, r.Asked, "asked"); err != nil {
		return nil, err
	}
	return json.Marshal(line)
}

// value reads a source on a span; ok is false when its attribute is absent.
func (mp *Mapping) value(s Source, sp *span, ev *event) (json.RawMessage, bool, error) {
	if s.Const != nil {
		return s.Const, true, nil
	}
	v, ok := mp.lookup(s.From, sp, ev)
	if !ok {
		return nil, false, nil
	}
	switch {
	case s.JSON:
		str, isStr := v.(string)
		if !isStr {
			return nil, false, fmt.Errorf("%s: want a string holding JSON, found %s", s.From, jsonText(v))
		}
		if !json.Valid([]byte(str)) {
			return nil, false, fmt.Errorf("%s: not JSON: %s", s.From, quoteShort(str))
		}
		return json.RawMessage(str), true, nil
	case s.Map != nil:
		t := valueText(v)
		raw, ok := s.Map[t]
		if !ok {
			return nil, false, fmt.Errorf("%s: %s is not in the map (have %s)", s.From, quoteShort(t), strings.Join(sortedKeys(s.Map), ", "))
		}
		return raw, true, nil
	}
	b, err := json.Marshal(v)
	return b, err == nil, err
}

func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// glob matches s against pattern, where * matches any run of characters.
func glob(pattern, s string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == s
	}
	prefix, rest := pattern[:star], pattern[star+1:]
	if !strings.HasPrefix(s, prefix) {
		return false
	}
	s = s[len(prefix):]
	for i := 0; i <= len(s); i++ {
		if glob(rest, s[i:]) {
			return true
		}
	}
	return false
}
