// Package guard puts a spec in front of a live wrapper: it holds the
// state of every open run of the spec and decides each step the wrapper
// proposes before the step is taken (docs/guard.md).
//
// A step is an event in the shape of a line of a run file of `wrapcheck
// replay` (an action, with the agents' answers and some of the state
// after it), decoded by [replay.Decoder] and followed by [replay.Trail]:
// the guard shares replay's decoding and its step, so that a run the
// guard allows step by step is a run replay finds conforming, and one
// replay finds diverging or violated is blocked at that step.
//
// # Decisions
//
// A [Request] is answered by a [Decision]: allow, when the spec allows
// the step from a state consistent with the run and no invariant (past-time
// ones included), assertion or runtime error is violated after it; block
// otherwise, with the reason, the property violated, and the run's trace
// in the JSON of a trace of `check --format json`. The guard fails
// closed: whatever it cannot map (malformed JSON, an unknown member,
// action, agent, variable or run, a value outside its type, a run over
// a limit) is blocked too. An allowed step advances the run; a blocked
// one leaves it where it was. A run ends, and leaves memory, when no
// action can follow (its end is "terminal" or "deadlock") or on close.
//
// # Durability
//
// With [Options.Journal], every decision that changes a run (an open, an
// allowed step, a close) is appended to the journal and synced before it
// is answered (group commit: concurrent decisions share a sync), and [New]
// decides every journaled request again at start, so that a guard killed
// at any point resumes every open run with no answered decision lost or
// changed. A blocked step changes nothing and is not journaled: asked
// again, it is blocked again.
//
// # Concurrency and limits
//
// A Guard is safe for concurrent use; decisions are taken one at a time
// under its lock, in the order the journal records. The runs open at
// once, the history and the spec states each keeps, and the size of a
// request are bounded ([Options], [MaxRequestBytes]).
package guard
