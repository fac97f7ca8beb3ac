package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// graphFlags are the flags of `wrapcheck graph`.
type graphFlags struct {
	defines   []string
	format    string
	maxStates int64
	noCheck   bool
	timeout   time.Duration
	memory    string
}

func newGraphCmd() *cobra.Command {
	var f graphFlags
	cmd := &cobra.Command{
		Use:   "graph FILE",
		Short: "export the reachable state graph as DOT or JSON",
		Long: `graph explores the reachable states of the spec in FILE, breadth-first and
without reduction, up to --max-states states, and prints the state graph: one
node per state (labelled x=1 y=true), one edge per pair of states an action
leads between (labelled with the actions). It also runs check and draws the
counterexample it finds, if any, in red.

Exit codes: 0 the whole graph is printed, 2 the spec or the command line is
wrong, 3 the graph was truncated at --max-states, or --timeout, --memory,
SIGINT or SIGTERM stopped it (then nothing is printed).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			mem, err := parseSize(f.memory)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			var out sync.Mutex
			return limited("graph", f.timeout, &out, func(ctx context.Context) error {
				// The heap's watchdog covers every phase: the exploration
				// keeps every edge of the states it expands, which a
				// spec with many successors a state makes large.
				ctx, release := withMemoryBudget(ctx, mem)
				defer release()
				err := runGraph(ctx, cmd, &out, args[0], f, mem)
				if err != nil && ctx.Err() != nil && stopReasonOf(ctx) == verdict.StopMemory {
					return &exitError{code: exitIncomplete, err: fmt.Errorf("graph: stopped before the end: %s", stopWhat(verdict.StopMemory, f.timeout, f.memory))}
				}
				return err
			})
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringVar(&f.format, "format", "dot", "output format: dot or json")
	fl.Int64Var(&f.maxStates, "max-states", 1000, "explore at most this many states")
	fl.BoolVar(&f.noCheck, "no-check", false, "do not run check to highlight a counterexample")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop after this long, e.g. 30s (0: no limit): exit 3")
	fl.StringVar(&f.memory, "memory", "", "memory budget of every phase, e.g. 1GiB (default: none): exit 3 past it")
	return cmd
}

func runGraph(ctx context.Context, cmd *cobra.Command, out *sync.Mutex, path string, f graphFlags, mem int64) error {
	if f.format != "dot" && f.format != "json" {
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want dot or json", f.format)}
	}
	if f.maxStates <= 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("--max-states must be positive")}
	}
	m, err := loadModel(ctx, path, f.defines)
	if err != nil {
		return err
	}
	prog, err := machine.Compile(m)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	// The exploration does not look at ctx: it runs on a goroutine of its
	// own, and the command ends when a limit does.
	g, err := loadLimited(ctx, 0, func(context.Context) (*report.StateGraph, error) {
		return report.ExploreGraph(prog, f.maxStates), nil
	})
	if err != nil {
		return ctx.Err()
	}
	var v *verdict.Violation
	if !f.noCheck {
		res, err := verify.Run(ctx, m, verify.Options{MaxStates: f.maxStates, Program: prog, MemoryBudget: mem})
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if res.Verdict == verdict.Violated {
			v = res.Violation
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	render := g.DOT
	if f.format == "json" {
		render = g.JSON
	}
	out.Lock()
	err = render(cmd.OutOrStdout(), m, v)
	out.Unlock()
	if err != nil {
		return err
	}
	if g.Truncated {
		return &exitError{code: exitIncomplete, err: fmt.Errorf("graph truncated at %d states (--max-states)", len(g.Nodes))}
	}
	return nil
}
