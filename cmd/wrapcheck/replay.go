package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/replay"
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
	rp := &replay.Report{Run: run, Result: out}
	if err := renderReplay(cmd, m, rp, f.format); err != nil {
		return err
	}
	return replayExit(rp.Failed())
}

// renderReplay prints the report of a replayed run in the chosen format
// (and, for a violation, its GitHub annotations).
func renderReplay(cmd *cobra.Command, m *spec.Model, rp *replay.Report, format string) error {
	w := cmd.OutOrStdout()
	var err error
	if format == "json" {
		err = rp.JSON(w, m)
	} else {
		err = rp.Text(w, m, replay.TextOptions{Color: isColorTerminal(w)})
	}
	if err != nil {
		return err
	}
	if res := rp.Result.CheckResult(); res != nil {
		return annotate(cmd, m, res)
	}
	return nil
}

// replayExit is the exit status of a replay: 1 when a run failed.
func replayExit(failed bool) error {
	if failed {
		return &exitError{code: exitViolated}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
