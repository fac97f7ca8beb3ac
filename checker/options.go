package checker

import "time"

// Options configures [Run]. The zero value is the default: one worker per
// CPU, no limits, deadlock detection on, every invariant checked, no
// reduction.
type Options struct {
	// Workers is the number of exploring goroutines; 0 means
	// runtime.GOMAXPROCS(0). The result does not depend on it.
	Workers int
	// MaxStates stops the search (Verdict Unknown, Stop StopStates)
	// once more than MaxStates distinct states are stored; 0: no limit.
	MaxStates int64
	// MaxDepth stops the search (Stop StopDepth) instead of
	// expanding states MaxDepth steps away from an initial state; 0: no limit.
	MaxDepth int
	// NoDeadlock turns deadlock detection off.
	NoDeadlock bool
	// Continue explores every reachable state after a violation, and
	// reports in Result.Violations the first violation of every check
	// that fails (each with a shortest trace), so that Stats are the
	// figures of the whole reachable state space. By default the search
	// stops at the end of the level in which the first violation is found:
	// the same first violation, Stats of the states explored until then.
	Continue bool
	// Only restricts the checked invariants (and, for other engines,
	// properties) to these names. Assertions and runtime errors are always
	// checked. A name that is neither an invariant nor a property is an
	// error.
	Only []string
	// MemoryBudget stops the search (Stop StopMemory) when the Go
	// heap grows beyond this many bytes; 0: no budget.
	MemoryBudget int64
	// HashCompact keeps only a 64-bit fingerprint per visited state in
	// memory, instead of its vector (9-11 bytes per state whatever the
	// vector's width), plus the level being built; a 5-byte trace record
	// per state and the level being expanded go to temporary files in
	// os.TempDir, removed when the search ends. Two states with the same
	// fingerprint count as one, so the search may miss states; Result.Notes
	// then gives the probability of that (n²/2⁶⁵ for n states). Verdicts,
	// counts and traces are those of the full search when no collision
	// occurs.
	HashCompact bool
	// Canon is the symmetry hook; nil: no symmetry reduction.
	Canon CanonFunc
	// Ample is the partial-order reduction hook; nil: every enabled action
	// is expanded.
	Ample AmpleFunc
	// Progress, when not nil, is called about once a second from one
	// goroutine while the search runs.
	Progress func(Progress)
}

// CanonFunc rewrites an unpacked state (one int64 per slot of
// spec.Model.Slots, in the value encoding of the IR) in place into the
// canonical representative of its orbit. It is called concurrently from
// every worker and must be safe for concurrent use; it must not retain
// slots. Calling it on a canonical state must leave the state unchanged.
type CanonFunc func(slots []int64)

// AmpleFunc chooses the actions to expand in a state. slots is the
// unpacked (canonical) state and enabled the indexes (into
// spec.Model.Actions, ascending) of the actions whose guard holds. It
// returns a subset of enabled, ascending; it may reuse enabled's backing
// array but must not retain either slice. It is called concurrently from
// every worker and must be safe for concurrent use.
//
// The checker enforces the BFS cycle proviso itself: when the returned
// subset is proper and one of its successors was stored before the
// current level (a state no deeper than the expanded one, which every
// cycle has), or it yields no successor at all, the remaining enabled
// actions are expanded too. This does not depend on the worker count.
type AmpleFunc func(slots []int64, enabled []int) []int

// Progress is a snapshot of a running search.
type Progress struct {
	States      int64
	Transitions int64
	Depth       int // the BFS level being expanded
	Frontier    int // states in that level
	Elapsed     time.Duration
	HeapBytes   uint64
	// Property is the LTL property being checked (package ltl), "" in the
	// safety search. For a property, States and Transitions count the
	// product's nodes and edges, Depth is the deepest node so far and
	// Frontier the nodes not yet expanded.
	Property string `json:",omitempty"`
}
