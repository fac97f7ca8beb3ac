package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// replayFlags are the flags of `wrapcheck replay`.
type replayFlags struct {
	defines []string
	format  string
	mapping string // the mapping of an OTLP recording
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay SPEC RUN.jsonl",
		Short: "check a recorded run of a wrapper against its spec",
		Long: `replay checks a recorded run of a real wrapper against the spec: RUN.jsonl
holds one JSON object per line, {"action": "proc.act", "asked": {...},
"state": {...}} (see docs/replay.md). From the initial states, each line must
be a successor by the named action whose state matches the recorded
variables. Every invariant is checked on the way, and an assertion or runtime
error of the spec in a state the run reaches is reported too.

RUN may also be an OpenTelemetry recording in OTLP JSON (one
ExportTraceServiceRequest a line, as the collector's file exporter writes;
chosen by content): --mapping FILE then says which spans are which actions
and which attributes are agent answers and variables, and each run of the
recording (split by gen_ai.conversation.id by default) is replayed.

Exit codes: 0 the run conforms, 1 a line the spec does not allow or a
violation reached (rendered as by check), 2 the spec, the run file or the
command line is wrong.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, args[0], args[1], f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	fl.StringVar(&f.mapping, "mapping", "", "for an OTLP JSON recording: the mapping of its spans to actions (see docs/replay.md)")
	return cmd
}

func runReplay(cmd *cobra.Command, specPath, runPath string, f replayFlags) error {
	if f.format != "text" && f.format != "json" {
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want text or json", f.format)}
	}
	m, err := loadModel(specPath, f.defines)
	if err != nil {
		return err
	}
	file, err := os.Open(runPath)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	defer file.Close()
	run := displayPath(runPath)
	br := bufio.NewReader(file)
	if replay.SniffOTLP(br) {
		return runReplayOTLP(cmd, m, run, br, f)
	} else if f.mapping != "" {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: --mapping is for OTLP JSON recordings, and this is a run file (JSON lines)", run)}
	}
	out, err := replay.Run(m, run, br)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	return renderReplay(cmd, m, run, out, f.format)
}

// renderReplay prints the outcome of a replay: a violation as check
// renders it, a divergence with the actions allowed there, or "conforms".
func renderReplay(cmd *cobra.Command, m *spec.Model, run string, out *replay.Result, format string) error {
	w := cmd.OutOrStdout()
	switch {
	case out.Violation != nil:
		res := &checker.Result{Verdict: checker.Violated, Violation: out.Violation,
			Stats: checker.Stats{States: out.States, Transitions: out.Transitions, Depth: out.Steps, Workers: 1}}
		var err error
		if format == "json" {
			err = report.JSON(w, m, res)
		} else {
			where := run + ": in the initial state"
			if out.Line > 0 {
				where = fmt.Sprintf("%s:%d", run, out.Line)
			}
			fmt.Fprintf(w, "%s: the run reaches a violation of the spec\n", where)
			err = report.TextOptions{Color: isColorTerminal(w), Explain: true}.Render(w, m, res)
		}
		if err != nil {
			return err
		}
		if err := annotate(cmd, m, res); err != nil {
			return err
		}
		return &exitError{code: exitViolated}
	case out.Diverged != nil:
		d := out.Diverged
		if format == "json" {
			b, err := json.MarshalIndent(struct {
				Format   int      `json:"format"`
				Spec     string   `json:"spec"`
				Verdict  string   `json:"verdict"`
				Run      string   `json:"run"`
				Line     int      `json:"line"`
				Action   string   `json:"action"`
				Enabled  bool     `json:"enabled"`
				Mismatch []string `json:"mismatch"`
				Allowed  []string `json:"allowed"`
				Steps    int      `json:"steps"`
			}{report.FormatVersion, m.Name, "diverges", run, d.Line, d.Action, d.Enabled, nonNil(d.Mismatch), nonNil(d.Allowed), out.Steps}, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n", b)
		} else {
			if d.Enabled {
				fmt.Fprintf(w, "%s:%d: %s: %s leads to no state that matches the recorded state and answers\n", run, d.Line, m.Name, d.Action)
				for _, mm := range d.Mismatch {
					fmt.Fprintf(w, "\t%s\n", mm)
				}
			} else {
				fmt.Fprintf(w, "%s:%d: %s: the spec does not allow %s here\n", run, d.Line, m.Name, d.Action)
			}
			allowed := "none (no action is enabled)"
			if len(d.Allowed) > 0 {
				allowed = strings.Join(d.Allowed, ", ")
			}
			fmt.Fprintf(w, "\tallowed here: %s\n", allowed)
			fmt.Fprintf(w, "\t%d %s of the run %s before this line\n", out.Steps, plural(out.Steps, "step", "steps"), plural(out.Steps, "conforms", "conform"))
		}
		return &exitError{code: exitViolated}
	}
	if format == "json" {
		fmt.Fprintf(w, "{\"format\": %d, \"spec\": %q, \"verdict\": \"conforms\", \"run\": %q, \"steps\": %d, \"states\": %d}\n",
			report.FormatVersion, m.Name, run, out.Steps, out.Finals)
		return nil
	}
	fmt.Fprintf(w, "%s: %s conforms: %d %s replayed", m.Name, run, out.Steps, plural(out.Steps, "step", "steps"))
	if out.Finals > 1 {
		fmt.Fprintf(w, " (%d states of the spec match the run)", out.Finals)
	}
	fmt.Fprintln(w)
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
