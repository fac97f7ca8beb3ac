package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	mathbig "math/big" // the tests name a spec big
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// ProbInput is the input of the prob tool.
type ProbInput struct {
	Source
	Defines        map[string]int64 `json:"defines,omitempty" jsonschema:"constant overrides, like -D NAME=VALUE"`
	Only           []string         `json:"only,omitempty" jsonschema:"compute only these probability and expected-cost queries"`
	MaxStates      int              `json:"max_states,omitempty" jsonschema:"stop after building this many states (0: no limit); the verdict is then incomplete"`
	TimeoutSeconds float64          `json:"timeout_seconds,omitempty" jsonschema:"stop after this many seconds (default 60, at most 600): an error then"`
	Interval       bool             `json:"interval,omitempty" jsonschema:"sound lower and upper bounds by interval iteration instead of exact fractions"`
	Confidence     float64          `json:"confidence,omitempty" jsonschema:"level of the confidence intervals of counts k of n, between 0 and 1 (default 0.95)"`
	Witness        bool             `json:"witness,omitempty" jsonschema:"for each value, the strategy that attains it (from interval iteration: the one its bounds pick, with strategy_bounds) and the most probable path to the event under it, as prob --witness (result's queries then carry witness)"`
	Sensitivity    bool             `json:"sensitivity,omitempty" jsonschema:"rank the measured rates by how much each one's interval widens the answer, as prob --sensitivity (result's queries then carry sensitivity)"`
}

// ProbOutput is the structured result of the prob tool: the report once,
// as JSON. The tool's text content is a summary of it ([probSummary]).
type ProbOutput struct {
	Verdict string         `json:"verdict" jsonschema:"holds (every bound kept), violated (a bound can be broken), unknown (a bound not decided by an interval or by the counts) or incomplete (a limit stopped the construction, or the interval iteration: then result holds the sound bounds reached)"`
	Result  map[string]any `json:"result,omitempty" jsonschema:"the JSON of wrapcheck prob --format json: each query's min and max as exact fractions, its bound, the range over the counts' confidence intervals; absent when the construction stopped, the bounds reached when interval iteration stopped"`
	Reason  string         `json:"reason,omitempty" jsonschema:"why the computation stopped early (incomplete only)"`
}

func (t *tools) prob(ctx context.Context, req *sdk.CallToolRequest, in ProbInput) (*sdk.CallToolResult, ProbOutput, error) {
	var out ProbOutput
	if in.MaxStates < 0 || in.TimeoutSeconds < 0 {
		return nil, out, errors.New("max_states and timeout_seconds must not be negative")
	}
	if in.Confidence < 0 || in.Confidence >= 1 {
		return nil, out, fmt.Errorf("confidence %v: want a level between 0 and 1, such as 0.95", in.Confidence)
	}
	_, m, err := in.model(ctx, req, in.Defines)
	if err != nil {
		return nil, out, err
	}
	if len(m.Queries) == 0 && len(m.Expectations) == 0 {
		return nil, out, fmt.Errorf("%s: no probability queries (declare one with `probability Name: eventually c`)", m.Filename)
	}
	opts := quant.Options{MaxStates: in.MaxStates, MemoryBudget: t.opts.MemoryBudget, Only: in.Only, Interval: in.Interval,
		Witness: in.Witness, Sensitivity: in.Sensitivity}
	if in.Confidence > 0 {
		// 0.95 is 19/20, as --confidence 0.95 reads it
		opts.Confidence, _ = new(mathbig.Rat).SetString(strconv.FormatFloat(in.Confidence, 'g', -1, 64))
	}
	res, err := quant.Check(ctx, m, opts)
	switch {
	case errors.Is(err, quant.ErrMemory), errors.Is(err, quant.ErrTooLarge) && in.MaxStates > 0:
		out.Verdict, out.Reason = "incomplete", err.Error()
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%s: incomplete: %s\n", report.Escape(m.Name), report.Escape(err.Error()))}}}, out, nil
	case err != nil && res != nil && res.Stopped != nil:
		// the limit stopped interval iteration: the sound bounds reached
		// are the result, as prob prints them (the queries after the
		// one stopped are absent)
	case err != nil:
		return nil, out, err
	}
	var js bytes.Buffer
	if err := report.QuantJSON(&js, m, res); err != nil {
		return nil, out, err
	}
	if err := json.Unmarshal(js.Bytes(), &out.Result); err != nil {
		return nil, out, err
	}
	out.Verdict = report.QuantVerdict(res)
	if why := report.QuantStopReason(res); why != "" && out.Verdict != "violated" {
		out.Verdict, out.Reason = "incomplete", why
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: probSummary(m, res)}}}, out, nil
}

// probSummary is the text content of prob: the verdict, one line per
// bound broken or not decided (the text report's line), the figures of
// the model, and where the values are.
func probSummary(m *spec.Model, res *quant.Result) string {
	var b strings.Builder
	name := report.Escape(m.Name)
	findings := report.QuantFindings(res)
	switch why := report.QuantStopReason(res); {
	case report.QuantVerdict(res) == "violated":
		fmt.Fprintf(&b, "%s: a bound can be broken\n", name)
	case why != "":
		switch report.QuantStoppedIn(res) {
		case "box":
			fmt.Fprintf(&b, "%s: incomplete: stopped (%s) during the range over the confidence intervals of the counts: the values and the bounds of the range reached are sound, the queries after the one stopped are not computed\n", name, report.Escape(why))
		case "sensitivity":
			fmt.Fprintf(&b, "%s: incomplete: stopped (%s) during the sensitivity pass: the values and the range over the counts are complete, the sensitivity of the query stopped is not given, the queries after it are not computed\n", name, report.Escape(why))
		default:
			fmt.Fprintf(&b, "%s: incomplete: stopped (%s) during interval iteration: the bounds reached are sound, the queries after the one stopped are not computed\n", name, report.Escape(why))
		}
	case report.QuantVerdict(res) == "unknown":
		fmt.Fprintf(&b, "%s: a bound is not decided\n", name)
	default:
		fmt.Fprintf(&b, "%s: every bound holds (%d queries, %d expected costs)\n", name, len(res.Queries), len(res.Expectations))
	}
	for _, f := range findings {
		fmt.Fprintf(&b, "%s: %s\n", f.Pos, report.Escape(f.Msg))
	}
	s := res.Stats
	fmt.Fprintf(&b, "%d states, %d choices, %d transitions\n", s.States, s.Choices, s.Transitions)
	b.WriteString("the values (exact fractions, bounds, the counts' ranges) are the structured result: result is the JSON of wrapcheck prob --format json\n")
	return b.String()
}
