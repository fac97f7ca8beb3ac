package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// ReplayInput is the input of the replay tool.
type ReplayInput struct {
	Source
	Run     string           `json:"run" jsonschema:"the recorded run: JSON lines, one object per step, {\"action\": \"proc.act\", \"asked\": {...}, \"state\": {...}}; or an OpenTelemetry recording in OTLP JSON (one ExportTraceServiceRequest a line), with mapping"`
	Mapping any              `json:"mapping,omitempty" jsonschema:"for an OTLP recording: the mapping of its spans to actions, agent answers and variables, as an object (the JSON of a mapping file, see docs/replay.md: rules, state, run_key, presets, fields) or as its JSON text"`
	Presets []string         `json:"presets,omitempty" jsonschema:"for an OTLP recording: the built-in attribute presets the mapping reads (genai, genai-1.36, mcp, openinference), instead of the mapping's own presets"`
	Defines map[string]int64 `json:"defines,omitempty" jsonschema:"constant overrides, like -D NAME=VALUE"`
	// TimeoutSeconds bounds the replay as it bounds a check.
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"stop the replay after this many seconds (default 60, at most the server's maximum): a replay stopped so is an error, never a verdict"`
}

// ReplayOutput is the result of the replay tool.
type ReplayOutput struct {
	Verdict  string         `json:"verdict" jsonschema:"conforms, diverges or violated (for a recording: conforms when every run conforms, else the verdict of the first run that does not)"`
	Steps    int            `json:"steps" jsonschema:"lines replayed before the end, the divergence or the violation"`
	Line     int            `json:"line,omitempty" jsonschema:"the line that diverges or reaches the violation"`
	Action   string         `json:"action,omitempty" jsonschema:"the action of the diverging line"`
	Mismatch []string       `json:"mismatch,omitempty" jsonschema:"what of the recorded state no successor matches"`
	Allowed  []string       `json:"allowed,omitempty" jsonschema:"the actions the spec allows at the diverging line"`
	Result   map[string]any `json:"result,omitempty" jsonschema:"for a violation, the JSON of wrapcheck check --format json"`
	Runs     []ReplayRun    `json:"runs,omitempty" jsonschema:"for an OTLP recording: each run (split by the mapping's run key), in the order of its first step"`
}

// ReplayRun is the outcome of one run of an OTLP recording.
type ReplayRun struct {
	RunKey   string         `json:"run_key" jsonschema:"the run's key (gen_ai.conversation.id by default)"`
	Verdict  string         `json:"verdict" jsonschema:"conforms, diverges or violated"`
	Steps    int            `json:"steps" jsonschema:"steps replayed before the end, the divergence or the violation"`
	Step     int            `json:"step,omitempty" jsonschema:"the step of the run that diverges or reaches the violation"`
	Line     int            `json:"line,omitempty" jsonschema:"the line of the recording that step's span is on"`
	TraceID  string         `json:"trace_id,omitempty"`
	SpanID   string         `json:"span_id,omitempty" jsonschema:"the span of that step"`
	Span     string         `json:"span,omitempty" jsonschema:"the span's name"`
	Event    string         `json:"event,omitempty" jsonschema:"the span event of that step, for a rule on events"`
	Action   string         `json:"action,omitempty"`
	Mismatch []string       `json:"mismatch,omitempty"`
	Allowed  []string       `json:"allowed,omitempty"`
	Unmapped int            `json:"unmapped,omitempty" jsonschema:"agent and tool spans of the run no rule maps: steps the replay does not see"`
	Result   map[string]any `json:"result,omitempty" jsonschema:"for a violation, the JSON of wrapcheck check --format json"`
}

func (t *tools) replay(ctx context.Context, req *sdk.CallToolRequest, in ReplayInput) (*sdk.CallToolResult, ReplayOutput, error) {
	var out ReplayOutput
	if in.TimeoutSeconds < 0 {
		return nil, out, errors.New("timeout_seconds must not be negative")
	}
	ctx, cancel := context.WithTimeout(ctx, t.limit(in.TimeoutSeconds))
	defer cancel()
	if len(in.Run) > maxSpecBytes {
		return nil, out, fmt.Errorf("run is over the limit of %d bytes", maxSpecBytes)
	}
	if strings.TrimSpace(in.Run) == "" {
		return nil, out, errors.New("give run, the recorded run as JSON lines or OTLP JSON")
	}
	_, m, err := in.model(ctx, req, in.Defines)
	if err != nil {
		return nil, out, err
	}
	var text strings.Builder
	if replay.SniffOTLP(bufio.NewReader(strings.NewReader(in.Run))) {
		if err := replayOTLP(ctx, m, in, &out, &text); err != nil {
			return nil, out, err
		}
		return summarized(text.String() + replayPointer), out, nil
	}
	if in.Mapping != nil || in.Presets != nil {
		return nil, out, errors.New("mapping and presets are for an OTLP JSON recording, and run is JSON lines")
	}
	lines, err := replay.Read(m, "run.jsonl", strings.NewReader(in.Run))
	if err != nil {
		return nil, out, err
	}
	r, err := replay.CheckContext(ctx, m, lines)
	if err != nil {
		return nil, out, err
	}
	rp := &replay.Report{Run: "run.jsonl", Result: r}
	if err := rp.Text(&text, m, replay.TextOptions{}); err != nil {
		return nil, out, err
	}
	out.Verdict, out.Steps = rp.Verdict(), r.Steps
	switch {
	case r.Violation != nil:
		out.Line = r.Line
		if out.Result, err = checkJSON(m, r); err != nil {
			return nil, out, err
		}
	case r.Diverged != nil:
		d := r.Diverged
		out.Line, out.Action, out.Mismatch, out.Allowed = d.Line, d.Action, d.Mismatch, d.Allowed
	}
	return summarized(head(text.String(), 3) + replayPointer), out, nil
}

// replayPointer ends the text content of a replay, a summary: the outcome
// itself is the structured result.
const replayPointer = "the outcome (the line, the mismatch, the actions allowed; a violation's report in result, as wrapcheck check --format json) is the structured result\n"

// maxRunLines bounds the runs of a recording the text content of a replay
// names, one line each.
const maxRunLines = 5

// head returns the first n lines of text that come before its first
// blank line, each ended by a newline.
func head(text string, n int) string {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i == n || line == "" {
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// checkJSON is the violation of r as the JSON of `check --format json`.
func checkJSON(m *spec.Model, r *replay.Result) (map[string]any, error) {
	var js bytes.Buffer
	if err := report.JSON(&js, m, r.CheckResult()); err != nil {
		return nil, err
	}
	var x map[string]any
	err := json.Unmarshal(js.Bytes(), &x)
	return x, err
}

// replayOTLP replays every run of the OTLP recording in.Run through the
// mapping of in.
func replayOTLP(ctx context.Context, m *spec.Model, in ReplayInput, out *ReplayOutput, text *strings.Builder) error {
	var mtext []byte
	switch mv := in.Mapping.(type) {
	case nil:
		return errors.New("run is an OTLP JSON recording: give mapping, the mapping of its spans to actions (see docs/replay.md)")
	case string:
		mtext = []byte(mv)
	default:
		b, err := json.Marshal(mv)
		if err != nil {
			return fmt.Errorf("mapping: %v", err)
		}
		mtext = b
	}
	if in.Presets != nil {
		var obj map[string]any
		if err := json.Unmarshal(mtext, &obj); err != nil {
			return fmt.Errorf("mapping: not a JSON object: %v", err)
		}
		obj["presets"] = in.Presets
		b, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("mapping: %v", err)
		}
		mtext = b
	}
	mp, err := replay.ParseMapping(m, "mapping", bytes.NewReader(mtext))
	if err != nil {
		return err
	}
	runs, err := replay.ReadOTLP(m, "recording", strings.NewReader(in.Run), mp)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return errors.New("recording: no span matches a rule of the mapping: nothing to replay")
	}
	out.Verdict = "conforms"
	for _, rn := range runs {
		r, err := replay.CheckContext(ctx, m, rn.Lines)
		if err != nil {
			return err
		}
		rp := replay.NewTracedReport("recording", rn, r)
		if len(out.Runs) < maxRunLines {
			var rt strings.Builder
			if err := rp.Text(&rt, m, replay.TextOptions{}); err != nil {
				return err
			}
			text.WriteString(head(rt.String(), 1))
		} else if len(out.Runs) == maxRunLines {
			fmt.Fprintf(text, "and %d more runs (runs lists them all)\n", len(runs)-maxRunLines)
		}
		run := ReplayRun{RunKey: rn.Key, Verdict: rp.Verdict(), Steps: r.Steps, Unmapped: rp.Unmapped}
		if rp.Failed() {
			run.Step, run.Line, run.TraceID, run.SpanID, run.Span, run.Event = r.Line, rp.Span.Line, rp.Span.TraceID, rp.Span.SpanID, rp.Span.Name, rp.Span.Event
		}
		switch {
		case r.Violation != nil:
			if run.Result, err = checkJSON(m, r); err != nil {
				return err
			}
		case r.Diverged != nil:
			d := r.Diverged
			run.Step, run.Action, run.Mismatch, run.Allowed = d.Line, d.Action, d.Mismatch, d.Allowed
		}
		if out.Verdict == "conforms" && rp.Failed() {
			out.Verdict = run.Verdict
		}
		out.Runs = append(out.Runs, run)
	}
	return nil
}
