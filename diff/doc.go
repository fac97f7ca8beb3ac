// Package diff compares the behaviours of two revisions of a spec, OLD and
// NEW, over what they share, and tabulates the verdicts of their checks.
//
// # Observation
//
// A step of a spec is observed as its action label (Action.Name, the
// qualified "proc.act", "fam[v].act" or bare top-level name) and the
// values, after the step, of the shared variables; the initial state is
// observed by the shared variables alone. A variable is shared when both
// specs declare a variable of that name (globals by name, locals as
// "P.x" or "P[v].x") with compatible types: the same kind, the same enum
// members or identities, the same array index and record fields, and the
// same set element type; integer ranges are compatible whatever their
// bounds, since values compare as integers. Options.Map renames OLD's
// names (variables and actions) to NEW's before they are matched.
//
// Variables of one spec only, and same-named variables of incompatible
// types, are hidden: they are not observed. Actions of one spec only are
// observed like the others, so a trace that takes one is a behaviour the
// other spec does not have. Agent answers are not observed; the values
// they leave in shared variables are. A branch that fails (an assertion
// or a runtime error) makes no step; the verdict table reports it.
//
// # Search
//
// [Compare] looks, in each direction, for the shortest observed trace
// that one spec (A) allows and the other (B) does not. It searches
// breadth-first over pairs (a state of A, the set of states of B
// consistent with the observations so far): B may be nondeterministic,
// so its side is a subset construction. A trace distinguishes the specs
// when the set of B becomes empty. Pairs and sets are bounded
// (Options.MaxNodes, Options.MaxSetStates); when a bound is hit before
// a distinguishing trace is found, the direction is incomplete. The
// search is sequential and visits successors in the engine's (action,
// branch) order, so its result is the same on every run.
//
// The trace language is a finite-trace comparison: it does not see
// deadlocks or liveness; the verdict table (see [Checks]) does.
package diff
