package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// runReplayOTLP replays each run of an OTLP JSON recording (read from r)
// through the mapping of --mapping.
func runReplayOTLP(cmd *cobra.Command, m *spec.Model, run string, r io.Reader, f replayFlags) error {
	if f.mapping == "" {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: an OTLP JSON recording: give the mapping of its spans with --mapping FILE (see docs/replay.md)", run)}
	}
	mf, err := os.Open(f.mapping)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	defer mf.Close()
	mp, err := replay.ParseMapping(m, displayPath(f.mapping), mf)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	runs, err := replay.ReadOTLP(m, run, r, mp)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if len(runs) == 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: no span matches a rule of %s: nothing to replay", run, displayPath(f.mapping))}
	}
	failed := false
	for _, rn := range runs {
		out, err := replay.Check(m, rn.Lines)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := renderOTLPRun(cmd, m, run, rn, out, f.format); err != nil {
			return err
		}
		if n := len(rn.Unmapped); n > 0 && f.format != "json" {
			fmt.Fprintf(cmd.OutOrStdout(), "\tnote: %d agent or tool %s of %s no rule maps, so the replay does not see %s (the first: %s)\n",
				n, plural(n, "span", "spans"), otlpRunName(run, rn), plural(n, "it", "them"), report.Escape(rn.Unmapped[0].String()))
		}
		failed = failed || out.Violation != nil || out.Diverged != nil
	}
	if failed {
		return &exitError{code: exitViolated}
	}
	return nil
}

// otlpRunName names a run of a recording in reports.
func otlpRunName(run string, rn replay.TracedRun) string {
	if rn.Key == "" {
		return run
	}
	return fmt.Sprintf("%s[%s]", run, report.Escape(rn.Key))
}

// spanWhere says where a step of a run is: the line of the recording,
// the run key, the span.
func spanWhere(run string, rn replay.TracedRun, sp replay.SpanRef) string {
	if rn.Key == "" {
		return fmt.Sprintf("%s:%d: %s", run, sp.Line, report.Escape(sp.String()))
	}
	return fmt.Sprintf("%s:%d: run %s, %s", run, sp.Line, report.Escape(rn.Key), report.Escape(sp.String()))
}

// spanAt is the span of step line (1-based) of a run.
func spanAt(rn replay.TracedRun, line int) replay.SpanRef {
	if line < 1 || line > len(rn.Spans) {
		return replay.SpanRef{}
	}
	return rn.Spans[line-1]
}

func renderOTLPRun(cmd *cobra.Command, m *spec.Model, run string, rn replay.TracedRun, out *replay.Result, format string) error {
	w := cmd.OutOrStdout()
	name := otlpRunName(run, rn)
	switch {
	case out.Violation != nil:
		res := &checker.Result{Verdict: checker.Violated, Violation: out.Violation,
			Stats: checker.Stats{States: out.States, Transitions: out.Transitions, Depth: out.Steps, Workers: 1}}
		if format == "json" {
			return report.JSON(w, m, res)
		}
		where := name + ": in the initial state"
		if out.Line > 0 {
			sp := spanAt(rn, out.Line)
			where = spanWhere(run, rn, sp)
		}
		fmt.Fprintf(w, "%s: the run reaches a violation of the spec\n", where)
		return report.TextOptions{Color: isColorTerminal(w), Explain: true}.Render(w, m, res)
	case out.Diverged != nil:
		d := out.Diverged
		sp := spanAt(rn, d.Line)
		if format == "json" {
			b, err := json.MarshalIndent(struct {
				Format   int      `json:"format"`
				Spec     string   `json:"spec"`
				Verdict  string   `json:"verdict"`
				Run      string   `json:"run"`
				RunKey   string   `json:"run_key"`
				Line     int      `json:"line"`
				Step     int      `json:"step"`
				TraceID  string   `json:"trace_id"`
				SpanID   string   `json:"span_id"`
				Span     string   `json:"span"`
				Event    string   `json:"event,omitempty"`
				Action   string   `json:"action"`
				Enabled  bool     `json:"enabled"`
				Mismatch []string `json:"mismatch"`
				Allowed  []string `json:"allowed"`
				Steps    int      `json:"steps"`
				Unmapped int      `json:"unmapped"`
			}{report.FormatVersion, m.Name, "diverges", run, rn.Key, sp.Line, d.Line, sp.TraceID, sp.SpanID, sp.Name, sp.Event,
				d.Action, d.Enabled, nonNil(d.Mismatch), nonNil(d.Allowed), out.Steps, len(rn.Unmapped)}, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n", b)
			return nil
		}
		at := spanWhere(run, rn, sp)
		if d.Enabled {
			fmt.Fprintf(w, "%s: %s: %s leads to no state that matches the recorded state and answers\n", at, m.Name, d.Action)
			for _, mm := range d.Mismatch {
				fmt.Fprintf(w, "\t%s\n", mm)
			}
		} else {
			fmt.Fprintf(w, "%s: %s: the spec does not allow %s here\n", at, m.Name, d.Action)
		}
		allowed := "none (no action is enabled)"
		if len(d.Allowed) > 0 {
			allowed = strings.Join(d.Allowed, ", ")
		}
		fmt.Fprintf(w, "\tallowed here: %s\n", allowed)
		fmt.Fprintf(w, "\t%d %s of the run %s before this span\n", out.Steps, plural(out.Steps, "step", "steps"), plural(out.Steps, "conforms", "conform"))
		return nil
	}
	if format == "json" {
		fmt.Fprintf(w, "{\"format\": %d, \"spec\": %q, \"verdict\": \"conforms\", \"run\": %q, \"run_key\": %q, \"steps\": %d, \"states\": %d, \"unmapped\": %d}\n",
			report.FormatVersion, m.Name, run, rn.Key, out.Steps, out.Finals, len(rn.Unmapped))
		return nil
	}
	fmt.Fprintf(w, "%s: %s conforms: %d %s replayed", m.Name, name, out.Steps, plural(out.Steps, "step", "steps"))
	if out.Finals > 1 {
		fmt.Fprintf(w, " (%d states of the spec match the run)", out.Finals)
	}
	fmt.Fprintln(w)
	return nil
}
