package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// probFlags are the flags of `wrapcheck prob`, copied into quant.Options.
type probFlags struct {
	defines    []string
	only       []string
	maxStates  int
	timeout    time.Duration
	memory     string
	format     string
	interval   bool
	epsilon    float64
	confidence string
	witness    bool
	sensitive  bool
	noSym      bool
}

func newProbCmd() *cobra.Command {
	var f probFlags
	cmd := &cobra.Command{
		Use:   "prob FILE",
		Short: "compute the probability queries of the spec exactly",
		Long: `prob builds the state space of the spec in FILE as a Markov decision
process -- an agent answer with a rate is a probabilistic branch, every
other answer, every choose and the choice of the action are the
scheduler's -- and computes each probability query (docs/language.md,
"Probabilities") exactly, as a fraction: its minimum and maximum over all
schedulers. A query with a bound is a check. Expected-cost queries
(` + "`expected E: cost until c`" + `) are exact too: infinity where c is not reached
with probability 1, as PRISM's R=? [ F c ].

--format json writes the whole result as one object; --format sarif
writes the checks as check's SARIF does: a result, level error, at each
query whose bound can be broken, a warning at each bound not decided.

Exit codes: 0 every bound holds, 1 a bound can be broken, 2 the spec or the
command line is wrong, 3 the computation stopped early (--timeout, --memory,
--max-states, an interrupt) or an interval could not decide a bound.

Values are exact fractions. With --interval, or for a query past exact
mode's limit (2000 undecided states), interval iteration gives sound lower
and upper bounds instead, computed with directed rounding; a component
where it is slow (a random walk) gets bounds from floating-point policy
iteration, kept only when one Bellman step rounded outwards certifies them.
When --timeout or a signal stops interval iteration, the bounds reached
(sound, wider than --epsilon) are printed, marked "stopped by the limit"
("stopped": true and "reason" in JSON; "complete": false in SARIF), and
the queries after it are missing: exit 3, or 1 when the bounds already show
a bound broken.

A rate given as counts (` + "`k of n`" + `) is a measurement: the values at the point
estimates k/n are printed, then the range of the probability over the
schedulers and over every rate within the Clopper-Pearson confidence
interval of its counts (--confidence, 95% by default). A bound that holds at
the point estimates but not over that range is not decided (exit 3).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProb(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringArrayVar(&f.only, "only", nil, "compute only the probability NAME (repeatable)")
	fl.IntVar(&f.maxStates, "max-states", 0, "stop after building this many states (0: no limit)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop after this long, e.g. 30s or 5m (0: no limit)")
	fl.StringVar(&f.memory, "memory", "", "memory budget, e.g. 4GiB (default: none)")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or sarif (a bound that can be broken is a result)")
	fl.BoolVar(&f.interval, "interval", false, "interval iteration (sound bounds) instead of exact values for unbounded queries; used anyway past exact mode's limit")
	fl.Float64Var(&f.epsilon, "epsilon", 1e-6, "width interval iteration aims at")
	fl.StringVar(&f.confidence, "confidence", "95%", "level of the confidence intervals of counts `k of n`: 95%, 0.99 or 99/100")
	fl.BoolVar(&f.noSym, "no-symmetry", false, "turn symmetry reduction off")
	fl.BoolVar(&f.sensitive, "sensitivity", false, "with counts, the range if each measured rate were known exactly, narrowest first: the rate to measure next")
	fl.BoolVar(&f.witness, "witness", false, "show, for each value, the strategy that attains it (for a value from interval iteration, the strategy its bounds pick, with the bounds of its own probability or expected cost) and the most probable path to the event or target under it")
	return cmd
}

func runProb(cmd *cobra.Command, path string, f probFlags) error {
	format := f.format
	if format != "text" && format != "json" && format != "sarif" {
		format = ""
	}
	file := displayPath(path)
	usage := func(err error) error {
		return renderError(cmd, format, file, &exitError{code: exitUsage, err: err})
	}
	if format == "" {
		return usage(fmt.Errorf("--format %s: want text, json or sarif", report.Escape(f.format)))
	}
	mem, err := parseSize(f.memory)
	if err != nil {
		return usage(err)
	}
	if f.maxStates < 0 || f.timeout < 0 || !(f.epsilon > 0 && f.epsilon < 1) {
		return usage(fmt.Errorf("--max-states and --timeout must not be negative, and --epsilon must lie between 0 and 1"))
	}
	level, ok := new(big.Rat).SetString(strings.TrimSuffix(f.confidence, "%"))
	if ok && strings.HasSuffix(f.confidence, "%") {
		level.Quo(level, big.NewRat(100, 1))
	}
	if !ok || level.Sign() <= 0 || level.Cmp(big.NewRat(1, 1)) >= 0 {
		return usage(fmt.Errorf("--confidence %s: want a level between 0 and 1 (0.95, 19/20) or a percentage (95%%)", report.Escape(f.confidence)))
	}
	m, _, err := loadForCheck(cmd, path, f.defines)
	if err != nil {
		return renderError(cmd, format, file, err)
	}
	if len(m.Queries) == 0 && len(m.Expectations) == 0 {
		return usage(fmt.Errorf("%s: no probability queries (declare one with `probability Name: eventually c`)", file))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	opts := quant.Options{MaxStates: f.maxStates, MemoryBudget: mem, Only: f.only, Interval: f.interval, Epsilon: f.epsilon, Confidence: level, Witness: f.witness, Sensitivity: f.sensitive}
	var notes []string
	if !f.noSym {
		canon, ns, err := reduce.ForQuant(m)
		if err != nil {
			return usage(err)
		}
		if canon != nil {
			opts.Canon = canon.Func()
		}
		notes = ns
	}
	res, err := quant.Check(ctx, m, opts)
	if err != nil {
		var stopped error
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			stopped = fmt.Errorf("%s: stopped at the timeout (%s)", file, f.timeout)
		case errors.Is(err, context.Canceled):
			stopped = fmt.Errorf("%s: interrupted", file)
		case errors.Is(err, quant.ErrMemory), errors.Is(err, quant.ErrTooLarge) && f.maxStates > 0:
			stopped = err
		default:
			return usage(err)
		}
		if res != nil && res.Stopped != nil {
			// stopped during interval iteration, the range over the
			// counts or the sensitivity pass: what was reached, sound,
			// then exit 3 (1 when it shows a bound broken)
			res.Notes = append(notes, res.Notes...)
			if err := writeQuant(cmd.OutOrStdout(), format, m, res); err != nil {
				return err
			}
			code := exitIncomplete
			if res.Violations() > 0 {
				code = exitViolated
			}
			return &exitError{code: code, err: stopped}
		}
		if format == "sarif" {
			// a log for code scanning all the same, as check's
			if werr := report.QuantSARIFStopped(cmd.OutOrStdout(), m, stopped.Error(), toolVersion()); werr != nil {
				return werr
			}
		}
		return &exitError{code: exitIncomplete, err: stopped}
	}
	res.Notes = append(notes, res.Notes...)
	if err := writeQuant(cmd.OutOrStdout(), format, m, res); err != nil {
		return err
	}
	if res.Violations() > 0 {
		return &exitError{code: exitViolated}
	}
	if res.Unknowns() > 0 {
		return &exitError{code: exitIncomplete}
	}
	return nil
}

// writeQuant writes res in format (text, json or sarif).
func writeQuant(w io.Writer, format string, m *spec.Model, res *quant.Result) error {
	switch format {
	case "json":
		return report.QuantJSON(w, m, res)
	case "sarif":
		return report.QuantSARIF(w, m, res, toolVersion())
	}
	return report.QuantText(w, m, res)
}
