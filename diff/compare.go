package diff

import (
	"context"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Options configures [Compare]. The zero value is the default: no
// renaming, the default bounds, the verdict table with verify's
// defaults.
type Options struct {
	// Map renames OLD's variables and action labels to NEW's: old -> new.
	Map map[string]string
	// MaxNodes bounds the pairs explored per direction, and the states of
	// the other spec stored; 0: DefaultMaxNodes.
	MaxNodes int64
	// MaxSetStates bounds the states held in the distinct sets of the
	// other spec, summed, per direction; 0: DefaultMaxSetStates.
	MaxSetStates int64
	// NoChecks skips the verdict table.
	NoChecks bool
	// Verify configures the checks of the verdict table.
	Verify verify.Options
}

func (o Options) maxNodes() int64 {
	if o.MaxNodes > 0 {
		return o.MaxNodes
	}
	return DefaultMaxNodes
}

func (o Options) maxSetStates() int64 {
	if o.MaxSetStates > 0 {
		return o.MaxSetStates
	}
	return DefaultMaxSetStates
}

// Result is the comparison of OLD and NEW.
type Result struct {
	Old, New *spec.Model
	Obs      *Observation
	// OldOnly is the search for a trace OLD allows and NEW does not;
	// NewOnly the reverse.
	OldOnly, NewOnly *Direction
	// Checks is the verdict table (nil with Options.NoChecks).
	Checks []Row
}

// Differ reports whether a distinguishing trace was found in either
// direction or a check's verdict changed.
func (r *Result) Differ() bool {
	if r.OldOnly.Trace != nil || r.NewOnly.Trace != nil {
		return true
	}
	for _, c := range r.Checks {
		if c.Changed() {
			return true
		}
	}
	return false
}

// Incomplete reports whether a search or a check stopped early (a masked
// check did not: it ran to its end).
func (r *Result) Incomplete() bool {
	if r.OldOnly.Incomplete || r.NewOnly.Incomplete {
		return true
	}
	for _, c := range r.Checks {
		if c.Old.Present && c.Old.Verdict == Unknown || c.New.Present && c.New.Verdict == Unknown {
			return true
		}
	}
	return false
}

// Compare compares the behaviours of old and new (see the package
// documentation) and, unless opts.NoChecks, the verdicts of their
// checks. The error reports a bad rename, a model the engine cannot
// compile, or a failure of the checks' engines; the context stops the
// searches early (incomplete, not an error).
func Compare(ctx context.Context, old, new *spec.Model, opts Options) (*Result, error) {
	obs, err := Observe(old, new, opts.Map)
	if err != nil {
		return nil, err
	}
	r := &Result{Old: old, New: new, Obs: obs}
	so, err := newSide("old", old, obs.Shared, true)
	if err != nil {
		return nil, err
	}
	sn, err := newSide("new", new, obs.Shared, false)
	if err != nil {
		return nil, err
	}
	if r.OldOnly, err = search(ctx, so, sn, obs.OldToNew, opts); err != nil {
		return nil, err
	}
	so.reset()
	sn.reset()
	if r.NewOnly, err = search(ctx, sn, so, obs.NewToOld, opts); err != nil {
		return nil, err
	}
	if !opts.NoChecks {
		if r.Checks, err = Checks(ctx, old, new, opts.Verify); err != nil {
			return nil, err
		}
	}
	return r, nil
}
