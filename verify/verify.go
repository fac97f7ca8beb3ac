// Package verify runs every check of a model with one set of options:
// the safety search of package checker (invariants, assertions, runtime
// errors, deadlocks), then the LTL properties through package ltl, with the
// reductions of package reduce configured from the same options. It is the
// one library call behind `wrapcheck check`, so the CLI and the example
// goldens cannot drift apart.
package verify

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Options configures [Run]. It is the one set of options a caller fills:
// verify derives the options of the searches below it (checker.Options,
// ltl.Options) from it. The zero value is the default of `wrapcheck
// check`: one worker per core, no limits, deadlock detection on, every
// check, reductions on. [Options.Validate] checks it against a model.
type Options struct {
	Workers    int
	MaxStates  int64
	MaxDepth   int
	NoDeadlock bool
	// Continue explores every reachable state after a violation and
	// checks every property, reporting the first violation of every
	// failing check (checker.Options.Continue); by default the search
	// stops at the end of the level of the first violation.
	Continue     bool
	Only         []string // invariants and properties to check; empty: all
	MemoryBudget int64
	NoSymmetry   bool
	NoPOR        bool
	HashCompact  bool // visited states as 64-bit fingerprints (checker.Options.HashCompact)
	// Progress, when not nil, receives the safety search's progress.
	Progress func(verdict.Progress)
	// Program is the model compiled by the caller (machine.Compile), so
	// that the caller's renderers share the one compilation; nil: Run
	// compiles the model once for all its searches.
	Program *machine.Program
	// Search, when not nil, runs the safety searches in place of
	// checker.RunProgram (package cluster's search over object storage, say):
	// the reduced search, then, when partial-order reduction found a
	// violation, the unreduced search for the shortest trace
	// (checker.Shortest over it). It must return what checker's own
	// search returns for the same Options.
	Search checker.Search

	// compile, when not nil, replaces machine.Compile (tests count the
	// compilations of one check with it).
	compile func(*spec.Model) (*machine.Program, error)
}

// OptionError is an option that [Options.Validate] rejects
// ([verdict.OptionError], which simulate's options use too).
type OptionError = verdict.OptionError

// Validate reports the first option of opts that a check of m cannot
// take, as an *OptionError: a negative limit, or a name in Only that is
// neither an invariant nor a property of m. [Run], [Safety] and
// [Explain] validate their options with it before searching.
func (opts Options) Validate(m *spec.Model) error {
	for _, l := range []struct {
		name string
		v    int64
	}{{"workers", int64(opts.Workers)}, {"max-states", opts.MaxStates}, {"max-depth", int64(opts.MaxDepth)}, {"memory", opts.MemoryBudget}} {
		if l.v < 0 {
			return &OptionError{Option: l.name, Value: strconv.FormatInt(l.v, 10), Msg: "must not be negative"}
		}
	}
	if _, _, unknown := m.Select(opts.Only); unknown != "" {
		return &OptionError{Option: "only", Value: unknown, Msg: "no invariant or property of that name in " + m.Name}
	}
	return nil
}

// program validates opts against m and returns opts.Program, or m
// compiled once.
func (opts Options) program(m *spec.Model) (*machine.Program, error) {
	if err := opts.Validate(m); err != nil {
		return nil, err
	}
	if opts.Program != nil {
		if opts.Program.Model != m {
			return nil, errors.New("verify: Options.Program was compiled from another model")
		}
		return opts.Program, nil
	}
	if opts.compile != nil {
		return opts.compile(m)
	}
	return machine.Compile(m)
}

