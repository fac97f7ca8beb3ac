package report

import (
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// QuantSARIF writes the checks of a [quant.Result] as a SARIF 2.1.0 log
// with one run, as [SARIF] writes check's: one rule per query and
// expected-cost query with a bound, and one result per bound that the
// probability (or the expected cost) can break, level error, located at
// the query's declaration, its message the value that breaks it as the
// text report prints it (`Ruin: P_max(eventually money == 0) = 4/5
// (0.800000): bound <= 1/2 violated`). A bound that an interval or the
// confidence intervals of counts leave undecided is a result of level
// warning, and the invocation carries a notification, so that code
// scanning does not read the run as clean. Queries without a bound are
// values, not checks: they give no result. version is the tool's version
// (tool.driver.version, "" for none).
func QuantSARIF(w io.Writer, m *spec.Model, res *quant.Result, version string) error {
	run := quantSARIFRun(m, version)
	s := res.Stats
	run.Properties = map[string]any{"spec": m.Name, "verdict": QuantVerdict(res), "states": s.States, "choices": s.Choices, "transitions": s.Transitions}
	undecided := 0
	for _, f := range QuantFindings(res) {
		if f.Level == "warning" {
			undecided++
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Name, Level: f.Level, Message: sarifMessage{Text: Escape(f.Msg)},
			Locations:  []sarifLocation{sarifLocationAt(f.Pos, "")},
			Properties: map[string]any{"value": f.Value}})
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	if undecided > 0 {
		inv.ToolExecutionNotifications = []sarifNotification{{Level: "warning",
			Message: sarifMessage{Text: verdict.Plural(undecided, "bound") + " not decided: the interval of the value straddles the bound"}}}
	}
	if reason := QuantStopReason(res); reason != "" {
		run.Properties["complete"], run.Properties["reason"] = false, reason
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "warning",
			Message: sarifMessage{Text: "the computation stopped early (" + Escape(reason) + "): the values are the bounds reached, and the queries after the last are missing"}})
	}
	run.Invocations = []sarifInvocation{inv}
	return writeSARIF(w, run)
}

// QuantFinding is a bound of a [quant.Result] that the value breaks
// (Level "error") or that an interval leaves undecided (Level
// "warning"): the query's name and position, the message (the text
// report's line for it) and the value (a fraction, "infinity" or an
// interval "[lo, hi]").
type QuantFinding struct {
	Name              string
	Pos               spec.Position
	Level, Msg, Value string
}

// QuantFindings returns the findings of res, the queries first, then the
// expected costs, each in the order of the spec: what [QuantSARIF]
// reports as results.
func QuantFindings(res *quant.Result) []QuantFinding {
	var out []QuantFinding
	for i := range res.Queries {
		if f, ok := queryFinding(&res.Queries[i]); ok {
			out = append(out, f)
		}
	}
	for i := range res.Expectations {
		if f, ok := expectFinding(&res.Expectations[i]); ok {
			out = append(out, f)
		}
	}
	return out
}

// queryFinding returns the finding of a query's bound, false for none.
func queryFinding(r *quant.QueryResult) (QuantFinding, bool) {
	q := r.Query
	if q.Bound == nil || !r.Violated && !r.Unknown {
		return QuantFinding{}, false
	}
	name, val, iv := "P_max", r.Max, r.MaxBounds
	if boundIsOn(q, true) {
		name, val, iv = "P_min", r.Min, r.MinBounds
	}
	f := QuantFinding{Name: q.Name, Pos: q.Pos, Level: "error", Value: ratOrBounds(val, iv),
		Msg: fmt.Sprintf("%s: %s(%s) %s: bound %s %s ", q.Name, name, queryFormula(q), probText(val, iv, r.Stopped && r.StoppedIn == ""), q.Bound.Op, q.Bound.Text)}
	switch {
	case r.Violated:
		f.Msg += "violated"
	case r.BoxBroken:
		lo, hi := boxEnds(r.Box)
		f.Msg = boxLine(q.Name, "P", queryFormula(q), r.Box, lo, hi) + fmt.Sprintf(": bound %s %s not decided by the counts", q.Bound.Op, q.Bound.Text)
		f.Level, f.Value = "warning", boxValue(lo, hi)
	default:
		f.Msg += "not decided"
		f.Level = "warning"
	}
	return f, true
}

