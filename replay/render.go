package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Report is the outcome of replaying one run, with what its renderings
// need besides the spec: the name of the run file and, for a run of an
// OTLP recording, its key and the span of the step where it diverged or
// reached a violation. Its JSON form is docs/json-schema-replay.json.
type Report struct {
	Run    string  // the run file (or recording), as reports name it
	Result *Result // the outcome

	// OTLP says the run is one run of an OTLP recording: the members
	// below are set.
	OTLP bool
	Key  string // the run key ("" when the recording has none)
	// Span is where the step of Result.Diverged.Line (or Result.Line, for
	// a violation) comes from; the zero SpanRef for the initial state.
	Span SpanRef
	// Unmapped counts the agent and tool spans of the run no rule maps;
	// FirstUnmapped is the first of them.
	Unmapped      int
	FirstUnmapped SpanRef
}

// NewTracedReport returns the report of out, the outcome of replaying
// run rn of the recording named run.
func NewTracedReport(run string, rn TracedRun, out *Result) *Report {
	rp := &Report{Run: run, Result: out, OTLP: true, Key: rn.Key, Unmapped: len(rn.Unmapped)}
	if len(rn.Unmapped) > 0 {
		rp.FirstUnmapped = rn.Unmapped[0]
	}
	line := out.Line
	if out.Diverged != nil {
		line = out.Diverged.Line
	}
	if line >= 1 && line <= len(rn.Spans) {
		rp.Span = rn.Spans[line-1]
	}
	return rp
}

// Failed reports whether the run diverges or reaches a violation (exit 1).
func (rp *Report) Failed() bool {
	return rp.Result.Diverged != nil || rp.Result.Violation != nil
}

// Verdict is "conforms", "diverges" or "violated".
func (rp *Report) Verdict() string {
	switch {
	case rp.Result.Violation != nil:
		return "violated"
	case rp.Result.Diverged != nil:
		return "diverges"
	}
	return "conforms"
}

// CheckResult is the violation of the run as a search result, for the
// renderers of package report; nil when the run reaches none.
func (r *Result) CheckResult() *verdict.Result {
	if r.Violation == nil {
		return nil
	}
	return &verdict.Result{Verdict: verdict.Violated, Violation: r.Violation,
		Stats: verdict.Stats{States: r.States, Transitions: r.Transitions, Depth: r.Steps, Workers: 1}}
}

// name is the run as the text report names it: FILE, or FILE[KEY].
func (rp *Report) name() string {
	if !rp.OTLP || rp.Key == "" {
		return report.Escape(rp.Run)
	}
	return fmt.Sprintf("%s[%s]", report.Escape(rp.Run), report.Escape(rp.Key))
}

// where is the place of a step in the text report: FILE:LINE for a run
// file, FILE:LINE: run KEY, span ... for a run of a recording.
func (rp *Report) where(line int) string {
	if !rp.OTLP {
		return fmt.Sprintf("%s:%d", report.Escape(rp.Run), line)
	}
	if rp.Key == "" {
		return fmt.Sprintf("%s:%d: %s", report.Escape(rp.Run), rp.Span.Line, report.Escape(rp.Span.String()))
	}
	return fmt.Sprintf("%s:%d: run %s, %s", report.Escape(rp.Run), rp.Span.Line, report.Escape(rp.Key), report.Escape(rp.Span.String()))
}

// TextOptions configures [Report.Text].
type TextOptions struct {
	// Color is passed to the text renderer of a violation (see
	// report.TextOptions).
	Color bool
}

