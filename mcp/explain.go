package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// ExplainInput is the input of the explain tool: a check's input, and
// whether to pick the counterexample with the fewest context switches.
type ExplainInput struct {
	CheckInput
	FewestSwitches bool `json:"fewest_switches,omitempty" jsonschema:"among the shortest counterexamples, explain one with the fewest context switches between processes"`
}

// ExplainOutput is the structured result of the explain tool: the
// explanation once, as JSON. The tool's text content is only a summary of
// it ([explainSummary]).
type ExplainOutput struct {
	Verdict     string         `json:"verdict" jsonschema:"holds, violated or incomplete; only a violation is explained"`
	Explanation map[string]any `json:"explanation,omitempty" jsonschema:"the JSON of wrapcheck explain --format json: the trace with essential steps, or the cycle"`
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
		text := report.Escape(m.Name) + ": " + out.Verdict + ": nothing to explain"
		if res.Verdict == verdict.Unknown {
			text += " (the search stopped early: " + res.Reason() + ")"
		}
		return summarized(text), out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout(in.CheckInput))
	defer cancel()
	vopts := verify.Options{Program: prog, Workers: in.Workers, MaxStates: in.MaxStates, NoDeadlock: in.NoDeadlock, Only: in.Only,
		NoSymmetry: in.NoSymmetry, NoPOR: in.NoPOR}
	x, err := explain.Explain(ctx, m, res.Violation, explain.Options{Verify: vopts, FewestSwitches: in.FewestSwitches})
	if err != nil {
		return nil, out, err
	}
	var js bytes.Buffer
	if err := x.JSON(&js); err != nil {
		return nil, out, err
	}
	if err := json.Unmarshal(js.Bytes(), &out.Explanation); err != nil {
		return nil, out, err
	}
	return summarized(explainSummary(x)), out, nil
}

// explainSummary is the text content of an explanation: the violation's
// headline, what the explanation holds (the trace and its essential
// steps, or the cycle), and where the rest is.
func explainSummary(x *explain.Report) string {
	v := x.Violation
	var b strings.Builder
	b.WriteString(report.Headline(x.Model, v) + "\n")
	if x.Slice != nil {
		fmt.Fprintf(&b, "trace of %s, %d essential\n", verdict.Plural(len(v.Trace)-1, "step"), x.Slice.Essential())
	} else {
		fmt.Fprintf(&b, "lasso of %s, the cycle from step %d\n", verdict.Plural(len(v.Trace)-1, "step"), v.LoopStart)
	}
	b.WriteString("the explanation (each step, why it is essential; the cycle, its fixes) is the structured result: explanation is the JSON of wrapcheck explain --format json\n")
	return b.String()
}
