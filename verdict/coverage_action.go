package verdict

// ActionCoverage is the per-action coverage of a state space, as TLC
// prints it: computed by checker.CoverageOf in a pass of its own, after the
// search, so that the search's loop counts nothing more.
type ActionCoverage struct {
	States int64 // reachable states the pass expanded
	// Enabled, Fired and Distinct are indexed by action (into
	// spec.Model.Actions): the states in which the action has a
	// successor, the successors it generated (duplicates included), and
	// the states it reached first (new states, in breadth-first order).
	Enabled, Fired, Distinct []int64
	// Truncated says that the pass stopped at its state limit or when
	// its context was done: the counts cover the states visited.
	Truncated bool
}
