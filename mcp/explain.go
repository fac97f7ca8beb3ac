package mcp

import (
	"bytes"
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// ExplainInput is the input of the explain tool: a check's input, and
// whether to pick the counterexample with the fewest context switches.
type ExplainInput struct {
	CheckInput
	FewestSwitches bool `json:"fewest_switches,omitempty" jsonschema:"among the shortest counterexamples, explain one with the fewest context switches between processes"`
}

// ExplainOutput is the result of the explain tool.
type ExplainOutput struct {
	Verdict     string         `json:"verdict" jsonschema:"holds, violated or incomplete; only a violation is explained"`
	Explanation map[string]any `json:"explanation,omitempty" jsonschema:"the JSON of wrapcheck explain --format json: the trace with essential steps, or the cycle"`
	Text        string         `json:"text" jsonschema:"the explanation as wrapcheck explain prints it"`
}

func (t *tools) explain(ctx context.Context, req *sdk.CallToolRequest, in ExplainInput) (*sdk.CallToolResult, ExplainOutput, error) {
	var out ExplainOutput
	_, prog, res, err := t.search(ctx, req, in.CheckInput)
	if err != nil {
		return nil, out, err
	}
	m := prog.Model
	out.Verdict = res.Verdict.String()
	if res.Verdict != verdict.Violated {
		out.Text = m.Name + ": " + out.Verdict + ": nothing to explain"
		if res.Verdict == verdict.Unknown {
			out.Text += " (the search stopped early: " + res.Reason() + ")"
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.Text}}}, out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout(in.CheckInput))
	defer cancel()
	vopts := verify.Options{Program: prog, Workers: in.Workers, MaxStates: in.MaxStates, NoDeadlock: in.NoDeadlock, Only: in.Only,
		NoSymmetry: in.NoSymmetry, NoPOR: in.NoPOR}
	x, err := explain.Explain(ctx, m, res.Violation, explain.Options{Verify: vopts, FewestSwitches: in.FewestSwitches})
	if err != nil {
		return nil, out, err
	}
	var js, text bytes.Buffer
	if err := x.JSON(&js); err != nil {
		return nil, out, err
	}
	if err := json.Unmarshal(js.Bytes(), &out.Explanation); err != nil {
		return nil, out, err
	}
	if err := x.Text(&text); err != nil {
		return nil, out, err
	}
	out.Text = text.String()
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.Text}, &sdk.TextContent{Text: js.String()}}}, out, nil
}
