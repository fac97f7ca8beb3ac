// Package verify runs every check of a model with one set of options:
// the safety search of package checker (invariants, assertions, runtime
// errors, deadlocks), then the LTL properties through package ltl, with the
// reductions of package reduce configured from the same options. It is the
// one library call behind `wrapcheck check`, so the CLI and the example
// goldens cannot drift apart.
package verify

import (
	"context"
	"time"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Options configures [Run]. The zero value is the default: one worker per
// core, no limits, deadlock detection on, every check, reductions on.
type Options struct {
	Workers      int
	MaxStates    int64
	MaxDepth     int
	NoDeadlock   bool
	FailFast     bool     // stop after the level of the first violation (partial counts)
	Only         []string // invariants and properties to check; empty: all
	MemoryBudget int64
	NoSymmetry   bool
	NoPOR        bool
	HashCompact  bool // visited states as 64-bit fingerprints (checker.Options.HashCompact)
	// Progress, when not nil, receives the safety search's progress.
	Progress func(checker.Progress)
}

// Run checks m. Safety comes first: a violation there is reported with its
// shortest trace and the properties are not searched. When every safety
// check holds and m has properties (among opts.Only), each is checked in
// declaration order and the first violated one is reported as a lasso.
// Stats are those of the safety search, which counts the reachable states
// and transitions as docs/language.md defines them; Seconds covers both.
func Run(ctx context.Context, m *spec.Model, opts Options) (*checker.Result, error) {
	start := time.Now()
	res, err := Safety(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	safetyDone := time.Now()
	if res.Verdict == checker.Violated || !hasProperties(m, opts.Only) {
		return res, nil
	}
	lc, err := ltl.NewChecker(m)
	if err != nil {
		return nil, err
	}
	lres, err := lc.Check(ctx, ltlOptions(opts))
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, lres.Notes...)
	if opts.HashCompact {
		res.Notes = append(res.Notes, "hash compaction covers the safety search only: the properties were checked with full state vectors")
	}
	switch {
	case lres.Verdict == checker.Violated:
		res.Verdict, res.Violation, res.Reason = checker.Violated, lres.Violation, ""
		notes, err := starvation(m, res.Violation)
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, notes...)
	case lres.Verdict == checker.Unknown && res.Verdict == checker.Holds:
		res.Verdict, res.Reason = checker.Unknown, lres.Reason
	case lres.Verdict == checker.Holds && res.Verdict == checker.Holds && len(m.Fairness) > 0:
		notes, err := neededFairness(ctx, lc, m, opts)
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, notes...)
	}
	res.Stats.Seconds = time.Since(start).Seconds()
	res.Stats.PropertySeconds = time.Since(safetyDone).Seconds()
	return res, nil
}

// Safety runs the safety search of m (invariants, assertions, runtime
// errors, deadlocks) with the reductions opts asks for, and reports the
// shortest violation of the unreduced system.
func Safety(ctx context.Context, m *spec.Model, opts Options) (*checker.Result, error) {
	copts := checker.Options{
		Workers:      opts.Workers,
		MaxStates:    opts.MaxStates,
		MaxDepth:     opts.MaxDepth,
		NoDeadlock:   opts.NoDeadlock,
		FailFast:     opts.FailFast,
		Only:         opts.Only,
		MemoryBudget: opts.MemoryBudget,
		Progress:     opts.Progress,
		HashCompact:  opts.HashCompact,
	}
	if !opts.NoSymmetry {
		canon, err := reduce.Symmetry(m)
		if err != nil {
			return nil, err
		}
		copts.Canon = canon
	}
	if !opts.NoPOR {
		copts.Ample = reduce.POR(m, reduce.Visible(m, opts.Only))
	}
	res, err := checker.Run(ctx, m, copts)
	if err != nil {
		return nil, err
	}
	if res.Verdict == checker.Violated && copts.Ample != nil {
		// Partial-order reduction keeps some violation reachable but not
		// the shortest path to it. The reduced search bounds the depth of
		// the shortest one, so an unreduced search to that depth finds it.
		if err := shortest(ctx, m, copts, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// ltlOptions returns the options of the LTL check for opts.
func ltlOptions(opts Options) ltl.Options {
	return ltl.Options{Only: opts.Only, MaxStates: opts.MaxStates, MemoryBudget: opts.MemoryBudget,
		Workers: opts.Workers, Symmetry: !opts.NoSymmetry, POR: !opts.NoPOR, Progress: opts.Progress}
}

// hasProperties reports whether any property of m is selected by only.
func hasProperties(m *spec.Model, only []string) bool {
	for _, p := range m.Properties {
		if len(only) == 0 {
			return true
		}
		for _, name := range only {
			if name == p.Name {
				return true
			}
		}
	}
	return false
}

// shortest replaces res.Violation, found with partial-order reduction, by
// the shortest violation of the unreduced system (symmetry keeps distances,
// so it stays on). That violation is at most as deep as the one found, so
// the search is bounded by the found trace's length; the statistics stay
// those of the reduced search.
func shortest(ctx context.Context, m *spec.Model, copts checker.Options, res *checker.Result) error {
	copts.Ample = nil
	copts.FailFast = true
	copts.MaxDepth = len(res.Violation.Trace) // one more than the trace's steps: deadlocks at its depth are found
	copts.Progress = nil
	full, err := checker.Run(ctx, m, copts)
	if err != nil {
		return err
	}
	if full.Verdict == checker.Violated {
		res.Violation = full.Violation
	}
	return nil
}

// Reduction is one row of [Explain]: the figures of the safety search
// and, when the model has properties and the safety checks hold, of the
// LTL product, with one combination of reductions.
type Reduction struct {
	Name        string // "none", "symmetry", "por", "symmetry+por"
	States      int64  // safety search
	Transitions int64  // safety search
	// ProductNodes sums the product nodes over the checked properties;
	// -1 when the properties were not checked.
	ProductNodes int64
	Seconds      float64
	Verdict      checker.Verdict
}

// Explain runs the safety search of m once per combination of the
// reductions (none, symmetry, partial-order, both), with opts' limits, so
// that a user sees what each reduction buys, and then the LTL properties
// (when the safety checks hold). It returns the rows in that order.
func Explain(ctx context.Context, m *spec.Model, opts Options) ([]Reduction, error) {
	var rows []Reduction
	for _, c := range []struct {
		name         string
		noSym, noPOR bool
	}{{"none", true, true}, {"symmetry", false, true}, {"por", true, false}, {"symmetry+por", false, false}} {
		o := opts
		o.NoSymmetry, o.NoPOR, o.Progress = c.noSym, c.noPOR, nil
		start := time.Now()
		res, err := Safety(ctx, m, o)
		if err != nil {
			return nil, err
		}
		row := Reduction{Name: c.name, States: res.Stats.States, Transitions: res.Stats.Transitions,
			ProductNodes: -1, Verdict: res.Verdict}
		if res.Verdict == checker.Holds && hasProperties(m, o.Only) {
			lo := ltlOptions(o)
			row.ProductNodes = 0
			lo.OnProperty = func(ps ltl.PropertyStats) { row.ProductNodes += ps.ProductNodes }
			lres, err := ltl.Check(ctx, m, lo)
			if err != nil {
				return nil, err
			}
			row.Verdict = lres.Verdict
		}
		row.Seconds = time.Since(start).Seconds()
		rows = append(rows, row)
	}
	return rows, nil
}
