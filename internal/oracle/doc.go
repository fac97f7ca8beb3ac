// Package oracle is a second, deliberately simple semantics of the wrap
// language, written from its reference (docs/language.md) alone, that the
// tests use to check the real engine (packages machine and checker, and
// the front end behind them).
//
// It interprets the IR (*spec.Model) by walking its trees: a state is a
// plain []int64 of slots, values are freshly allocated []int64 (one scalar
// per slot, in the IR's value encoding), a runtime error is a Go panic
// recovered around the statement that raised it, the visited set is a Go
// map keyed by the state's bytes and the search is a sequential
// breadth-first search. It shares no code with machine or checker: no
// compiled closures, no bit packing, no undo trail, no constant folding.
// It is slow (a few hundred thousand transitions a second) and meant for
// specs of at most a few hundred thousand states.
//
// # Semantics
//
// Initial states: every slot takes the zero value of its variable's type
// (computed here from the types, not from the IR's slot table, which is
// cross-checked), then Model.Init runs; each branch that completes makes
// an initial state. In a state, every action whose guard holds runs its
// body; each completed branch (each agent answer its assume allows, each
// choose value its where allows) is one transition, self-loops and
// duplicates included. A branch that fails (an assignment out of range, an
// index outside an array, a division by zero, a set element outside its
// type, a false assert) makes no successor and is a violation; the other
// branches and actions of the state still make theirs, so States and
// Transitions are those of the whole reachable state space whatever the
// verdict. A state where no action has a branch (completed or failed) is a
// deadlock unless the terminal condition holds there; when evaluating it
// fails, that runtime error is the state's violation.
//
// The reported violation is the one with the shortest trace; among those
// of one length, the first found by the sequential search, where a level
// is expanded state by state in the order its states were discovered and a
// state's branches in (action, branch) order (answers and chosen values in
// increasing order, the last slot of an answer varying fastest). A
// deadlock of level d is found when level d is expanded, after the bad
// states of level d and the failures of the transitions into it.
package oracle
