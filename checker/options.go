package checker

import "github.com/wrapcheck/wrapcheck/verdict"

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
	// vector's width, 9-14 past some 6·10⁷ states, whose tables grow
	// further at a time), plus the level being built; a 5-byte trace record
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
	// is expanded. Ample sets keep some violation of every failing check
	// reachable but not its shortest trace, so when the reduced search
	// finds a violation, the search is run again without Ample, bounded
	// by the depth of the longest violation found, and the violations
	// reported are those of that second search: shortest traces, as
	// without the hook. Stats, Stop and Coverage are the reduced search's.
	Ample AmpleFunc
	// Progress, when not nil, is called about once a second from one
	// goroutine while the search runs.
	Progress func(Progress)
}

// CanonFunc is the symmetry hook ([verdict.CanonFunc]).
type CanonFunc = verdict.CanonFunc

// AmpleFunc is the partial-order reduction hook ([verdict.AmpleFunc]).
type AmpleFunc = verdict.AmpleFunc

// Progress is a snapshot of a running search ([verdict.Progress]).
type Progress = verdict.Progress
