// Package checker is the breadth-first search of wrapcheck: it explores
// the reachable states of a model compiled by package machine
// ([machine.Compile]) in parallel ([Run], [RunProgram]) and reports the
// shortest violation of an invariant, an assertion, a runtime error or a
// deadlock, with a concrete trace. The machine executes the model; this
// package decides which states to expand and stores them; the results
// it returns ([Result], [Violation], [Stats]) and the hooks it takes
// ([CanonFunc], [AmpleFunc]) are package verdict's, shared by every engine.
//
// # Semantics and counting
//
// Initial states are the zero state after Model.Init, one per init branch
// (duplicates stored once). Each enabled action, for each of its branches
// (every agent answer its assume allows, every choose value its where
// allows), makes one successor. Stats.Transitions counts every successor
// generated, duplicates and self-loops included; Stats.States counts the
// distinct states stored (canonical states under a Canon hook).
// Invariants are checked on each state when it is first stored. A branch
// that fails (a runtime error, a false assert) makes no successor and is
// a violation; the state's other branches and actions still make theirs,
// and a failing init branch makes no initial state while the others do,
// so the figures are those of the reachable state space whatever the
// verdict. A failing branch takes an ordinal, as a successor does.
//
// # Storage
//
// States are packed vectors ([machine.State]); the visited set is a
// [machine.Store], one record per state: a link word (parent pointer) and
// the vector. A worker's machine hands each successor to the search
// unpacked; the search re-packs it incrementally from its parent
// ([machine.Machine.Repack]: only the slots the branch wrote) and
// re-checks only the invariant conjuncts that read a changed slot.
// Nothing is allocated per state.
//
// # Concurrency
//
// The search is level-synchronous. The frontier (a level, in a
// deterministic order) is cut into batches that Workers goroutines claim
// with an atomic counter; each worker owns a Machine. The visited set is
// an open-addressing table split into 256 shards, each with its own lock
// and its own growth, plus arenas that never move. ctx, Options.MaxStates
// and the memory budget are checked once per batch; a monitor goroutine
// samples the heap every 100ms and calls Options.Progress once a second.
//
// # Determinism
//
// Every successor has a key (position of its parent in the frontier,
// ordinal of the successor among the parent's successors in (action,
// branch) order). A state found in the current level keeps the smallest
// key among all the transitions that reach it (CAS-min on its link word),
// and the next frontier lists the level's new states in key order
// (per-batch lists concatenated in batch order, filtered to the entries
// holding the minimal key); keys then become parent pointers. A level is
// always finished before a violation is chosen: a deadlock of the level
// first (trace length d), else the failure or bad new state with the
// smallest key (length d+1). So the frontier orders, the parents, the
// reported violation and its trace are the same for every Workers value
// and every run, and so are Stats.States and Stats.Transitions when the
// search completes. Traces are rebuilt by replaying the actions from the
// initial state, taking at each step the first successor whose canonical
// form is the next stored state, which also gives concrete traces under
// symmetry reduction.
//
// # Shortest traces under partial-order reduction
//
// Symmetry keeps distances (a canonical state is as deep as every state
// of its orbit), ample sets do not: an ample set may put an invisible,
// independent step before the one that leads to the violation. So a
// search with Options.Ample that finds a violation is followed by a
// search without ample sets (Canon kept), bounded by the depth of the
// longest violation found: every violation found is a real path, so the
// shortest one of the same check lies within the bound, and that search
// finds it. The reported violations are those of the bounded search
// (with Options.Continue, those of the checks the reduced search found,
// in the bounded search's order); Stats, Stop and Coverage stay the
// reduced search's. A search that holds pays nothing.
//
// # Hash compaction
//
// With Options.HashCompact the visited set keeps, per state, a 64-bit
// fingerprint (the vector's hash) in a sharded ordered linear-probing
// table at load 0.5-0.9, and a trace record of 5 bytes in a temporary
// file: the parent's index and the ordinal of the successor that first
// reached the state. Indexes are BFS positions (level by level, each level
// in key order), so they do not depend on the worker count. Vectors are
// kept only for the level being expanded (in a second temporary file, in
// frontier order, read a batch at a time) and the level being built (a
// [machine.Store] emptied at every level, which dedups the level exactly
// and keeps the minimal keys as above). A successor whose fingerprint is
// stored is taken for a state of an earlier level; if it is another
// state, that state is lost, with probability at most n²/2⁶⁵ for n states
// (Result.Notes says so). A trace follows the parent indexes back to an
// initial state, re-runs the recorded ordinals (in the search's order,
// ample sets first) to get the stored states of the path, and replays
// those as above: without a collision it is the trace of the full mode.
//
// # Performance
//
// `go test -run XXX -bench BFS -benchtime 3x ./checker/` explores the peer
// models of examples/peers with one and two workers and reports states
// per second, states per CPU-second and the visited store's bytes per
// state. Nothing is allocated per state; the costs are the visited set's
// cache misses (overlapped a batch of successors at a time), the invariant
// conjuncts of the changed slots, and the compiled actions. docs/impl.md
// says what paid off and what did not; docs/performance.md compares the
// whole command with SPIN and Rumur (bench/peers.sh).
package checker
