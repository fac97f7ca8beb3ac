package checker

import (
	"context"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// ActionCoverage is [verdict.ActionCoverage], which [CoverageOf] counts.
type ActionCoverage = verdict.ActionCoverage

// CoverageOf explores the reachable states of prog breadth-first,
// without reduction, expanding at most maxStates states (0: no limit),
// and counts for each action the states that enable it, the successors
// it generates and the new states it reaches. A state whose expansion
// fails (a runtime error, an assertion: the search reports those) counts
// the successors it generated before the failure. Once ctx is done the
// pass stops and returns what it counted, marked Truncated. Its memory is
// one packed vector per state, as the graph of `wrapcheck graph`.
func CoverageOf(ctx context.Context, prog *machine.Program, maxStates int64) *ActionCoverage {
	n := prog.Actions()
	cov := &ActionCoverage{Enabled: make([]int64, n), Fired: make([]int64, n), Distinct: make([]int64, n)}
	mach := prog.NewMachine()
	store := machine.NewStore(max(prog.Words(), 1))
	add := func(t machine.State) bool {
		vec := t
		if len(vec) == 0 {
			vec = []uint64{0}
		}
		_, isNew, err := store.Insert(vec, 0)
		return err == nil && isNew
	}
	if err := mach.Init(func(_ int, t machine.State) { add(t) }); err != nil {
		return cov
	}
	seen := make([]bool, n)
	var fired []int
	cur := make(machine.State, store.Width())
	for i := uint32(0); int64(i) < store.Len(); i++ {
		if maxStates > 0 && int64(i) >= maxStates || i%1024 == 0 && ctx.Err() != nil {
			cov.Truncated = true
			break
		}
		copy(cur, store.Vector(i))
		fired = fired[:0]
		_ = mach.Successors(cur[:prog.Words()], func(action, _ int, t machine.State) {
			cov.Fired[action]++
			if !seen[action] {
				seen[action] = true
				fired = append(fired, action)
			}
			if add(t) {
				cov.Distinct[action]++
			}
		})
		for _, a := range fired {
			cov.Enabled[a]++
			seen[a] = false
		}
		cov.States++
	}
	return cov
}
