package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// replayFlags are the flags of `wrapcheck replay`.
type replayFlags struct {
	defines []string
	format  string
	mapping string // the mapping of an OTLP recording
	timeout time.Duration
	memory  string
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay SPEC RUN.jsonl|-",
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

RUN - reads standard input as it arrives (an OTLP recording trace by trace,
each judged when its root span comes; see docs/replay.md).

Exit codes: 0 the run conforms, 1 a line the spec does not allow or a
violation reached (rendered as by check), 2 the spec, the run file or the
command line is wrong, 3 --timeout, --memory, SIGINT or SIGTERM stopped the
replay (the reports of runs judged before stay printed).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			mem, err := parseSize(f.memory)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			out := &replayOutput{cmd: cmd, format: f.format}
			return limited("replay", f.timeout, &out.mu, func(ctx context.Context) error {
				// The heap's watchdog covers every phase: one step of a
				// spec with many successors is expanded whole. The work
				// runs on a goroutine of its own, and the budget ends the
				// command as the deadline does, no report cut short.
				ctx, release := withMemoryBudget(ctx, mem)
				defer release()
				_, err := loadLimited(ctx, 0, func(ctx context.Context) (struct{}, error) {
					return struct{}{}, runReplay(ctx, cmd, args[0], args[1], f, out)
				})
				if ls, ok := err.(*loadStopped); ok {
					if ls.reason != verdict.StopMemory {
						return ctx.Err()
					}
					out.mu.Lock() // never given back: the command ends
					return &exitError{code: exitIncomplete, err: fmt.Errorf("replay: stopped before the end: %s", stopWhat(verdict.StopMemory, f.timeout, f.memory))}
				}
				return err
			})
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or sarif")
	fl.StringVar(&f.mapping, "mapping", "", "for an OTLP JSON recording: the mapping of its spans to actions (see docs/replay.md)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop after this long, e.g. 30s (0: no limit): exit 3")
	fl.StringVar(&f.memory, "memory", "", "memory budget of every phase, e.g. 1GiB (default: none): exit 3 past it")
	return cmd
}

func runReplay(ctx context.Context, cmd *cobra.Command, specPath, runPath string, f replayFlags, out *replayOutput) error {
	// Errors are rendered on stdout for JSON and SARIF too, so that a CI
	// job always has an object or a log to read.
	errFormat := ""
	if f.format == "json" || f.format == "sarif" {
		errFormat = f.format
	}
	usage := func(file string, err error) error {
		if _, ok := err.(*exitError); !ok {
			err = &exitError{code: exitUsage, err: err}
		}
		return renderError(cmd, errFormat, file, err)
	}
	if !slices.Contains(replayFormats, f.format) {
		return usage("", fmt.Errorf("--format %s: want %s", report.Escape(f.format), strings.Join(replayFormats, ", ")))
	}
	m, err := loadModel(ctx, specPath, f.defines)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // limited says why
		}
		return usage(displayPath(specPath), err)
	}
	var in io.Reader = cmd.InOrStdin()
	run := "<stdin>"
	if runPath != "-" {
		file, err := os.Open(runPath)
		if err != nil {
			return usage("", err)
		}
		defer file.Close()
		in, run = file, displayPath(runPath)
	}
	br := bufio.NewReader(in)
	out.m = m
	if replay.SniffOTLP(br) {
		if err := runReplayOTLP(m, run, runPath == "-", br, f, out); err != nil {
			return usage("", err)
		}
		return out.finish()
	} else if f.mapping != "" {
		return usage("", fmt.Errorf("%s: --mapping is for OTLP JSON recordings, and this is a run file (JSON lines)", run))
	}
	res, err := replay.Run(m, run, br)
	if err != nil {
		return usage("", err)
	}
	if err := out.add(&replay.Report{Run: run, Result: res}); err != nil {
		return err
	}
	return out.finish()
}

// replayFormats are the --format values of replay.
var replayFormats = []string{"text", "json", "sarif"}

// replayOutput prints the reports of the runs of a replay: text and JSON
// as each run is judged, SARIF as one log at the end (keeping only the
// runs that fail).
type replayOutput struct {
	mu     sync.Mutex // held while a report is written
	cmd    *cobra.Command
	m      *spec.Model
	format string
	runs   int
	failed []*replay.Report
}

// add prints (or, for SARIF, keeps) the report of one run, and for a
// violation its GitHub annotations.
func (o *replayOutput) add(rp *replay.Report) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.runs++
	if rp.Failed() {
		o.failed = append(o.failed, rp)
	}
	w := o.cmd.OutOrStdout()
	var err error
	switch o.format {
	case "json":
		err = rp.JSON(w, o.m)
	case "text":
		err = rp.Text(w, o.m, replay.TextOptions{Color: isColorTerminal(w)})
	}
	if err != nil {
		return err
	}
	if res := rp.Result.CheckResult(); res != nil {
		return annotate(o.cmd, o.m, res)
	}
	return nil
}

// finish writes the SARIF log and returns the exit status: 1 when a run
// failed.
func (o *replayOutput) finish() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.format == "sarif" {
		if err := replay.SARIF(o.cmd.OutOrStdout(), o.m, o.failed, o.runs, toolVersion()); err != nil {
			return err
		}
	}
	if len(o.failed) > 0 {
		return &exitError{code: exitViolated}
	}
	return nil
}