// Run checks m. Safety comes first: a violation there is reported with its
// shortest trace and the properties are not searched (they are listed in
// Result.Undecided). When every safety check holds and m has properties
// (among opts.Only), each is checked in declaration order and the first
// violated one is reported as a lasso. With opts.Continue, every property
// is checked whatever the safety search found, and Result.Violations holds
// the first violation of every failing check, safety ones first.
// Stats are those of the safety search, which counts the reachable states
// and transitions as docs/language.md defines them; Seconds covers both.
func Run(ctx context.Context, m *spec.Model, opts Options) (*verdict.Result, error) {
	start := time.Now()
	prog, err := opts.program(m)
	if err != nil {
		return nil, err
	}
	opts.Program = prog
	res, err := Safety(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	safetyDone := time.Now()
	if !hasProperties(m, opts.Only) {
		return res, nil
	}
	if opts.Continue {
		if err := continueProperties(ctx, prog, opts, res); err != nil {
			return nil, err
		}
		res.Stats.Seconds = time.Since(start).Seconds()
		res.Stats.PropertySeconds = time.Since(safetyDone).Seconds()
		return res, nil
	}
	if res.Verdict == verdict.Violated {
		res.Undecided = selectedProperties(m, opts.Only)
		return res, nil
	}
	lc := ltl.NewProgramChecker(prog)
	lres, err := lc.Check(ctx, ltlOptions(opts))
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, lres.Notes...)
	switch {
	case lres.Verdict == verdict.Violated:
		res.Verdict, res.Violation, res.Stop = verdict.Violated, lres.Violation, verdict.NotStopped
		res.Violations = []*verdict.Violation{lres.Violation}
		if lres.Violation.Kind != verdict.Property {
			res.Undecided = selectedProperties(m, opts.Only)
		} else {
			res.Undecided = propertiesAfter(m, opts.Only, lres.Violation.Name)
		}
		res.Notes = append(res.Notes, cycleNotes(prog, res.Violation)...)
	case lres.Verdict == verdict.Unknown && res.Verdict == verdict.Holds:
		res.Verdict, res.Stop = verdict.Unknown, lres.Stop
		res.Undecided = selectedProperties(m, opts.Only)
	case lres.Verdict == verdict.Holds && res.Verdict == verdict.Holds && len(m.Fairness) > 0:
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
func Safety(ctx context.Context, m *spec.Model, opts Options) (*verdict.Result, error) {
	prog, err := opts.program(m)
	if err != nil {
		return nil, err
	}
	copts := checker.Options{
		Workers:      opts.Workers,
		MaxStates:    opts.MaxStates,
		MaxDepth:     opts.MaxDepth,
		NoDeadlock:   opts.NoDeadlock,
		Continue:     opts.Continue,
		Only:         opts.Only,
		MemoryBudget: opts.MemoryBudget,
		Progress:     opts.Progress,
		HashCompact:  opts.HashCompact,
	}
	hooks, err := reduce.Choose(m, reduce.Checks{Only: opts.Only}, reduce.Switches{NoSymmetry: opts.NoSymmetry, NoPOR: opts.NoPOR})
	if err != nil {
		return nil, err
	}
	copts.Canon, copts.Ample = hooks.CanonFunc(), hooks.Ample
	if opts.Search != nil {
		return checker.Shortest(ctx, opts.Search, prog, copts)
	}
	return checker.RunProgram(ctx, prog, copts)
}

// continueProperties checks every selected property of m on its own and
// adds each violated one to res (a lasso), after the safety violations.
// A property whose product search stops early (a limit, or an assertion or
// runtime error met on the way, which the safety search reports) is
// listed in res.Undecided.
func continueProperties(ctx context.Context, prog *machine.Program, opts Options, res *verdict.Result) error {
	m := prog.Model
	lc := ltl.NewProgramChecker(prog)
	for _, name := range selectedProperties(m, opts.Only) {
		lo := ltlOptions(opts)
		lo.Only = []string{name}
		lres, err := lc.Check(ctx, lo)
		if err != nil {
			return err
		}
		for _, n := range lres.Notes {
			if !slices.Contains(res.Notes, n) {
				res.Notes = append(res.Notes, n)
			}
		}
		switch {
		case lres.Verdict == verdict.Violated && lres.Violation.Kind == verdict.Property:
			v := lres.Violation
			res.Violations = append(res.Violations, v)
			if res.Verdict != verdict.Violated {
				res.Verdict, res.Violation, res.Stop = verdict.Violated, v, verdict.NotStopped
			}
			for _, n := range cycleNotes(prog, v) {
				if !slices.Contains(res.Notes, n) {
					res.Notes = append(res.Notes, n)
				}
			}
		case lres.Verdict == verdict.Violated:
			// An assertion or a runtime error on the way: the safety
			// search has it (or stopped early); the property is undecided.
			res.Undecided = append(res.Undecided, name)
			if res.Verdict == verdict.Holds {
				res.Verdict, res.Violation = verdict.Violated, lres.Violation
				res.Violations = append(res.Violations, lres.Violation)
			}
		case lres.Verdict == verdict.Unknown:
			res.Undecided = append(res.Undecided, name)
			if res.Verdict == verdict.Holds {
				res.Verdict, res.Stop = verdict.Unknown, lres.Stop
			}
			if lres.Stop == verdict.StopTimeout || lres.Stop == verdict.StopInterrupted {
				// The others would stop at once for the same reason.
				res.Undecided = append(res.Undecided, propertiesAfter(m, opts.Only, name)...)
				return nil
			}
		}
	}
	return nil
}

// selectedProperties returns the names of the properties of m that only
// selects (all when only is empty), in declaration order.
func selectedProperties(m *spec.Model, only []string) []string {
	var names []string
	for _, p := range m.Properties {
		if len(only) == 0 || slices.Contains(only, p.Name) {
			names = append(names, p.Name)
		}
	}
	return names
}

// propertiesAfter returns the selected properties declared after name.
func propertiesAfter(m *spec.Model, only []string, name string) []string {
	names := selectedProperties(m, only)
	if i := slices.Index(names, name); i >= 0 {
		return names[i+1:]
	}
	return nil
}

// ltlOptions returns the options of the LTL check for opts.
func ltlOptions(opts Options) ltl.Options {
	return ltl.Options{Only: opts.Only, MaxStates: opts.MaxStates, MemoryBudget: opts.MemoryBudget,
		Symmetry: !opts.NoSymmetry, POR: !opts.NoPOR, Progress: opts.Progress, HashCompact: opts.HashCompact}
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
	Verdict      verdict.Verdict
}

// Explain runs the safety search of m once per combination of the
// reductions (none, symmetry, partial-order, both), with opts' limits, so
// that a user sees what each reduction buys, and then the LTL properties
// (when the safety checks hold). It returns the rows in that order.
func Explain(ctx context.Context, m *spec.Model, opts Options) ([]Reduction, error) {
	prog, err := opts.program(m)
	if err != nil {
		return nil, err
	}
	opts.Program = prog
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
		if res.Verdict == verdict.Holds && hasProperties(m, o.Only) {
			lo := ltlOptions(o)
			row.ProductNodes = 0
			lo.OnProperty = func(ps ltl.PropertyStats) { row.ProductNodes += ps.ProductNodes }
			lres, err := ltl.NewProgramChecker(prog).Check(ctx, lo)
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
