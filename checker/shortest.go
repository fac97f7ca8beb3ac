package checker

import (
	"context"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// runShortest is runProgram with the shortest-trace guarantee kept under
// Options.Ample: a violation found with ample sets is replaced by the
// shortest one of the same check (see [shortest]).
func runShortest(ctx context.Context, prog *machine.Program, opts Options, minParallel int) (*Result, error) {
	res, err := runProgram(ctx, prog, opts, minParallel)
	if err != nil || res.Verdict != Violated || opts.Ample == nil {
		return res, err
	}
	if err := shortest(ctx, prog, opts, minParallel, res); err != nil {
		return nil, err
	}
	return res, nil
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
func shortest(ctx context.Context, prog *machine.Program, opts Options, minParallel int, res *Result) error {
	opts.Ample = nil
	opts.MaxDepth = 0
	for _, v := range res.Violations {
		opts.MaxDepth = max(opts.MaxDepth, len(v.Trace)) // one more than the trace's steps: deadlocks at its depth are found
	}
	opts.Progress = nil
	full, err := runProgram(ctx, prog, opts, minParallel)
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