// Text writes the report for people: a violation as `check` renders it
// after the line that reaches it, a divergence with what the closest step
// of the spec differs in and the actions allowed there, or "conforms";
// for a run of a recording, a note on the agent and tool spans no rule
// maps.
func (rp *Report) Text(w io.Writer, m *spec.Model, o TextOptions) error {
	var b strings.Builder
	out := rp.Result
	unit := "line"
	if rp.OTLP {
		unit = "span"
	}
	switch {
	case out.Violation != nil:
		where := rp.name() + ": in the initial state"
		if out.Line > 0 {
			where = rp.where(out.Line)
		}
		fmt.Fprintf(&b, "%s: the run reaches a violation of the spec\n", where)
		if out.TraceFrom > 0 {
			fmt.Fprintf(&b, "(the run is longer than the history kept: the trace starts with the step of %s %d, the steps before it are not kept)\n", unit, out.TraceFrom)
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		b.Reset()
		if err := (report.TextOptions{Color: o.Color, Explain: true}).Render(w, m, out.CheckResult()); err != nil {
			return err
		}
	case out.Diverged != nil:
		d := out.Diverged
		at := rp.where(d.Line)
		if d.Enabled {
			fmt.Fprintf(&b, "%s: %s: %s leads to no state that matches the recorded state and answers\n", at, report.Escape(m.Name), d.Action)
			for _, mm := range d.Mismatch {
				fmt.Fprintf(&b, "\t%s\n", report.Escape(mm))
			}
		} else {
			fmt.Fprintf(&b, "%s: %s: the spec does not allow %s here\n", at, report.Escape(m.Name), d.Action)
		}
		allowed := "none (no action is enabled)"
		if len(d.Allowed) > 0 {
			allowed = strings.Join(d.Allowed, ", ")
		}
		fmt.Fprintf(&b, "\tallowed here: %s\n", allowed)
		conform := "conform"
		if out.Steps == 1 {
			conform = "conforms"
		}
		fmt.Fprintf(&b, "\t%s of the run %s before this %s\n", verdict.Plural(out.Steps, "step"), conform, unit)
	default:
		fmt.Fprintf(&b, "%s: %s conforms: %s replayed", report.Escape(m.Name), rp.name(), verdict.Plural(out.Steps, "step"))
		if out.Finals > 1 {
			fmt.Fprintf(&b, " (%d states of the spec match the run)", out.Finals)
		}
		b.WriteString("\n")
	}
	if n := rp.Unmapped; n > 0 {
		them := "them"
		if n == 1 {
			them = "it"
		}
		fmt.Fprintf(&b, "\tnote: %s of %s no rule maps, so the replay does not see %s (the first: %s)\n",
			verdict.Plural(n, "agent or tool span"), rp.name(), them, report.Escape(rp.FirstUnmapped.String()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// The JSON objects of a replay (docs/json-schema-replay.json); a
// violation is the object of `check --format json` with the members of
// jsonHead (but format, spec and verdict), jsonOTLP and jsonSpan added.
type (
	jsonHead struct {
		Format  int    `json:"format"`
		Spec    string `json:"spec"`
		Verdict string `json:"verdict"`
		Run     string `json:"run"`
	}
	jsonOTLP struct {
		RunKey   string `json:"run_key"`
		Unmapped int    `json:"unmapped"`
	}
	jsonSpan struct {
		Step    int    `json:"step"`
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
		Span    string `json:"span"`
		Event   string `json:"event,omitempty"`
	}
	jsonConforms struct {
		jsonHead
		*jsonOTLP
		Steps  int `json:"steps"`
		States int `json:"states"`
	}
	jsonDiverges struct {
		jsonHead
		*jsonOTLP
		Line int `json:"line"`
		*jsonSpan
		Action   string   `json:"action"`
		Enabled  bool     `json:"enabled"`
		Mismatch []string `json:"mismatch"`
		Allowed  []string `json:"allowed"`
		Steps    int      `json:"steps"`
	}
)

// JSON writes the report as one JSON object (docs/json-schema-replay.json),
// indented, followed by a newline.
func (rp *Report) JSON(w io.Writer, m *spec.Model) error {
	out := rp.Result
	head := jsonHead{Format: report.FormatVersion, Spec: m.Name, Verdict: rp.Verdict(), Run: rp.Run}
	var ot *jsonOTLP
	if rp.OTLP {
		ot = &jsonOTLP{RunKey: rp.Key, Unmapped: rp.Unmapped}
	}
	// sp is the span of the step at line (a step of the run), nil for a
	// run file or the initial state.
	sp := func(line int) *jsonSpan {
		if !rp.OTLP || line < 1 {
			return nil
		}
		return &jsonSpan{Step: line, TraceID: rp.Span.TraceID, SpanID: rp.Span.SpanID, Span: rp.Span.Name, Event: rp.Span.Event}
	}
	var x any
	switch {
	case out.Violation != nil:
		extra := []report.Member{{Key: "run", Value: rp.Run}}
		line := out.Line
		if ot != nil {
			extra = append(extra, report.Member{Key: "run_key", Value: ot.RunKey}, report.Member{Key: "unmapped", Value: ot.Unmapped})
			if line > 0 {
				line = rp.Span.Line
			}
		}
		extra = append(extra, report.Member{Key: "line", Value: line})
		if s := sp(out.Line); s != nil {
			extra = append(extra, report.Member{Key: "step", Value: s.Step}, report.Member{Key: "trace_id", Value: s.TraceID},
				report.Member{Key: "span_id", Value: s.SpanID}, report.Member{Key: "span", Value: s.Span})
			if s.Event != "" {
				extra = append(extra, report.Member{Key: "event", Value: s.Event})
			}
		}
		extra = append(extra, report.Member{Key: "steps", Value: out.Steps})
		if out.TraceFrom > 0 {
			extra = append(extra, report.Member{Key: "trace_from", Value: out.TraceFrom})
		}
		return report.JSONOptions{Extra: extra}.Render(w, m, out.CheckResult())
	case out.Diverged != nil:
		d := out.Diverged
		line := d.Line
		if rp.OTLP {
			line = rp.Span.Line
		}
		x = jsonDiverges{jsonHead: head, jsonOTLP: ot, Line: line, jsonSpan: sp(d.Line), Action: d.Action, Enabled: d.Enabled,
			Mismatch: nonNil(d.Mismatch), Allowed: nonNil(d.Allowed), Steps: out.Steps}
	default:
		x = jsonConforms{jsonHead: head, jsonOTLP: ot, Steps: out.Steps, States: out.Finals}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(x); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// divergenceRule is the SARIF rule of a divergence.
var divergenceRule = report.SARIFRule{ID: "divergence", Description: "every step of a recorded run is a step the spec allows"}

// SARIF writes the reports of runs replayed on m as one SARIF 2.1.0 log
// (toolVersion: the driver's version; runs: the runs replayed, of which
// reps may hold only those that failed): a divergence is a result of rule
// "divergence" located at the declaration of the action the spec does not
// allow there (for the first line of a run, at the spec's name); a
// violation is a result as `check --format sarif` makes it, at the
// violated check, with the run's trace as its code flow. Each result names
// the run file's line (and for a recording the run and the span) in its
// message, and the line as a related location (none for standard input,
// "<stdin>").
func SARIF(w io.Writer, m *spec.Model, reps []*Report, runs int, toolVersion string) error {
	var findings []report.SARIFFinding
	failed := 0
	for _, rp := range reps {
		out := rp.Result
		if !rp.Failed() {
			continue
		}
		failed++
		props := map[string]any{"run": rp.Run, "steps": out.Steps}
		if rp.OTLP {
			props["run_key"] = rp.Key
			props["unmapped"] = rp.Unmapped
		}
		line := out.Line
		if out.Diverged != nil {
			line = out.Diverged.Line
		}
		fileLine := line
		if rp.OTLP && line > 0 {
			fileLine = rp.Span.Line
			props["step"] = line
			props["trace_id"], props["span_id"], props["span"] = rp.Span.TraceID, rp.Span.SpanID, rp.Span.Name
			if rp.Span.Event != "" {
				props["event"] = rp.Span.Event
			}
		}
		props["line"] = fileLine
		where := rp.name() + ": in the initial state"
		if line > 0 {
			where = rp.where(line)
		}
		f := report.SARIFFinding{Properties: props}
		if v := out.Violation; v != nil {
			f.Violation = v
			f.Message = where + ": the run reaches a violation of the spec"
		} else {
			d := out.Diverged
			f.RuleID = divergenceRule.ID
			f.Pos = actionPos(m, d.Action)
			props["action"], props["enabled"], props["allowed"] = d.Action, d.Enabled, nonNil(d.Allowed)
			allowed := "none (no action is enabled)"
			if len(d.Allowed) > 0 {
				allowed = strings.Join(d.Allowed, ", ")
			}
			what := fmt.Sprintf("the spec does not allow %s here", d.Action)
			if d.Enabled {
				props["mismatch"] = nonNil(d.Mismatch)
				what = fmt.Sprintf("%s leads to no state that matches the recorded state and answers", d.Action)
				if len(d.Mismatch) > 0 {
					what += " (" + strings.Join(d.Mismatch, "; ") + ")"
				}
			}
			f.Message = where + ": " + what + "; allowed here: " + allowed
		}
		if rp.Run != "<stdin>" && fileLine > 0 {
			text := "the step of the run"
			if rp.OTLP {
				text = rp.Span.String()
			}
			f.Related = []report.SARIFPlace{{URI: rp.Run, Line: fileLine, Message: text}}
		}
		findings = append(findings, f)
	}
	props := map[string]any{"spec": m.Name, "runs": max(runs, len(reps)), "failed": failed}
	return report.SARIFOptions{ToolVersion: toolVersion}.RenderFindings(w, m, []report.SARIFRule{divergenceRule}, findings, props)
}

// actionPos is the declaration of the action named name, or the spec's
// name for "(initial state)".
func actionPos(m *spec.Model, name string) spec.Position {
	for _, a := range m.Actions {
		if a.Name == name {
			return a.Pos
		}
	}
	if m.NamePos.IsValid() {
		return m.NamePos
	}
	return spec.Position{Filename: m.Filename, Line: 1, Col: 1}
}
