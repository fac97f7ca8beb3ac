package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// explainFlags are the flags of `wrapcheck explain`.
type explainFlags struct {
	defines   []string
	only      []string
	run       string
	format    string
	maxStates int64
	workers   int
	switches  bool
	timeout   time.Duration
	memory    string
}

func newExplainCmd() *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:   "explain FILE",
		Short: "say which steps of a counterexample matter, and why",
		Long: `explain checks the spec in FILE as check does and explains the counterexample.

For a safety violation it marks with * the essential steps: those without
which the rest of the trace, replayed on the spec from the same initial
state with the agent answers each step recorded, is no longer possible or
no longer reaches the violation. Each step
gets a "because": the variables it changed that the violated check reads,
directly or through a later step, and "must come before step N" when the
trace with the two swapped no longer reaches the violation. A shortest counterexample (what check
prints) has every step essential; --run FILE.jsonl explains instead the
violation that a recorded run reaches (the format of wrapcheck replay), where
some steps usually are not.

For a liveness violation it names the actions of the cycle, the fairness
that would exclude this cycle and, checked, which of them make the property
hold; when even strong fairness of every process and action leaves the
property violated and agents answer on the cycle, no fairness can rule it
out: the design must.

Exit codes: 0 every check holds (nothing to explain), 1 a violation was
explained, 2 the spec, the run or the command line is wrong, 3 the search
stopped early with no violation found, or --timeout, --memory, SIGINT or
SIGTERM stopped it, in any phase (loading the spec, the search, the replay
of --run, the explanation's own searches and replays).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(cmd, args[0], f, machine.Compile)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringArrayVar(&f.only, "only", nil, "check only this invariant or property (repeatable)")
	fl.StringVar(&f.run, "run", "", "explain the violation this recorded run (JSON lines) reaches")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or mermaid (essential steps highlighted)")
	fl.Int64Var(&f.maxStates, "max-states", 0, "stop after storing this many states (0: no limit)")
	fl.IntVar(&f.workers, "workers", 0, "search goroutines (0: one per core)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop after this long, e.g. 30s (0: no limit): exit 3")
	fl.StringVar(&f.memory, "memory", "", "memory budget of every phase, e.g. 1GiB (default: none): exit 3 past it")
	fl.BoolVar(&f.switches, "fewest-switches", false, "explain, among the shortest counterexamples, one with the fewest context switches between processes")
	return cmd
}

// runExplain runs `wrapcheck explain` on the spec at path. It compiles the
// model once, with compile (machine.Compile; tests count the calls), and
// hands the Program to the search or the replay of --run and to the
// explanation.
func runExplain(cmd *cobra.Command, path string, f explainFlags, compile func(*spec.Model) (*machine.Program, error)) error {
	if f.format != "text" && f.format != "json" && f.format != "mermaid" {
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want text, json or mermaid", f.format)}
	}
	mem, err := parseSize(f.memory)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	var out sync.Mutex // held while the explanation is written
	return limited("explain", f.timeout, &out, func(ctx context.Context) error {
		// The heap's watchdog covers every phase; the search also
		// honours the budget itself (verify.Options.MemoryBudget).
		ctx, release := withMemoryBudget(ctx, mem)
		defer release()
		err := explainLimited(ctx, cmd, path, f, mem, &out, compile)
		if err != nil && ctx.Err() != nil && stopReasonOf(ctx) == verdict.StopMemory {
			return &exitError{code: exitIncomplete, err: fmt.Errorf("explain: stopped before the end: %s", stopWhat(verdict.StopMemory, f.timeout, f.memory))}
		}
		return err
	})
}

// explainLimited is runExplain's work under ctx, which --timeout, --memory
// (mem bytes) and the signals end; it holds out while it writes.
func explainLimited(ctx context.Context, cmd *cobra.Command, path string, f explainFlags, mem int64, out *sync.Mutex, compile func(*spec.Model) (*machine.Program, error)) error {
	opts := verify.Options{MaxStates: f.maxStates, Workers: f.workers, Only: f.only, MemoryBudget: mem}
	// Loading and compiling end at the limits, as the search does.
	m, err := loadLimited(ctx, 0, func(ctx context.Context) (*spec.Model, error) {
		m, err := loadModel(ctx, path, f.defines)
		if err != nil {
			return nil, err
		}
		if err := opts.Validate(m); err != nil {
			return nil, &exitError{code: exitUsage, err: flagError(err)}
		}
		if opts.Program, err = compile(m); err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		return m, nil
	})
	if ls, ok := err.(*loadStopped); ok {
		return &exitError{code: exitIncomplete, err: fmt.Errorf("explain: stopped before the end: %s", stopWhat(ls.reason, f.timeout, f.memory))}
	}
	if err != nil {
		return err
	}
	var v *verdict.Violation
	if f.run != "" {
		file, err := os.Open(f.run)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		lines, err := replay.Read(m, displayPath(f.run), file)
		file.Close()
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		res, err := replay.CheckProgram(ctx, opts.Program, lines)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if res.Violation == nil {
			fmt.Fprintf(cmd.OutOrStdout(), "%s: the run reaches no violation: nothing to explain\n", m.Name)
			return nil
		}
		v = res.Violation
	} else {
		res, err := verify.Run(ctx, m, opts)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		switch res.Verdict {
		case verdict.Holds:
			fmt.Fprintf(cmd.OutOrStdout(), "%s: every check holds: nothing to explain\n", m.Name)
			return nil
		case verdict.Unknown:
			return &exitError{code: exitIncomplete, err: fmt.Errorf("%s: the search stopped early (%s): nothing to explain", m.Name, res.Reason())}
		}
		v = res.Violation
	}
	ex, err := explain.Explain(ctx, m, v, explain.Options{Verify: opts, FewestSwitches: f.switches})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	out.Lock()
	defer out.Unlock()
	switch f.format {
	case "json":
		err = ex.JSON(cmd.OutOrStdout())
	case "mermaid":
		err = ex.Mermaid(cmd.OutOrStdout())
	default:
		err = ex.Text(cmd.OutOrStdout())
	}
	if err != nil {
		return err
	}
	return &exitError{code: exitViolated}
}
