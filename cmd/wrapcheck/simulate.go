package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// simulateFlags are the flags of `wrapcheck simulate`, copied into
// simulate.Options.
type simulateFlags struct {
	defines    []string
	seed       uint64
	walks      int64
	depth      int
	workers    int
	timeout    time.Duration
	memory     string
	shard      string
	noDeadlock bool
	format     string
}

func newSimulateCmd() *cobra.Command {
	var f simulateFlags
	cmd := &cobra.Command{
		Use:   "simulate FILE",
		Short: "run random walks through the spec and report the shortest violation they find",
		Long: `simulate runs random walks from the initial states of the spec in FILE, for
state spaces too large for check. Each step picks uniformly among all the
successors of the current state (every branch of every enabled action,
every agent answer). Every state a walk visits is checked for invariants,
assertions, runtime errors and deadlocks, as check does; a walk ends at its
first violation, at a state with no successor, or after --depth steps.
Properties (LTL) are not checked.

The walks are numbered; walk k draws from a generator seeded with (--seed,
k), so a seed and a walk count give the same result for any --workers.
--shard I/N runs the walks k with k mod N = I, so that N jobs of a CI matrix
run disjoint walks that together are the walks of one run. The reported
violation is the shortest found, ties broken by the lowest walk number.

A simulation is not exhaustive: finding nothing proves nothing.

Exit codes: 1 a violation was found, 2 the spec or the command line is
wrong, 3 no violation was found (never 0).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimulate(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.Uint64Var(&f.seed, "seed", simulate.DefaultSeed, "seed of the walks' generators")
	fl.Int64Var(&f.walks, "walks", 0, fmt.Sprintf("walks of the whole run (default %d; with --timeout alone, until the timeout or the first violation)", simulate.DefaultWalks))
	fl.IntVar(&f.depth, "depth", simulate.DefaultDepth, "steps of a walk at most")
	fl.IntVar(&f.workers, "workers", 0, "walking goroutines (0: one per core)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop after this long, e.g. 30s or 5m (0: no limit)")
	fl.StringVar(&f.memory, "memory", "", "memory budget of every phase, e.g. 1GiB (default: none): exit 3 past it")
	fl.StringVar(&f.shard, "shard", "", "run shard I of N: the walks k with k mod N = I, e.g. --shard 0/4")
	fl.BoolVar(&f.noDeadlock, "no-deadlock", false, "do not report states with no enabled action")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or itf")
	return cmd
}

// parseShard parses --shard I/N ("" is 0/1).
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 0 || a >= b {
		return 0, 0, fmt.Errorf("--shard %s: want I/N with 0 <= I < N, e.g. 0/4", clip(s))
	}
	return a, b, nil
}

func runSimulate(cmd *cobra.Command, path string, f simulateFlags) error {
	format := f.format
	if format != "text" && format != "json" && format != "itf" {
		format = ""
	}
	file := displayPath(path)
	usage := func(err error) error {
		return renderError(cmd, format, file, &exitError{code: exitUsage, err: err})
	}
	if format == "" {
		return usage(fmt.Errorf("--format %s: want text, json or itf", report.Escape(f.format)))
	}
	if f.walks < 0 || f.depth < 1 || f.workers < 0 || f.timeout < 0 {
		return usage(fmt.Errorf("--walks, --workers and --timeout must not be negative, and --depth must be at least 1"))
	}
	shard, shards, err := parseShard(f.shard)
	if err != nil {
		return usage(err)
	}
	mem, err := parseSize(f.memory)
	if err != nil {
		return usage(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	// The heap's watchdog covers loading and the walks: past the budget
	// the walks stop as at the deadline.
	ctx, release := withMemoryBudget(ctx, mem)
	defer release()
	// The limits cover loading and compiling the spec too.
	ld, err := loadLimited(ctx, 0, func(ctx context.Context) (loadedSpec, error) {
		return loadAndCompile(ctx, cmd, path, f.defines)
	})
	if ls, ok := err.(*loadStopped); ok {
		// Incomplete, as a run the limit stopped before any walk.
		m := &spec.Model{Name: file, Filename: file}
		res := &simulate.Result{Verdict: verdict.Unknown, Walk: -1, Reason: ls.reason.String(), Seed: f.seed, Depth: f.depth, Shard: shard, Shards: shards}
		w := cmd.OutOrStdout()
		if format == "json" {
			err = report.JSONOptions{}.RenderSimulation(w, m, res)
		} else {
			err = report.TextOptions{Color: isColorTerminal(w), Explain: true}.RenderSimulation(w, m, res)
		}
		if err != nil {
			return err
		}
		return &exitError{code: exitIncomplete, err: fmt.Errorf("simulate: stopped while loading the spec: %s", stopWhat(ls.reason, f.timeout, f.memory))}
	}
	if err != nil {
		return renderError(cmd, format, file, err)
	}
	m, compiled := ld.m, ld.prog
	res, err := simulate.Run(ctx, m, simulate.Options{
		Seed:       f.seed,
		Walks:      f.walks,
		UntilDone:  f.timeout > 0,
		Depth:      f.depth,
		Workers:    f.workers,
		Shard:      shard,
		Shards:     shards,
		NoDeadlock: f.noDeadlock,
		Program:    compiled,
	})
	if err == nil && res.Reason == "interrupted" && stopReasonOf(ctx) == verdict.StopMemory {
		res.Reason = verdict.StopMemory.String()
	}
	if err != nil {
		var oe *simulate.OptionError
		if errors.As(err, &oe) {
			return usage(err)
		}
		return renderError(cmd, format, file, &exitError{code: exitUsage, err: err})
	}
	w := cmd.OutOrStdout()
	switch format {
	case "json":
		err = report.JSONOptions{}.RenderSimulation(w, m, res)
	case "itf":
		err = report.ITFSimulation(w, m, res)
	default:
		err = report.TextOptions{Color: isColorTerminal(w), Explain: true, Program: compiled}.RenderSimulation(w, m, res)
	}
	if err != nil {
		return err
	}
	if res.Violation != nil {
		if err := annotate(cmd, m, &verdict.Result{Verdict: verdict.Violated, Violation: res.Violation}); err != nil {
			return err
		}
		return &exitError{code: exitViolated}
	}
	return &exitError{code: exitIncomplete}
}
