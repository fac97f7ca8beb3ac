// Package testgen generates tests from a spec: a small set of shortest
// runs that together make the wrapper do everything the spec says it may
// do, for a harness to drive the real wrapper down the same paths with
// its agents' answers scripted (docs/testgen.md).
//
// # Goals
//
// A goal is something a run can do: an action fires; an arm of a
// branching statement is taken (the then and the else of every if, even
// one without an else, each case of a match, each arm of an
// if-expression assigned to a variable); an agent gives an answer of one
// class (each boolean, each enum member or identity, both ends of a
// range, the empty and the full set, field by field in a record, element
// by element in an array); an action fires from a state where an integer
// comparison of its guard is at its edge (a + 1 == b for a < b, a == b
// for a <= b); a conjunct of a guard is the only false one (the action is
// disabled by it alone); the antecedent of an `implies` invariant or of an
// `always (a implies ...)` or `a leadsto ...` property holds; a disjunct of
// the terminal condition holds.
//
// # Search
//
// [Generate] explores the state space breadth-first, without reduction,
// over a copy of the model whose actions record the arms they take in
// hidden set variables (instrument.go): a state of the copy is a state of
// the spec and the arms of the step that reached it, so that the arms
// are read off the successor like any variable. The first step or state
// that meets a goal is met at the least depth, so the tree of first
// parents gives a shortest witness for each goal. A greedy set cover over
// the witnesses (the one that meets the most goals not met yet, the
// shorter among equals) picks the tests. A goal with no witness is
// unreachable, and the result says why, from what the search counted:
// the action never enabled, never fired, the agent never asked or never
// with that answer, and so on. With a state limit the search may stop
// early: the reasons then say "in the states explored".
//
// Generate is deterministic: the same model gives the same tests.
package testgen
