package checker

import "github.com/wrapcheck/wrapcheck/verdict"

// The results of a search are package verdict's, which every engine and
// renderer shares; the names below let this package's code and its
// callers write them as checker's.
type (
	Verdict    = verdict.Verdict    // the outcome of a search
	Kind       = verdict.Kind       // the kind of a violation
	Result     = verdict.Result     // the outcome of [Run]
	StopReason = verdict.StopReason // why a search ended early
	Violation  = verdict.Violation  // a violated check with a shortest trace
	Slice      = verdict.Slice      // the causal slice of a finite trace
	SliceStep  = verdict.SliceStep  // one step of a Slice
	Step       = verdict.Step       // one entry of a trace
	Answer     = verdict.Answer     // an agent answer taken on a step
	Stats      = verdict.Stats      // the figures of a search
	Coverage   = verdict.Coverage   // the parts of the model exercised
)

// Verdicts ([verdict.Verdict]).
const (
	Holds    = verdict.Holds
	Violated = verdict.Violated
	Unknown  = verdict.Unknown
)

// Violation kinds ([verdict.Kind]).
const (
	Invariant    = verdict.Invariant
	Property     = verdict.Property
	Deadlock     = verdict.Deadlock
	Assertion    = verdict.Assertion
	RuntimeError = verdict.RuntimeError
)

// Stop reasons ([verdict.StopReason]).
const (
	NotStopped      = verdict.NotStopped
	StopAtViolation = verdict.StopAtViolation
	StopStates      = verdict.StopStates
	StopDepth       = verdict.StopDepth
	StopTimeout     = verdict.StopTimeout
	StopInterrupted = verdict.StopInterrupted
	StopMemory      = verdict.StopMemory
	StopIO          = verdict.StopIO
)
