package diff

import (
	"context"
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Verdict is the verdict of one check in one spec.
type Verdict uint8

// Verdicts of a check.
const (
	Holds    Verdict = iota // the check holds
	Violated                // the check is violated
	Unknown                 // a limit or the context stopped the search
	// Masked: another failure (an assertion, a runtime error, a deadlock)
	// is reached first, so the search, as check runs it, cannot say.
	Masked
)

// String returns "holds", "violated", "incomplete" or "masked".
func (v Verdict) String() string {
	return [...]string{"holds", "violated", "incomplete", "masked"}[v]
}

// Outcome is a check's result in one spec.
type Outcome struct {
	Present bool // the spec has the check
	Verdict Verdict
	// Steps is the length (transitions) of the shortest counterexample
	// of a violated safety check; -1 for a lasso.
	Steps  int
	Reason string // for Unknown and Masked
}

// Row is one line of the verdict table.
type Row struct {
	Kind string // "invariant", "property", "deadlock", "errors" (assertions and runtime errors)
	Name string // the invariant or property; "" for deadlock and errors
	Old  Outcome
	New  Outcome
}

// Changed reports whether the check's outcome differs between the specs.
func (r Row) Changed() bool {
	return r.Old.Present != r.New.Present || r.Old.Verdict != r.New.Verdict || r.Old.Steps != r.New.Steps
}

// Change describes the change of the row: "same", "new check", "removed",
// "holds → violated", "trace 3 → 5 steps".
func (r Row) Change() string {
	o, n := r.Old, r.New
	switch {
	case !o.Present:
		return "new check"
	case !n.Present:
		return "removed"
	case o.Verdict != n.Verdict:
		return o.Verdict.String() + " → " + n.Verdict.String()
	case o.Steps != n.Steps:
		return "trace " + o.stepsText() + " → " + n.stepsText()
	}
	return "same"
}

func (o Outcome) stepsText() string {
	if o.Steps < 0 {
		return "lasso"
	}
	if o.Steps == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", o.Steps)
}

// Text prints the outcome shortly: "holds", "violated (3 steps)",
// "violated (lasso)", "incomplete", "masked", "-" when absent.
func (o Outcome) Text() string {
	switch {
	case !o.Present:
		return "-"
	case o.Verdict == Violated:
		return "violated (" + o.stepsText() + ")"
	}
	return o.Verdict.String()
}

// Checks runs every check of old and new, one at a time, with opts, and
// returns the table: the invariants and properties of OLD in declaration
// order, then those only NEW has, then deadlock freedom and the
// assertions and runtime errors.
func Checks(ctx context.Context, old, new *spec.Model, opts verify.Options) ([]Row, error) {
	var rows []Row
	seen := map[[2]string]bool{}
	for _, m := range []*spec.Model{old, new} {
		for _, in := range m.Invariants {
			if k := [2]string{"invariant", in.Name}; !seen[k] {
				seen[k] = true
				rows = append(rows, Row{Kind: "invariant", Name: in.Name})
			}
		}
		for _, p := range m.Properties {
			if k := [2]string{"property", p.Name}; !seen[k] {
				seen[k] = true
				rows = append(rows, Row{Kind: "property", Name: p.Name})
			}
		}
	}
	// Invariants first, then properties, keeping the order above.
	var sorted []Row
	for _, kind := range []string{"invariant", "property"} {
		for _, r := range rows {
			if r.Kind == kind {
				sorted = append(sorted, r)
			}
		}
	}
	rows = append(sorted, Row{Kind: "deadlock"}, Row{Kind: "errors"})
	for _, side := range []struct {
		m   *spec.Model
		get func(*Row) *Outcome
	}{{old, func(r *Row) *Outcome { return &r.Old }}, {new, func(r *Row) *Outcome { return &r.New }}} {
		// One search of every check first: when all hold, so does each.
		o := opts
		o.Only, o.Progress, o.NoDeadlock = nil, nil, false
		res, err := verify.Run(ctx, side.m, o)
		if err != nil {
			return nil, err
		}
		for i := range rows {
			out := side.get(&rows[i])
			if res.Verdict == verdict.Holds {
				*out = Outcome{Present: has(side.m, rows[i])}
				continue
			}
			if *out, err = outcome(ctx, side.m, rows[i], opts); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// has reports whether m has the check of row.
func has(m *spec.Model, row Row) bool {
	switch row.Kind {
	case "invariant":
		return slices.ContainsFunc(m.Invariants, func(in *spec.Invariant) bool { return in.Name == row.Name })
	case "property":
		return slices.ContainsFunc(m.Properties, func(p *spec.Property) bool { return p.Name == row.Name })
	}
	return true
}

// outcome checks the one check of row in m: a copy of m that keeps only
// that check (deadlocks on for the deadlock row alone).
func outcome(ctx context.Context, m *spec.Model, row Row, opts verify.Options) (Outcome, error) {
	sub := *m
	sub.Invariants, sub.Properties = nil, nil
	opts.NoDeadlock = row.Kind != "deadlock"
	opts.Only, opts.Progress = nil, nil
	switch row.Kind {
	case "invariant":
		for _, in := range m.Invariants {
			if in.Name == row.Name {
				sub.Invariants = []*spec.Invariant{in}
			}
		}
		if sub.Invariants == nil {
			return Outcome{}, nil
		}
	case "property":
		for _, p := range m.Properties {
			if p.Name == row.Name {
				sub.Properties = []*spec.Property{p}
			}
		}
		if sub.Properties == nil {
			return Outcome{}, nil
		}
	}
	res, err := verify.Run(ctx, &sub, opts)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Present: true, Steps: 0}
	switch res.Verdict {
	case verdict.Holds:
		return out, nil
	case verdict.Unknown:
		out.Verdict, out.Reason = Unknown, res.Reason()
		return out, nil
	}
	v := res.Violation
	mine := false
	switch row.Kind {
	case "invariant":
		mine = v.Kind == verdict.Invariant || v.Name == row.Name // an invariant that fails to evaluate
	case "property":
		mine = v.Kind == verdict.Property
	case "deadlock":
		mine = v.Kind == verdict.Deadlock
	case "errors":
		mine = v.Kind == verdict.Assertion || v.Kind == verdict.RuntimeError
	}
	if !mine {
		first := fmt.Sprintf("%s %s", v.Kind, v.Name)
		if v.Kind == verdict.Deadlock {
			first = "a deadlock"
		}
		out.Verdict, out.Reason = Masked, first+" is reached first"
		return out, nil
	}
	out.Verdict, out.Steps = Violated, len(v.Trace)-1
	if v.LoopStart >= 0 {
		out.Steps = -1
	}
	return out, nil
}
