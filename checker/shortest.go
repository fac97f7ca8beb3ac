package checker

import (
	"context"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// Search is the signature of a search of a compiled model: the search of
// this package ([RunProgram] without the guarantee below), or another
// engine that gives the same Result for the same Options (package cluster).
type Search func(ctx context.Context, prog *machine.Program, opts Options) (*Result, error)

// Shortest runs search with the shortest-trace guarantee kept under
// Options.Ample: a violation found with ample sets is replaced by the
// shortest one of the same check (see [shortest]), found by search
// without them. [RunProgram] is Shortest over this package's search.
func Shortest(ctx context.Context, search Search, prog *machine.Program, opts Options) (*Result, error) {
	res, err := search(ctx, prog, opts)
	if err != nil || res.Verdict != Violated || opts.Ample == nil {
		return res, err
	}
	if err := shortest(ctx, search, prog, opts, res); err != nil {
		return nil, err
	}
	return res, nil
}

// runShortest is runProgram under [Shortest].
func runShortest(ctx context.Context, prog *machine.Program, opts Options, minParallel int) (*Result, error) {
	return Shortest(ctx, func(ctx context.Context, prog *machine.Program, opts Options) (*Result, error) {
		return runProgram(ctx, prog, opts, minParallel)
	}, prog, opts)
}

// shortest replaces the violations of res, found with the ample sets of
// opts.Ample, by the shortest violations of the same checks in the system
// without them. Partial-order reduction keeps some violation of every
// failing check reachable, but not the shortest path to it: an ample set
// may put an invisible step first. Every violation found is a real path,
// so the shortest one of the same check is at most as deep, and a search
// without ample sets (symmetry keeps distances, so Canon stays) bounded by
// the longest trace found reaches it. Stats, Stop and Coverage stay those
// of the reduced search; a bounded search that ends without a violation
// (a limit, ctx) leaves res as it is.
func shortest(ctx context.Context, search Search, prog *machine.Program, opts Options, res *Result) error {
	opts.Ample = nil
	opts.MaxDepth = 0
	for _, v := range res.Violations {
		opts.MaxDepth = max(opts.MaxDepth, len(v.Trace)) // one more than the trace's steps: deadlocks at its depth are found
	}
	opts.Progress = nil
	full, err := search(ctx, prog, opts)
	if err != nil {
		return err
	}
	if full.Verdict != Violated {
		return nil
	}
	if !opts.Continue {
		res.Violation = full.Violation
		res.Violations = []*Violation{full.Violation}
		return nil
	}
	// The same checks, in the order of the unreduced search.
	var vs []*Violation
	for _, fv := range full.Violations {
		for _, v := range res.Violations {
			if sameCheck(v, fv) {
				vs = append(vs, fv)
				break
			}
		}
	}
	for _, v := range res.Violations {
		if !slices.ContainsFunc(vs, func(fv *Violation) bool { return sameCheck(v, fv) }) {
			vs = append(vs, v) // not met within the bound: keep the reduced search's
		}
	}
	res.Violations, res.Violation = vs, vs[0]
	return nil
}

// sameCheck reports whether a and b are violations of the same check.
func sameCheck(a, b *Violation) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Deadlock:
		return true
	case Invariant, Property:
		return a.Name == b.Name
	}
	return a.Name == b.Name && a.Pos == b.Pos
}
