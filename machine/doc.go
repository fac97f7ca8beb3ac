// Package machine is the virtual machine of wrapcheck: it compiles a
// *spec.Model once ([Compile]) to a [Program] and executes it on packed
// states. A [Machine] (one per goroutine) enumerates the initial states
// and the successors of a state in (action, branch) order, and evaluates
// invariants and expressions compiled once ([Program.CompileExpr]); a
// [Store] is a concurrent visited set of vectors of any width. Package
// checker's search, the LTL product, the reductions and the renderers
// all run on it.
//
// # State encoding
//
// Every slot of Model.Slots takes Slot.Bits bits of a []uint64 vector
// ([State]) holding value-Lo (a set slot: its mask); a slot never
// straddles two words. Vectors live in chunked arenas of the [Store], one
// record per vector: a link word (a search keeps its parent pointer there)
// and the vector.
// Evaluation unpacks a state into a Machine's flat []int64 memory, which
// also holds the action frame, a copy of the state with its own frame for
// predicates, one frame per agent and compile-time scratch for compound
// temporaries. Expressions and statements are compiled once to closures
// (statements in continuation-passing style, branches undone through an
// undo trail), quantifiers over small domains unrolled and constant-folded
// so that family-indexed slots become static loads. Nothing is allocated
// per state. A successor is re-packed incrementally from its parent: only
// the slots on the undo trail are rewritten.
//
// # Exact integers
//
// An interval analysis bounds every integer expression; one whose bounds
// do not fit an int64 is compiled to math/big closures, the others to
// int64 closures, so models with small values never pay for the exact
// path.
//
// # Interface of a search
//
// Besides the self-contained calls (Init, Successors, SuccessorsOf,
// Stutter, Enabled, Eval, IsTerminal), a Machine offers a search the
// lower-level calls of search.go: Load a packed state, RunAction each
// action with a callback per successor (OnState), read the successor
// (Slots, Action, Ordinal), Repack it from its parent, evaluate invariant
// conjuncts (Program.Conjuncts, EvalConjunct) over CheckSlots, or with
// generated code over the packed state itself (CheckPacked), and read
// the first failure of a branch (Failure, FailOrdinal, ClearFailure).
// They allocate nothing.
//
// # Reuse by other engines
//
// The LTL product search and the reduction hooks use the same core:
// [Compile] gives a [Program]; each goroutine takes a [Machine]
// (Program.NewMachine) whose Init and Successors enumerate packed
// [State] vectors in (action, branch) order and whose Eval evaluates
// expressions compiled once with Program.CompileExpr; [Store] is the
// visited set for vectors of any width (a system state plus automaton
// words, say), with a link word per vector.
package machine