// expectFinding returns the finding of an expected-cost query's bound,
// false for none.
func expectFinding(r *quant.ExpectResult) (QuantFinding, bool) {
	e := r.Expectation
	if e.Bound == nil || !r.Violated && !r.Unknown {
		return QuantFinding{}, false
	}
	if r.BoxBroken {
		lo, hi := expectBoxEnds(r)
		return QuantFinding{Name: e.Name, Pos: e.Pos, Level: "warning", Value: boxValue(lo, hi),
			Msg: boxLine(e.Name, "E", e.Formula, r.Box, lo, hi) + fmt.Sprintf(": bound %s %s not decided by the counts", e.Bound.Op, e.Bound.Text)}, true
	}
	name, val, iv, inf := "E_max", r.Max, r.MaxBounds, r.MaxInf
	if e.Opt == spec.QueryMin || e.Opt == spec.QueryBoth && !e.Bound.Upper() {
		name, val, iv, inf = "E_min", r.Min, r.MinBounds, r.MinInf
	}
	value := "infinity"
	switch {
	case inf:
	case val != nil:
		value = val.RatString()
	case iv != nil:
		value = "[" + strconv.FormatFloat(iv.Lo, 'g', -1, 64) + ", " + floatOrInfinity(iv.Hi) + "]"
	default:
		value = ""
	}
	f := QuantFinding{Name: e.Name, Pos: e.Pos, Level: "error", Value: value,
		Msg: fmt.Sprintf("%s: %s(%s) %s: bound %s %s ", e.Name, name, e.Formula, costValueText(val, iv, inf, r.Stopped && r.StoppedIn == ""), e.Bound.Op, e.Bound.Text)}
	if r.Violated {
		f.Msg += "violated"
	} else {
		f.Msg += "not decided"
		f.Level = "warning"
	}
	return f, true
}

// QuantSARIFStopped writes the SARIF log of a computation that stopped
// before its values (a timeout, the memory budget, the state limit): the
// rules of m's bounds, no result, and a notification with reason, so
// that code scanning does not read the run as clean, as [SARIF] does for
// a search stopped early.
func QuantSARIFStopped(w io.Writer, m *spec.Model, reason, version string) error {
	run := quantSARIFRun(m, version)
	run.Properties = map[string]any{"spec": m.Name, "verdict": "unknown", "complete": false, "reason": reason}
	run.Invocations = []sarifInvocation{{ExecutionSuccessful: true, ToolExecutionNotifications: []sarifNotification{{Level: "warning",
		Message: sarifMessage{Text: "the computation stopped early (" + Escape(reason) + "): the bounds are not decided"}}}}}
	return writeSARIF(w, run)
}

// quantSARIFRun returns a run of the wrapcheck driver with one rule per
// bound of m's queries and expected costs, the spec as its artifact, and
// no result.
func quantSARIFRun(m *spec.Model, version string) sarifRun {
	var rules []sarifRule
	rule := func(name, kind, what string, b *spec.QueryBound, pos spec.Position) {
		rules = append(rules, sarifRule{ID: name, Name: name,
			ShortDescription:     sarifMessage{Text: fmt.Sprintf("%s %s %s %s", kind, name, b.Op, b.Text) + ": " + what},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"kind": kind, "position": pos.String()}})
	}
	for _, q := range m.Queries {
		if q.Bound != nil {
			rule(q.Name, "probability", "the probability of "+queryFormula(q)+" keeps to the bound under every scheduler", q.Bound, q.Pos)
		}
	}
	for _, e := range m.Expectations {
		if e.Bound != nil {
			rule(e.Name, "expected", "the expected "+e.Formula+" keeps to the bound under every scheduler", e.Bound, e.Pos)
		}
	}
	run := newSARIFRun(version, rules)
	if m.Filename != "" {
		run.Artifacts = []sarifArtifact{{Location: sarifArtifactLocation{URI: m.Filename, URIBaseID: sarifBase}}}
	}
	return run
}

// ratOrBounds is a value as a result's property: the exact fraction, or
// the interval iteration's bounds.
func ratOrBounds(v *big.Rat, iv *quant.Interval) string {
	if v != nil {
		return v.RatString()
	}
	if iv != nil {
		return fmt.Sprintf("[%g, %g]", iv.Lo, iv.Hi)
	}
	return ""
}
