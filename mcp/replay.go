package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// ReplayInput is the input of the replay tool.
type ReplayInput struct {
	Source
	Run     string           `json:"run" jsonschema:"the recorded run: one JSON object per line, {\"action\": \"proc.act\", \"asked\": {...}, \"state\": {...}}"`
	Defines map[string]int64 `json:"defines,omitempty" jsonschema:"constant overrides, like -D NAME=VALUE"`
}

// ReplayOutput is the result of the replay tool.
type ReplayOutput struct {
	Verdict  string         `json:"verdict" jsonschema:"conforms, diverges or violated"`
	Steps    int            `json:"steps" jsonschema:"lines replayed before the end, the divergence or the violation"`
	Line     int            `json:"line,omitempty" jsonschema:"the line that diverges or reaches the violation"`
	Action   string         `json:"action,omitempty" jsonschema:"the action of the diverging line"`
	Mismatch []string       `json:"mismatch,omitempty" jsonschema:"what of the recorded state no successor matches"`
	Allowed  []string       `json:"allowed,omitempty" jsonschema:"the actions the spec allows at the diverging line"`
	Result   map[string]any `json:"result,omitempty" jsonschema:"for a violation, the JSON of wrapcheck check --format json"`
}

func (t *tools) replay(ctx context.Context, req *sdk.CallToolRequest, in ReplayInput) (*sdk.CallToolResult, ReplayOutput, error) {
	var out ReplayOutput
	if len(in.Run) > maxSpecBytes {
		return nil, out, fmt.Errorf("run is over the limit of %d bytes", maxSpecBytes)
	}
	if strings.TrimSpace(in.Run) == "" {
		return nil, out, errors.New("give run, the recorded run as JSON lines")
	}
	name, src, err := in.load()
	if err != nil {
		return nil, out, err
	}
	f, err := syntax.Parse(name, src)
	if err != nil {
		return nil, out, err
	}
	m, err := spec.Check(f, spec.Options{Defines: in.Defines})
	if err != nil {
		return nil, out, err
	}
	lines, err := replay.Read(m, "run.jsonl", strings.NewReader(in.Run))
	if err != nil {
		return nil, out, err
	}
	r, err := replay.Check(m, lines)
	if err != nil {
		return nil, out, err
	}
	out.Steps = r.Steps
	var text string
	switch {
	case r.Violation != nil:
		out.Verdict, out.Line = "violated", r.Line
		res := &checker.Result{Verdict: checker.Violated, Violation: r.Violation,
			Stats: checker.Stats{States: r.States, Transitions: r.Transitions, Depth: r.Steps, Workers: 1}}
		var js, tx bytes.Buffer
		if err := report.JSON(&js, m, res); err != nil {
			return nil, out, err
		}
		if err := json.Unmarshal(js.Bytes(), &out.Result); err != nil {
			return nil, out, err
		}
		report.Text(&tx, m, res)
		text = fmt.Sprintf("run.jsonl:%d: the run reaches a violation of the spec\n%s", r.Line, tx.String())
	case r.Diverged != nil:
		d := r.Diverged
		out.Verdict, out.Line, out.Action, out.Mismatch, out.Allowed = "diverges", d.Line, d.Action, d.Mismatch, d.Allowed
		if d.Enabled {
			text = fmt.Sprintf("run.jsonl:%d: %s leads to no state that matches the recorded state and answers\n\t%s\n", d.Line, d.Action, strings.Join(d.Mismatch, "\n\t"))
		} else {
			text = fmt.Sprintf("run.jsonl:%d: the spec does not allow %s here\n", d.Line, d.Action)
		}
		text += "allowed here: " + strings.Join(d.Allowed, ", ") + "\n"
	default:
		out.Verdict = "conforms"
		text = fmt.Sprintf("%s: the run conforms: %d steps replayed\n", m.Name, r.Steps)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}
